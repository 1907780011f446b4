package data

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"
)

// TestMekaLabelCount checks the hand-written "-C n" reader against the
// regular expression it replaces, on hand-picked and fuzzed relation names.
func TestMekaLabelCount(t *testing.T) {
	re := regexp.MustCompile(`-C\s+(-?\d+)`)
	check := func(rel string) {
		t.Helper()
		got, ok := mekaLabelCount(rel)
		want, wantOK := 0, false
		if m := re.FindStringSubmatch(rel); m != nil {
			var err error
			want, err = strconv.Atoi(m[1])
			wantOK = err == nil
		}
		if got != want || ok != wantOK {
			t.Errorf("%q: got %d, %v; the regular expression gives %d, %v", rel, got, ok, want, wantOK)
		}
	}
	for _, rel := range []string{"", "-C", "-C 6", "'scene: -C 6'", "yeast: -C -14 -split", "-C6 -C 3", "-C\t\n 12x",
		"a-C -", "-C -x -C 5", "--C 2", "-c 4", "x -C  99999999999999999999999", "-C -0"} {
		check(rel)
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("-C c0129 \t\n\rx")
	for i := 0; i < 20000; i++ {
		b := make([]byte, r.IntN(14))
		for k := range b {
			b[k] = alphabet[r.IntN(len(alphabet))]
		}
		check(string(b))
	}
}
