package svm

import "lupilab/models/kernel"

// Expansion implements kernel.Expander: f(x) = Σⱼ Coef[j]·K(SV[j], x) − Rho
// (nil for a precomputed kernel, which has no function of x to expand).
func (m *Model) Expansion() *kernel.Expansion {
	if m.SV == nil || m.Kernel.Kind == kernel.Precomputed {
		return nil
	}
	return &kernel.Expansion{Kernel: m.Kernel, SV: m.SV, Coef: m.Coef, Bias: -m.Rho}
}
