package spec

import "strings"

// Kernel kinds, as the kernel package names them (its tests check they agree).
const (
	KernelLinear  = "linear"
	KernelRBF     = "rbf"
	KernelPoly    = "poly"
	KernelSigmoid = "sigmoid"
)

// KernelParams returns the kernel hyper-parameters with the given name
// prefix ("" for the kernel on X, "z" for the kernel on Z) and default kind.
// label is the UI label of the kind selector, e.g. "Kernel" or "Privileged
// kernel".
func KernelParams(prefix, label, def string) []Param {
	kn := prefix + "kernel"
	show := func(kinds ...string) map[string][]string { return map[string][]string{kn: kinds} }
	// the second block's kernel names its parameters by its own label
	// ("Privileged kernel γ"), so a notice or an error cannot be read as
	// being about the main kernel
	named := func(s string) string {
		if prefix == "" {
			return s
		}
		return label + " " + strings.ToLower(s)
	}
	return []Param{
		{Name: kn, Label: label, Kind: Choice, Default: def,
			Choices: []string{KernelLinear, KernelRBF, KernelPoly, KernelSigmoid},
			Help:    "Kernel function: linear ⟨x,x'⟩, RBF exp(−γ‖x−x'‖²), polynomial (γ⟨x,x'⟩+coef0)^degree or sigmoid tanh(γ⟨x,x'⟩+coef0)."},
		{Name: prefix + "gamma", Label: named("γ"), Kind: Float, Default: "1", Min: 1e-5, Max: 1e5, Log: true,
			Help: "Kernel width γ (RBF: exp(−γ‖x−x'‖²); larger means more local).", ShowIf: show(KernelRBF, KernelPoly, KernelSigmoid)},
		{Name: prefix + "degree", Label: named("Degree"), Kind: Int, Default: "3", Min: 1, Max: 10,
			Help: "Degree of the polynomial kernel.", ShowIf: show(KernelPoly)},
		{Name: prefix + "coef0", Label: named("coef0"), Kind: Float, Default: "0", Min: -100, Max: 100,
			Help: "Constant term of the polynomial and sigmoid kernels.", ShowIf: show(KernelPoly, KernelSigmoid)},
	}
}

// StrategyParam is the parameter that picks the multi-class strategy of a
// binary model; add it to a spec's Params for models that support both.
func StrategyParam() Param {
	return Param{Name: "multiclass", Advanced: true, Label: "Multi-class", Kind: Choice, Default: "ovr",
		Choices: []string{"ovr", "ovo"},
		Help:    "How more than two classes are handled: one-vs-rest (one model per class) or one-vs-one (one per pair, majority vote)."}
}

// strategies are the multi-class strategies of the binary models.
var strategies = []string{"ovr", "ovo"}

func concat(groups ...[]Param) []Param {
	var out []Param
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}
