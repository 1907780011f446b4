package app

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"lupilab/models/spec"
)

// TestTuneValuesReadAlike: Tune's grid writes every value of a
// parameter's axis in one plain format, as the model form writes values —
// "0.001, 0.0316, 1, 31.6, 1000" for SVM's C, not "… 31.6, 1e+03" — with
// three significant digits of the log-spaced value, for 2 to 9 values
// each; an integer parameter's too ("1000" for the neighbours k, which
// read "1e+03").
func TestTuneValuesReadAlike(t *testing.T) {
	plain := regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)
	svm, err := spec.Lookup("svm")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(spanValues(svm.Param("C"), 5), ", "); got != "0.001, 0.0316, 1, 31.6, 1000" {
		t.Errorf("C, 5 values: %s", got)
	}
	for _, name := range []string{"C", "gamma"} {
		par := svm.Param(name)
		for steps := 2; steps <= 9; steps++ {
			vals := spanValues(par, steps)
			if len(vals) != steps {
				t.Errorf("%s, %d values: got %q", name, steps, vals)
			}
			for i, s := range vals {
				want := math.Pow(10, -3+6*float64(i)/float64(steps-1)) // the grid's window, 0.001 to 1000
				v, err := strconv.ParseFloat(s, 64)
				significant := strings.Trim(strings.NewReplacer("-", "", ".", "").Replace(s), "0")
				if !plain.MatchString(s) || err != nil || math.Abs(v/want-1) > 0.006 || len(significant) > 3 {
					t.Errorf("%s, %d values: value %d is %q, want %.4g written plainly with 3 significant digits", name, steps, i, s, want)
				}
			}
		}
	}
	twin, err := spec.Lookup("mpwtsvm")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(spanValues(twin.Param("k"), 5), ", "); got != "1, 251, 501, 750, 1000" {
		t.Errorf("k (neighbours), 5 values: %s", got)
	}
}

// TestSigText: values written for people have three significant digits
// and no rounding residue (a log slider at 10^(5/3) wrote
// "46.400000000000006" into C's field).
func TestSigText(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{math.Pow(10, 5.0/3), "46.4"}, {math.Pow(10, -2.25), "0.00562"}, {1000, "1000"}, {0.001, "0.001"}, {123456, "123000"}, {-66.666, "-66.7"}} {
		if got := sigText(c.v); got != c.want {
			t.Errorf("sigText(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}
