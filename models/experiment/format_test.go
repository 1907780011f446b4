package experiment

import "testing"

func TestMeanSDOmitsTheSpreadOfOneRun(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want string
	}{
		{[]float64{0.9296}, "92.96"},
		{[]float64{0.9, 0.8}, "85.00 ± 7.07"},
		{nil, "–"},
	} {
		if got := MeanSD(c.xs, 100, 2, " ± "); got != c.want {
			t.Errorf("MeanSD(%v) = %q, want %q", c.xs, got, c.want)
		}
	}
}
