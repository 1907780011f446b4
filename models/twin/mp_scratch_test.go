package twin

import (
	"context"
	"os"
	"testing"

	"lupilab/models/data"
	"lupilab/models/model"
)

func TestMPScratch(t *testing.T) {
	ds, err := data.TwoView2D(400, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	y, _ := ds.BinaryY()
	mpMaxSweeps = 2000
	for _, kn := range []string{"linear", "rbf"} {
		for _, c := range []string{"0", "1", "10"} {
			v := values(t, "mpwtsvm", "kernel", kn, "c", c, "eps", os.Getenv("EPS"))
			cfg, err := mpConfigOf(v)
			if err != nil {
				t.Fatal(err)
			}
			m, err := fitMPWith(context.Background(), ds, y, cfg, model.Options{}, func(p1, p2 *mpSolved) {
				for _, s := range []*mpSolved{p1, p2} {
					t.Logf("rounds %d kkt %g conv %v hist %.6g", s.rounds, s.kkt, s.conv, tail3(s.history))
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			r := m.Report()
			vd, _ := m.ViewDecisions(ds)
			dec, _ := m.Decision(ds)
			acc := func(d []float64) float64 {
				c := 0
				for i := range d {
					if d[i]*y[i] > 0 {
						c++
					}
				}
				return float64(c) / float64(len(d))
			}
			t.Logf("%s c=%s: %.3fs conv %v drop %v accA %.3f accB %.3f both %.3f", kn, c, r.TrainSeconds, r.Converged, r.Extras["dropped_fraction"], acc(vd["A"]), acc(vd["B"]), acc(dec))
		}
	}
}

func tail3(a []float64) []float64 {
	if len(a) > 3 {
		return a[len(a)-3:]
	}
	return a
}
