package twin

import (
	"context"
	"math"
	"math/rand"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"
)

func binaryDS(x *mat.Dense, y []float64) *data.Dataset {
	lab := make([]int, len(y))
	for i, v := range y {
		if v > 0 {
			lab[i] = 1
		}
	}
	return &data.Dataset{Name: "toy", X: x, Y: lab, Classes: []string{"neg", "pos"}}
}

func values(t testing.TB, id string, kv ...string) model.Values {
	t.Helper()
	s, err := model.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	v := model.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v[kv[i]] = kv[i+1]
	}
	out, err := s.Resolve(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Positives on the line y = 1, negatives on y = −1: each class can be fitted
// exactly by a plane (zero residual), so the plane of the +1 class is the
// smallest-norm u = (ω, b) with Hu = 0 and −(u·x⁻) ≥ 1: u = (0, ½, −½), i.e.
// the line y = 1 (and symmetrically u = (0, ½, ½) for y = −1), for any ridge ε
// and any C ≥ Σα (= ε/2 here).
func TestTWSVMSeparableToyPlanes(t *testing.T) {
	x := mat.NewDense(6, 2, []float64{-1, 1, 0, 1, 1, 1, -1, -1, 0, -1, 1, -1})
	y := []float64{1, 1, 1, -1, -1, -1}
	for _, eps := range []string{"1e-8", "1e-4", "0.1"} {
		m, err := fitTwin(context.Background(), binaryDS(x, y), y, values(t, "twsvm", "eps", eps, "C", "1"), model.Options{}, false)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]float64{"pos": {0, 0.5, -0.5}, "neg": {0, 0.5, 0.5}}
		for name, p := range map[string]plane{"pos": m.Pos, "neg": m.Neg} {
			got := append(append([]float64{}, p.W...), p.B)
			for j := range got {
				if math.Abs(got[j]-want[name][j]) > 1e-7 {
					t.Errorf("eps %s: plane %s = %v, want %v", eps, name, got, want[name])
					break
				}
			}
		}
		dec, err := m.Decision(binaryDS(mat.NewDense(3, 2, []float64{0, 0.5, 5, -0.5, 0, 0}), []float64{1, 1, 1}))
		if err != nil {
			t.Fatal(err)
		}
		// distances to y=1 and y=−1: (0.5, 1.5), (1.5, 0.5), (1, 1).
		for i, w := range []float64{1, -1, 0} {
			if math.Abs(dec[i]-w) > 1e-7 {
				t.Errorf("eps %s: decision[%d] = %v, want %v", eps, i, dec[i], w)
			}
		}
	}
}

func gaussTwo(rng *rand.Rand, n, d int, shift float64) (*mat.Dense, []float64) {
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		s := -1.0
		if i%2 == 0 {
			s = 1
		}
		y[i] = s
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64()+s*shift*float64(1+j%2))
		}
	}
	return x, y
}

func TestTWSVMKernelConverges(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	x, y := gaussTwo(rng, 200, 2, 0.7)
	for _, id := range []string{"twsvm", "wltsvm"} {
		m, err := fitTwin(context.Background(), binaryDS(x, y), y, values(t, id, "kernel", "rbf", "gamma", "0.5"), model.Options{}, id == "wltsvm")
		if err != nil {
			t.Fatal(err)
		}
		r := m.Report()
		t.Logf("%s: iter %d converged %v viol %g extras %v", id, r.Iterations, r.Converged, r.Extras["kkt_violation"], r.Extras["dropped_fraction"])
		dec, _ := m.Decision(binaryDS(x, y))
		acc := 0
		for i, d := range dec {
			if d*y[i] > 0 {
				acc++
			}
		}
		t.Logf("train acc %d/%d", acc, len(y))
	}
}
