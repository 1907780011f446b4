package multiview

import (
	"context"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/spec"
)

// SVM-2K (Farquhar, Hardoon, Meng, Shawe-Taylor & Szedmak, "Two view
// learning: SVM-2K, theory and practice", NIPS 2005), kernel version.
//
// Primal (the paper's eq. for SVM-2K, section 2):
//
//	min ½‖w_A‖² + ½‖w_B‖² + C_A Σξ_i^A + C_B Σξ_i^B + D Σ η_i
//	s.t. |⟨w_A,φ_A(x_i)⟩ + b_A − ⟨w_B,φ_B(x_i)⟩ − b_B| ≤ η_i + ε   (β_i^+, β_i^−)
//	     y_i(⟨w_A,φ_A(x_i)⟩ + b_A) ≥ 1 − ξ_i^A                      (α_i^A)
//	     y_i(⟨w_B,φ_B(x_i)⟩ + b_B) ≥ 1 − ξ_i^B                      (α_i^B)
//	     ξ^A, ξ^B, η ≥ 0.
//
// Dual (the paper's dual, section 2, written as a minimisation), with
// β = β⁺ − β⁻, g^A = α^A∘y − β and g^B = α^B∘y + β:
//
//	min ½ g^Aᵀ K_A g^A + ½ g^Bᵀ K_B g^B − 1ᵀ(α^A + α^B) + ε 1ᵀ(β⁺ + β⁻)
//	s.t. Σ g_i^A = 0,  Σ g_i^B = 0,  0 ≤ α^A ≤ C_A,  0 ≤ α^B ≤ C_B,
//	     β⁺, β⁻ ≥ 0,  β⁺ + β⁻ ≤ D,
//
// and f_A(x) = Σ g_i^A K_A(x_i, x) + b_A, f_B(x) = Σ g_i^B K_B(x_i, x) + b_B.
// The paper's classifier is sign(½(f_A + f_B)); paper 001 also uses the
// single-view rules. Choices made here:
//   - With ε = 0 (the default; paper 001 does not tune ε) β⁺ and β⁻ are
//     merged into one variable β ∈ [−D, D], a QP of 3n instead of 4n
//     variables; ε > 0 uses the split form.
//   - The offsets b_A, b_B are the multipliers of the two equality
//     constraints returned by the interior-point solver (at a KKT point they
//     equal the primal offsets exactly), not averages over free α.

// svm2kParams returns the hyper-parameters of SVM-2K.
func svm2kParams() []model.Param { return spec.MustLookup("svm2k").Params }

func init() {
	fit, load := model.WrapBinary("svm2k", fitSVM2K, loadSVMLike("svm2k"))
	model.Register("svm2k", fit, load)
}

func fitSVM2K(ctx context.Context, train *data.Dataset, y []float64, v model.Values, opt model.Options) (model.BinaryModel, error) {
	start := time.Now()
	v = withDefaults(svm2kParams(), v)
	var ca, cb, dd, eps float64
	w, err := readViews(train, y, v, penalty{"C_A", &ca, false}, penalty{"C_B", &cb, false}, penalty{"agreement", &dd, false}, penalty{"epsilon", &eps, true})
	if err != nil {
		return nil, err
	}
	xa, xb, rule, ka, kb := w.xa, w.xb, w.rule, w.ka, w.kb
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := len(y)
	KA, KB := ka.Gram(xa), kb.Gram(xb)
	opt.Report(model.Progress{Fraction: -1, Stage: "SVM-2K: kernel matrices"})
	split := eps > 0
	nv := 3 * n
	if split {
		nv = 4 * n
	}
	// Blocks: α^A [0,n), α^B [n,2n), β or β⁺ [2n,3n), β⁻ [3n,4n).
	SA, SB := mat.NewDense(n, nv, nil), mat.NewDense(n, nv, nil)
	selector(SA, 0, y, n, 1)
	selector(SA, 2*n, nil, n, -1)
	selector(SB, n, y, n, 1)
	selector(SB, 2*n, nil, n, 1)
	b := newQP(nv)
	b.bounds(0, n, 0, ca)
	b.bounds(n, n, 0, cb)
	b.linear(0, 2*n, -1)
	if split {
		selector(SA, 3*n, nil, n, 1)
		selector(SB, 3*n, nil, n, -1)
		b.bounds(2*n, 2*n, 0, dd)
		b.linear(2*n, 2*n, eps)
		for i := 0; i < n; i++ {
			b.ineq([]int{2*n + i, 3*n + i}, []float64{1, 1}, dd)
		}
	} else {
		b.bounds(2*n, n, -dd, dd)
	}
	b.addQuad(SA, KA, 1)
	b.addQuad(SB, KB, 1)
	opt.Report(model.Progress{Fraction: -1, Stage: "SVM-2K: dual assembled"})
	rowA, rowB := make([]float64, nv), make([]float64, nv)
	for j := 0; j < nv; j++ {
		for i := 0; i < n; i++ {
			rowA[j] += SA.At(i, j)
			rowB[j] += SB.At(i, j)
		}
	}
	b.eq(rowA, 0)
	b.eq(rowB, 0)
	res, err := solveQP(ctx, b.problem(), opt, "SVM-2K dual", 0)
	if err != nil {
		return nil, err
	}
	pi := mat.NewVecDense(nv, res.X)
	var gA, gB mat.VecDense
	gA.MulVec(SA, pi)
	gB.MulVec(SB, pi)
	// Stationarity of the dual, (Pπ + q + Eᵀy)_i = 0 for a free α_i^A, reads
	// y_i(Σ_j g_j^A K_A(x_j,x_i) + y_A) = 1: the multiplier y_A is b_A.
	bA, bB := res.Y[0], res.Y[1]
	m := &svmLike{twoViews[*expansion]{Model: "svm2k", Rule: rule, DimA: train.Dim(), DimB: train.ZDim(),
		A: newExpansion(ka, xa, gA.RawVector().Data, bA),
		B: newExpansion(kb, xb, gB.RawVector().Data, bB)}}
	rep := &model.Report{Model: "svm2k", Params: v.Clone(), NTrain: n, Converged: true}
	if r, w := data.LUPIViewRule(train, m.Rule); w != "" {
		m.Rule = r
		rep.Warnings = append(rep.Warnings, w)
	}
	finishReport(rep, res)
	alphaA, alphaB, beta := res.X[:n], res.X[n:2*n], make([]float64, n)
	for i := 0; i < n; i++ {
		beta[i] = res.X[2*n+i]
		if split {
			beta[i] -= res.X[3*n+i]
		}
	}
	rep.Support = supportOf(alphaA, alphaB, beta)
	rep.NSupport = len(rep.Support)
	rep.Diagnostics = map[string][]float64{"alpha_a": clone(alphaA), "alpha_b": clone(alphaB), "beta": beta}
	rep.Extras = map[string]float64{"b_a": bA, "b_b": bB}
	rep.TrainSeconds = time.Since(start).Seconds()
	m.Rep = rep
	return m, nil
}

// supportOf lists the rows where any of the given multiplier vectors is
// non-negligible (> 1e-8 of the largest magnitude).
func supportOf(vs ...[]float64) []int {
	mx := 0.0
	for _, v := range vs {
		for _, x := range v {
			mx = math.Max(mx, math.Abs(x))
		}
	}
	var out []int
	if mx == 0 {
		return out
	}
	for i := range vs[0] {
		for _, v := range vs {
			if math.Abs(v[i]) > 1e-8*mx {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

func clone(x []float64) []float64 { return append([]float64(nil), x...) }
