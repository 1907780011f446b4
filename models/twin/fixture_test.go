package twin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/model"
)

// WLTSVM (linear) against testdata/wltsvm_ref.json: k-NN graphs by
// scikit-learn and the primal QPs (4)-(5) solved by cvxopt
// (testdata/make_fixtures.py) — an independent graph code, formulation
// (primal, not dual) and solver.
func TestWLTSVMAgainstCvxopt(t *testing.T) {
	raw, err := os.ReadFile("testdata/wltsvm_ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		X     [][]float64
		Y     []float64
		Cases []struct {
			K        int
			C, Eps   float64
			Pos, Neg []float64
			Dropped  []float64
		}
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	n, d := len(ref.X), len(ref.X[0])
	x := mat.NewDense(n, d, nil)
	for i, r := range ref.X {
		x.SetRow(i, r)
	}
	ds := binaryDS(x, ref.Y)
	for _, c := range ref.Cases {
		v := values(t, "wltsvm", "k", fmt.Sprint(c.K), "C", fmt.Sprint(c.C), "eps", fmt.Sprint(c.Eps))
		m, err := fitTwin(context.Background(), ds, ref.Y, v, model.Options{}, true)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("k=%d C=%v", c.K, c.C)
		closeVec(t, name+" dropped", m.Rep.Diagnostics["dropped"], c.Dropped, 0)
		closeVec(t, name+" +1 plane", planeVec(m.Pos), c.Pos, 1e-6)
		closeVec(t, name+" −1 plane", planeVec(m.Neg), c.Neg, 1e-6)
	}
}
