package twin

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/model"
)

// kern is a small private kernel used until models/kernel is wired in: the
// same parameter names and conventions (RBF exp(−γ‖x−x'‖²), LIBSVM poly and
// sigmoid).
type kern struct {
	Kind   string  `json:"kind"`
	Gamma  float64 `json:"gamma,omitempty"`
	Coef0  float64 `json:"coef0,omitempty"`
	Degree int     `json:"degree,omitempty"`
}

func kernelParams(def string) []model.Param {
	show := func(k ...string) map[string][]string { return map[string][]string{"kernel": k} }
	return []model.Param{
		{Name: "kernel", Label: "Kernel", Kind: model.Choice, Default: def, Choices: []string{"linear", "rbf", "poly", "sigmoid"},
			Help: "linear: planes in input space; otherwise kernel-generated surfaces K(x,C)ω + b = 0 (paper 001 eqs 36-39)."},
		{Name: "gamma", Label: "γ (kernel width)", Kind: model.Float, Default: "1", Min: 1e-6, Max: 1e6, Log: true,
			Help: "RBF exp(−γ‖x−x'‖²) (σ-parameterised papers: γ = 1/σ²); also scales poly and sigmoid.", ShowIf: show("rbf", "poly", "sigmoid")},
		{Name: "degree", Label: "Degree", Kind: model.Int, Default: "3", Min: 1, Max: 10, Help: "Polynomial degree.", ShowIf: show("poly")},
		{Name: "coef0", Label: "coef0", Kind: model.Float, Default: "0", Min: -1e3, Max: 1e3, Help: "Offset of poly / sigmoid kernels.", ShowIf: show("poly", "sigmoid")},
	}
}

func kernFromValues(v model.Values) (kern, error) {
	k := kern{Kind: v.String("kernel"), Gamma: v.Float("gamma"), Coef0: v.Float("coef0"), Degree: v.Int("degree")}
	switch k.Kind {
	case "linear":
	case "rbf", "poly", "sigmoid":
		if !(k.Gamma > 0) {
			return k, fmt.Errorf("kernel gamma must be > 0, got %v", k.Gamma)
		}
		if k.Kind == "poly" && k.Degree < 1 {
			return k, fmt.Errorf("polynomial degree must be ≥ 1, got %d", k.Degree)
		}
	default:
		return k, fmt.Errorf("unknown kernel %q", k.Kind)
	}
	return k, nil
}

func (k kern) linear() bool { return k.Kind == "linear" }

// cross returns K(A, B) (rows(A)×rows(B)).
func (k kern) cross(a, b *mat.Dense) *mat.Dense {
	ra, _ := a.Dims()
	rb, _ := b.Dims()
	out := mat.NewDense(ra, rb, nil)
	out.Mul(a, b.T())
	if k.Kind == "rbf" {
		na, nb := rowNorms(a), rowNorms(b)
		for i := 0; i < ra; i++ {
			row := out.RawRowView(i)
			for j := range row {
				d := na[i] + nb[j] - 2*row[j]
				if d < 0 {
					d = 0
				}
				row[j] = math.Exp(-k.Gamma * d)
			}
		}
		return out
	}
	for i := 0; i < ra; i++ {
		row := out.RawRowView(i)
		for j, v := range row {
			switch k.Kind {
			case "poly":
				row[j] = math.Pow(k.Gamma*v+k.Coef0, float64(k.Degree))
			case "sigmoid":
				row[j] = math.Tanh(k.Gamma*v + k.Coef0)
			}
		}
	}
	return out
}

func rowNorms(a *mat.Dense) []float64 {
	r, _ := a.Dims()
	out := make([]float64, r)
	for i := range out {
		row := a.RawRowView(i)
		s := 0.0
		for _, v := range row {
			s += v * v
		}
		out[i] = s
	}
	return out
}
