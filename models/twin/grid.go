package twin

import (
	"gonum.org/v1/gonum/mat"

	"lupilab/models/kernel"
)

// expansion returns the plane's signed distance (ω·φ(x) + b)/‖ω‖ as a
// kernel expansion over the view's inputs: Σₜ (ωₜ/‖ω‖)·K(Cₜ, x) + b/‖ω‖
// for the kernel surfaces (φ(x) = K(x, Cᵗ), eqs (36)-(39)), and for the
// linear kernel the same with the unit vectors as "support vectors",
// Σₜ (ωₜ/‖ω‖)·xₜ + b/‖ω‖. nil when the plane has no such form.
func (p plane) expansion(f *features) *kernel.Expansion {
	nrm := p.norm()
	if f == nil || !(nrm > 0) {
		return nil
	}
	coef := make([]float64, len(p.W))
	for t, w := range p.W {
		coef[t] = w / nrm
	}
	e := &kernel.Expansion{Kernel: f.Kernel, Coef: coef, Bias: p.B / nrm}
	if isLinear(f.Kernel) {
		if len(coef) != f.Dim {
			return nil
		}
		id := mat.NewDense(f.Dim, f.Dim, nil)
		for t := 0; t < f.Dim; t++ {
			id.Set(t, t, 1)
		}
		e.Kernel, e.SV = kernel.Kernel{Kind: kernel.Linear}, id
		return e
	}
	if f.basis == nil {
		return nil
	}
	if r, _ := f.basis.Dims(); r != len(coef) {
		return nil
	}
	e.SV = f.basis
	return e
}

// PlaneExpansions returns each proximal surface's signed distance
// (PlaneValues) as a kernel expansion, keyed "pos" and "neg"; the decision
// is |neg| − |pos|. nil when a plane has no expansion.
func (m *twinModel) PlaneExpansions() map[string]*kernel.Expansion {
	pos, neg := m.Pos.expansion(m.Feat), m.Neg.expansion(m.Feat)
	if pos == nil || neg == nil {
		return nil
	}
	return map[string]*kernel.Expansion{"pos": pos, "neg": neg}
}

// PlaneExpansions returns the four surfaces' signed distances as kernel
// expansions, keyed "A+", "A-" (over view A) and "B+", "B-" (over view B);
// view t's decision is |t−| − |t+| (rules (33), (34)).
func (m *mpModel) PlaneExpansions() map[string]*kernel.Expansion {
	out := map[string]*kernel.Expansion{
		"A+": m.APos.expansion(m.FeatA), "A-": m.ANeg.expansion(m.FeatA),
		"B+": m.BPos.expansion(m.FeatB), "B-": m.BNeg.expansion(m.FeatB),
	}
	for _, e := range out {
		if e == nil {
			return nil
		}
	}
	return out
}

// DecisionRule returns the rule combining the views: "A", "B" or "both"
// (½(view A + view B), rule (35)).
func (m *mpModel) DecisionRule() string { return m.Rule }
