//go:build linux

package procmem

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// statm reads /proc/self/statm, the kernel's other account of the same
// counters (in pages): total program size and resident set.
func statm(t *testing.T) (size, resident float64) {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm:", err)
	}
	f := strings.Fields(string(b))
	page := float64(os.Getpagesize())
	s, err1 := strconv.ParseFloat(f[0], 64)
	r, err2 := strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("statm %q", b)
	}
	return s * page, r * page
}

var sink []byte

// The readings agree with /proc/self/statm, follow memory the process
// touches, and the peak starts again after ResetPeak.
func TestReadingsFollowTheKernel(t *testing.T) {
	size, ok := AddressSpace()
	rss, ok2 := Resident()
	wantSize, wantRSS := statm(t)
	if !ok || !ok2 {
		t.Fatalf("AddressSpace ok %v, Resident ok %v", ok, ok2)
	}
	const slack = 16 << 20 // the runtime may map or fault in pages between the two reads
	if d := size - wantSize; d > slack || d < -slack {
		t.Errorf("VmSize %.0f, statm size %.0f", size, wantSize)
	}
	if d := rss - wantRSS; d > slack || d < -slack {
		t.Errorf("VmRSS %.0f, statm resident %.0f", rss, wantRSS)
	}
	const grow = 64 << 20
	sink = make([]byte, grow)
	for i := range sink {
		sink[i] = 1
	}
	after, _ := Resident()
	if after-rss < grow/2 {
		t.Errorf("touching %d bytes raised VmRSS by %.0f", grow, after-rss)
	}
	peak, _ := Peak()
	if peak < after {
		t.Errorf("peak %.0f below resident %.0f", peak, after)
	}
	sink = nil
	runtime.GC()
	debug.FreeOSMemory()
	if !ResetPeak() {
		t.Fatal("kernel refused clear_refs")
	}
	reset, _ := Peak()
	now, _ := Resident()
	if peak-now < grow/2 {
		t.Logf("the runtime kept the %d bytes (resident %.0f, old peak %.0f): the reset is not checked", grow, now, peak)
	} else if d := reset - now; d > slack || d < -slack {
		t.Errorf("after ResetPeak the peak %.0f is not the resident set %.0f (old peak %.0f)", reset, now, peak)
	}
	if _, ok := Status("NoSuchField"); ok {
		t.Error("an absent field reads as present")
	}
}

// The machine's available memory is positive and at most its total memory
// as sysinfo(2) gives it.
func TestAvailableWithinTotal(t *testing.T) {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		t.Skip("sysinfo:", err)
	}
	total := float64(si.Totalram) * float64(si.Unit)
	free, ok := Available()
	if !ok || !(free > 0) || free > total {
		t.Errorf("MemAvailable %.0f (ok %v), total %.0f", free, ok, total)
	}
}
