package gp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"
)

// gridPoints lays out the nodes (xs[i], ys[j]) row-major, y outer.
func gridPoints(xs, ys []float64) *mat.Dense {
	pts := mat.NewDense(len(xs)*len(ys), 2, nil)
	for j, y := range ys {
		for i, x := range xs {
			pts.Set(j*len(xs)+i, 0, x)
			pts.Set(j*len(xs)+i, 1, y)
		}
	}
	return pts
}

func gridAxes(r *rand.Rand, w, h int, random bool) (xs, ys []float64) {
	xs, ys = make([]float64, w), make([]float64, h)
	for i := range xs {
		xs[i] = -2.6 + 5.2*(float64(i)+0.5)/float64(w)
		if random {
			xs[i] = -3 + 6*r.Float64()
		}
	}
	for j := range ys {
		ys[j] = 2.4 - 4.8*(float64(j)+0.5)/float64(h)
		if random {
			ys[j] = -3 + 6*r.Float64()
		}
	}
	return xs, ys
}

type latentGrid interface {
	LatentOnGrid(xs, ys []float64, withVar bool, tick func()) (mean, variance []float64, ok bool, err error)
	ProbabilityOf(mean, variance []float64) []float64
	Decision(ds *data.Dataset) ([]float64, error)
	Probability(ds *data.Dataset) ([]float64, error)
}

// The grid's latent means, variances and probabilities equal point-by-point
// prediction (Decision, GPC.latent, Probability) to 1e-9 — means relative to
// their largest magnitude, variances relative to the prior variance θ — on a
// regular grid and on random axes, for GPC (default, ARD, a short fixed
// length-scale) and GPC+, by the low-rank path where it applies and by the
// direct one.
func TestLatentOnGridMatchesPointwise(t *testing.T) {
	moons, _ := data.GenerateByName("moons", 140, 0.15, 1)
	small, _ := data.GenerateByName("moons", 80, 0.15, 3)
	lupi, _ := data.GenerateByName("lupi2d", 140, 0.2, 2)
	fitWith := func(id string, ds *data.Dataset, set map[string]string) latentGrid {
		spec, err := model.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		v, err := spec.Resolve(model.Values(set))
		if err != nil {
			t.Fatal(err)
		}
		y, _ := ds.BinaryY()
		var bm model.BinaryModel
		if id == "gpc" {
			bm, err = fitGPC(context.Background(), ds, y, v, model.Options{Seed: 1})
		} else {
			bm, err = fitGPCPlus(context.Background(), ds, y, v, model.Options{Seed: 1})
		}
		if err != nil {
			t.Fatal(err)
		}
		return bm.(latentGrid)
	}
	cases := []struct {
		name    string
		m       latentGrid
		lowRank bool // the default-size regular grid takes the low-rank path
	}{
		{"gpc default", fitWith("gpc", moons, nil), true},
		{"gpc ard", fitWith("gpc", small, map[string]string{"ard": "true"}), true},
		{"gpc short lengthscale", fitWith("gpc", moons, map[string]string{"optimize": "false", "lengthscale": "0.08"}), false},
		{"gpcplus default", fitWith("gpcplus", lupi, nil), true},
	}
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var g *GPC
			switch m := c.m.(type) {
			case *GPC:
				g = m
			case *GPCPlus:
				if err := m.prepare(); err != nil {
					t.Fatal(err)
				}
				g = m.f
			}
			theta := math.Exp(g.Kernel.LogAmp)
			for _, random := range []bool{false, true} {
				xs, ys := gridAxes(r, 150, 150, random)
				if random {
					xs, ys = xs[:61], ys[:47]
				}
				mean, vr, ok, err := c.m.LatentOnGrid(xs, ys, true, func() {})
				if err != nil || !ok {
					t.Fatalf("no grid: %v", err)
				}
				pts := &data.Dataset{X: gridPoints(xs, ys)}
				wantM, wantV, err := g.latent(pts.X)
				if err != nil {
					t.Fatal(err)
				}
				wantP, err := c.m.Probability(pts)
				if err != nil {
					t.Fatal(err)
				}
				p := c.m.ProbabilityOf(mean, vr)
				scale := 0.0
				for _, v := range wantM {
					scale = math.Max(scale, math.Abs(v))
				}
				var dm, dv, dp float64
				for i := range wantM {
					dm = math.Max(dm, math.Abs(mean[i]-wantM[i]))
					dv = math.Max(dv, math.Abs(vr[i]-wantV[i]))
					dp = math.Max(dp, math.Abs(p[i]-wantP[i]))
				}
				t.Logf("random axes %v: mean Δ %.2g (scale %.3g), variance Δ %.2g (θ %.3g), probability Δ %.2g", random, dm, scale, dv, theta, dp)
				// The probability's bound follows from the variance's (see
				// gridVarTol): GPC's moves by ≤ 0.121·1e-10·θ; GPC+'s by that
				// over minₖ(v + e^{gₖ}), which at these fits is not small.
				if dm > 1e-9*scale || dv > 1e-9*theta || dp > math.Max(1e-9, 0.121e-10*theta) {
					t.Errorf("random axes %v: mean Δ %.3g, variance Δ %.3g, probability Δ %.3g", random, dm, dv, dp)
				}
			}
			// Which path the default-size grid takes.
			xs, ys := gridAxes(r, 200, 200, false)
			n, _ := g.x.Dims()
			a := factorRows(xs, g.x, 0, g.Kernel.invLen2(2)[0])
			b := factorRows(ys, g.x, 1, g.Kernel.invLen2(2)[1])
			_, low := g.varianceLowRank(xs, ys, a, b, theta, nil)
			if low != c.lowRank {
				t.Errorf("low-rank path taken: %v, expected %v (n = %d)", low, c.lowRank, n)
			}
			if !low {
				return
			}
			// The direct path agrees with the low-rank one too.
			v1, _ := g.varianceLowRank(xs, ys, a, b, theta, nil)
			v2 := g.varianceDirect(xs, ys, a, b, theta, nil)
			worst := 0.0
			for i := range v1 {
				worst = math.Max(worst, math.Abs(v1[i]-v2[i]))
			}
			if worst > 1e-9*theta {
				t.Errorf("low-rank vs direct variance: %.3g", worst)
			}
		})
	}
}

// Models trained on more than two features have no grid form.
func TestLatentOnGridDeclinesWide(t *testing.T) {
	ds, _ := data.GenerateByName("moons", 60, 0.15, 1)
	var wide mat.Dense
	wide.Augment(ds.X, ds.X)
	ds.X = &wide
	y, _ := ds.BinaryY()
	bm, err := fitGPC(context.Background(), ds, y, gpcValues(t, map[string]string{"optimize": "false"}), model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := bm.(*GPC).LatentOnGrid([]float64{0, 1}, []float64{0, 1}, true, nil); ok || err != nil {
		t.Errorf("four features: ok %v, err %v", ok, err)
	}
}
