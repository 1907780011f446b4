package procmem

import "testing"

// A status file as Linux writes it: the field is found by its exact name
// (VmHWM is not VmHWMx, VmRSS not RssAnon), kB are turned into bytes, and a
// missing or malformed field is reported, not read as 0.
func TestParseStatus(t *testing.T) {
	const text = "Name:\tlupi\nVmPeak:\t  812344 kB\nVmSize:\t  712344 kB\n" +
		"VmHWM:\t   20480 kB\nVmRSS:\t   10240 kB\nRssAnon:\t    4096 kB\nVmBad:\tmany kB\nThreads:\t5\n"
	for _, c := range []struct {
		field string
		want  float64
		ok    bool
	}{
		{"VmSize", 712344 * 1024, true},
		{"VmHWM", 20480 * 1024, true},
		{"VmRSS", 10240 * 1024, true},
		{"RssAnon", 4096 * 1024, true},
		{"Threads", 5 * 1024, true}, // a field without a unit is read as kB, as the callers ask only kB fields
		{"VmSwap", 0, false},
		{"VmBad", 0, false},
		{"Vm", 0, false},
	} {
		got, ok := parseStatus(text, c.field)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: got %v, %v; want %v, %v", c.field, got, ok, c.want, c.ok)
		}
	}
}
