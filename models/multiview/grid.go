package multiview

import (
	"errors"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/kernel"
)

// kernelExpansion returns the view's f(x) = Σⱼ Coefⱼ K(xⱼ, x) + Bias as a
// kernel.Expansion over dim inputs (nil for a saved expansion whose rows do
// not load).
func (e *expansion) kernelExpansion(dim int) *kernel.Expansion {
	if e == nil {
		return nil
	}
	if len(e.Coef) > 0 && e.x == nil {
		xs, err := e.X.Dense()
		if err != nil || xs == nil {
			return nil
		}
		if r, _ := xs.Dims(); r != len(e.Coef) {
			return nil
		}
		e.x = xs
	}
	if e.x == nil { // no support vector: the constant Bias
		return &kernel.Expansion{Kernel: kernel.Kernel{Kind: kernel.Linear}, Coef: []float64{0}, SV: mat.NewDense(1, dim, nil), Bias: e.Bias}
	}
	return &kernel.Expansion{Kernel: e.Kernel, SV: e.x, Coef: e.Coef, Bias: e.Bias}
}

// ViewExpansions returns the decision functions of view A (over view A's
// inputs) and view B (over view B's) as kernel expansions; the model's
// decision combines them by DecisionRule.
func (m *svmLike) ViewExpansions() (a, b *kernel.Expansion) {
	if m.DimA < 1 || m.DimB < 1 {
		return nil, nil
	}
	return m.A.kernelExpansion(m.DimA), m.B.kernelExpansion(m.DimB)
}

// expansions returns one view's twin surfaces' signed distances
// (K(x, C)·Coef + Bias)/Norm as kernel expansions over the view's inputs.
func (t *twinView) expansions() (pos, neg *kernel.Expansion) {
	r, err := t.load()
	if err != nil {
		return nil, nil
	}
	scaled := func(p twinPlane) *kernel.Expansion {
		c := make([]float64, r)
		for i, v := range p.Coef {
			c[i] = v / p.Norm
		}
		return &kernel.Expansion{Kernel: t.Kernel, SV: t.x, Coef: c, Bias: p.Bias / p.Norm}
	}
	return scaled(t.Pos), scaled(t.Neg)
}

// PlaneExpansions returns MvTSVM's four surfaces' signed distances as
// kernel expansions, keyed "A+", "A-" (view A) and "B+", "B-" (view B);
// view t's decision is |t−| − |t+|. nil when the planes are malformed.
func (m *mvtsvmModel) PlaneExpansions() map[string]*kernel.Expansion {
	ap, an := m.A.expansions()
	bp, bn := m.B.expansions()
	if ap == nil || bp == nil {
		return nil
	}
	return map[string]*kernel.Expansion{"A+": ap, "A-": an, "B+": bp, "B-": bn}
}

// load restores the view's training rows and checks the planes against
// them; it returns the number of rows.
func (t *twinView) load() (int, error) {
	if t == nil {
		return 0, errors.New("multiview: missing twin view")
	}
	if t.x == nil {
		xs, err := t.X.Dense()
		if err != nil {
			return 0, err
		}
		if xs == nil {
			return 0, errors.New("multiview: twin view without its training rows")
		}
		t.x = xs
	}
	r, _ := t.x.Dims()
	if len(t.Pos.Coef) != r || len(t.Neg.Coef) != r || !(t.Pos.Norm > 0) || !(t.Neg.Norm > 0) {
		return 0, errors.New("multiview: malformed twin planes")
	}
	return r, nil
}

// signed returns the view's two surfaces' signed distances
// (K(x, C)·Coef + Bias)/Norm at the rows of X, point by point.
func (t *twinView) signed(X *mat.Dense) (pos, neg []float64, err error) {
	r, err := t.load()
	if err != nil {
		return nil, nil, err
	}
	K := t.Kernel.Cross(X, t.x)
	var p, q mat.VecDense
	p.MulVec(K, mat.NewVecDense(r, t.Pos.Coef))
	q.MulVec(K, mat.NewVecDense(r, t.Neg.Coef))
	n, _ := X.Dims()
	pos, neg = make([]float64, n), make([]float64, n)
	for i := range pos {
		pos[i] = (p.AtVec(i) + t.Pos.Bias) / t.Pos.Norm
		neg[i] = (q.AtVec(i) + t.Neg.Bias) / t.Neg.Norm
	}
	return pos, neg, nil
}

// PlaneValues implements twin.Planes for MvTSVM: the signed distances to
// the four surfaces, keyed "A+", "A-" (view A) and "B+", "B-" (view B); view
// t's decision is |t−| − |t+|. Without view B (rule A only) the map holds
// view A's two.
func (m *mvtsvmModel) PlaneValues(ds *data.Dataset) (map[string][]float64, error) {
	hasB, err := checkTest(ds, m.DimA, m.DimB, m.Rule)
	if err != nil {
		return nil, err
	}
	ap, an, err := m.A.signed(ds.X)
	if err != nil {
		return nil, err
	}
	if !hasB {
		return map[string][]float64{"A+": ap, "A-": an}, nil
	}
	bp, bn, err := m.B.signed(ds.Z)
	if err != nil {
		return nil, err
	}
	return map[string][]float64{"A+": ap, "A-": an, "B+": bp, "B-": bn}, nil
}
