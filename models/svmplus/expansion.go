package svmplus

import "lupilab/models/kernel"

// Expansion implements kernel.Expander: the decision of either SVM+ is the
// kernel expansion f(x) = Σ αᵢyᵢK(xᵢ,x) + b on the main features (paper 000
// §3); the privileged space shaped only the coefficients.
func (m *binModel) Expansion() *kernel.Expansion {
	if m.sv == nil {
		return nil
	}
	return &kernel.Expansion{Kernel: m.Kernel, SV: m.sv, Coef: m.Coef, Bias: m.B}
}
