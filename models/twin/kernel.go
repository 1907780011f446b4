package twin

import (
	"errors"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/kernel"
	"lupilab/models/model"
)

func kernFromValues(v model.Values) (kernel.Kernel, error) {
	k, err := kernel.FromValues(v, "")
	if err == nil && k.Kind == kernel.Precomputed {
		err = errors.New("twin SVMs need a kernel function (linear, rbf, poly or sigmoid), not a precomputed matrix")
	}
	return k, err
}

func isLinear(k kernel.Kernel) bool { return k.Kind == kernel.Linear || k.Kind == "" }

// cross returns K(A, B) (rows(A)×rows(B)). It is kernel.Kernel.Cross with
// the inner products taken from one matrix product (BLAS gemm), which is
// several times faster for the wide views of paper 001 (up to 2000 columns).
func cross(k kernel.Kernel, a, b *mat.Dense) *mat.Dense {
	ra, _ := a.Dims()
	var out mat.Dense
	out.Mul(a, b.T())
	if isLinear(k) {
		return &out
	}
	na, nb := rowNorms(a), rowNorms(b)
	for i := 0; i < ra; i++ {
		row := out.RawRowView(i)
		for j, dot := range row {
			row[j] = k.FromDot(dot, na[i], nb[j])
		}
	}
	return &out
}

func rowNorms(a *mat.Dense) []float64 {
	r, _ := a.Dims()
	out := make([]float64, r)
	for i := range out {
		s := 0.0
		for _, v := range a.RawRowView(i) {
			s += v * v
		}
		out[i] = s
	}
	return out
}
