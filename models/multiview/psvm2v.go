package multiview

import (
	"context"
	"time"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/spec"
)

// PSVM-2V (Tang, Tian, Zhang & Liu, "Multiview privileged support vector
// machines", IEEE TNNLS 29(8):3463–3477, 2018), kernel version, as restated
// in paper 001 eq (6):
//
//	min ½(‖w_A‖² + γ‖w_B‖²) + C_A Σξ_i^A + C_B Σξ_i^B + C Σ η_i
//	s.t. |⟨w_A,φ̃_A(x_i)⟩ − ⟨w_B,φ̃_B(x_i)⟩| ≤ ε + η_i        (β_i^+, β_i^−)
//	     y_i⟨w_A,φ̃_A(x_i)⟩ ≥ 1 − ξ_i^A                        (α_i^A)
//	     y_i⟨w_B,φ̃_B(x_i)⟩ ≥ 1 − ξ_i^B                        (α_i^B)
//	     ξ_i^A ≥ y_i⟨w_B,φ̃_B(x_i)⟩                            (λ_i^A: view B corrects view A)
//	     ξ_i^B ≥ y_i⟨w_A,φ̃_A(x_i)⟩                            (λ_i^B)
//	     η, ξ^A, ξ^B ≥ 0,
//
// on augmented samples φ̃(x) = (φ(x); 1) (kernel K + 1, see augmented).
// Setting the gradient of the Lagrangian to zero (our derivation; it agrees
// with the dual the authors solve) gives
//
//	w_A = Σ g_i^A φ̃_A(x_i),  g^A = (α^A − λ^B)∘y − β
//	w_B = (1/γ) Σ g_i^B φ̃_B(x_i),  g^B = (α^B − λ^A)∘y + β,   β = β⁺ − β⁻,
//
// and the dual QP (6l variables in the paper's count)
//
//	min ½ g^Aᵀ K̃_A g^A + (1/2γ) g^Bᵀ K̃_B g^B − 1ᵀ(α^A + α^B) + ε1ᵀ(β⁺ + β⁻)
//	s.t. α^A + λ^A ≤ C_A,  α^B + λ^B ≤ C_B,  β⁺ + β⁻ ≤ C,  all multipliers ≥ 0.
//
// Choices: the consistency penalty (the paper's C) is the parameter "D" here
// (the name "C" is C_A, as in every LUPI Lab model); the trade-off γ is
// "tradeoff"; ε defaults to 0, where β⁺, β⁻ merge into β ∈ [−C, C] (5n
// variables; the authors' code fixes ε = 0.001).

func psvm2vParams() []model.Param { return spec.MustLookup("psvm2v").Params }

func init() {
	fit, load := model.WrapBinary("psvm2v", fitPSVM2V, loadSVMLike("psvm2v"))
	model.Register("psvm2v", fit, load)
}

// privCommon holds the parameters and Gram matrices shared by PSVM-2V and MCPK.
type privCommon struct {
	views
	ca, cb, dd, tau float64
	KA, KB          *mat.SymDense // augmented: K + 1
}

func readPriv(train *data.Dataset, y []float64, v model.Values) (*privCommon, error) {
	p := &privCommon{}
	// D is PSVM-2V's agreement penalty and MCPK's coupling weight.
	dd := "agreement"
	if _, ok := v["coupling"]; ok {
		dd = "coupling"
	}
	var err error
	p.views, err = readViews(train, y, v, penalty{"C_A", &p.ca, false}, penalty{"C_B", &p.cb, false}, penalty{dd, &p.dd, false}, penalty{"view_weight", &p.tau, false})
	if err != nil {
		return nil, err
	}
	p.KA, p.KB = augmented(p.ka.Gram(p.xa)), augmented(p.kb.Gram(p.xb))
	return p, nil
}

// privSelectors returns S_A, S_B with g^A = S_A π, g^B = S_B π for the blocks
// α^A [0,n), α^B [n,2n), λ^A [2n,3n), λ^B [3n,4n) of π (length nv).
func privSelectors(y []float64, nv int) (SA, SB *mat.Dense) {
	n := len(y)
	SA, SB = mat.NewDense(n, nv, nil), mat.NewDense(n, nv, nil)
	selector(SA, 0, y, n, 1)
	selector(SA, 3*n, y, n, -1)
	selector(SB, n, y, n, 1)
	selector(SB, 2*n, y, n, -1)
	return SA, SB
}

// privModel turns g^A, g^B into the fitted expansions: f_A = K̃_A g^A and
// f_B = (1/γ) K̃_B g^B (the +1 of the augmented kernel is the bias Σ g).
func (p *privCommon) privModel(id string, train *data.Dataset, gA, gB []float64) *svmLike {
	sa, sb := 0.0, 0.0
	cb := make([]float64, len(gB))
	for i := range gA {
		sa += gA[i]
		cb[i] = gB[i] / p.tau
		sb += cb[i]
	}
	return &svmLike{twoViews[*expansion]{Model: id, Rule: p.rule, DimA: train.Dim(), DimB: train.ZDim(),
		A: newExpansion(p.ka, p.xa, gA, sa), B: newExpansion(p.kb, p.xb, cb, sb)}}
}

func fitPSVM2V(ctx context.Context, train *data.Dataset, y []float64, v model.Values, opt model.Options) (model.BinaryModel, error) {
	start := time.Now()
	v = withDefaults(psvm2vParams(), v)
	p, err := readPriv(train, y, v)
	if err != nil {
		return nil, err
	}
	eps, err := nonNegative(v, "epsilon")
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := len(y)
	split := eps > 0
	nv := 5 * n
	if split {
		nv = 6 * n
	}
	SA, SB := privSelectors(y, nv)
	selector(SA, 4*n, nil, n, -1)
	selector(SB, 4*n, nil, n, 1)
	b := newQP(nv)
	b.bounds(0, n, 0, p.ca)
	b.bounds(n, n, 0, p.cb)
	b.bounds(2*n, n, 0, p.ca)
	b.bounds(3*n, n, 0, p.cb)
	b.linear(0, 2*n, -1)
	for i := 0; i < n; i++ {
		b.ineq([]int{i, 2*n + i}, []float64{1, 1}, p.ca)
		b.ineq([]int{n + i, 3*n + i}, []float64{1, 1}, p.cb)
	}
	if split {
		selector(SA, 5*n, nil, n, 1)
		selector(SB, 5*n, nil, n, -1)
		b.bounds(4*n, 2*n, 0, p.dd)
		b.linear(4*n, 2*n, eps)
		for i := 0; i < n; i++ {
			b.ineq([]int{4*n + i, 5*n + i}, []float64{1, 1}, p.dd)
		}
	} else {
		b.bounds(4*n, n, -p.dd, p.dd)
	}
	b.addQuad(SA, p.KA, 1)
	b.addQuad(SB, p.KB, 1/p.tau)
	opt.Report(model.Progress{Fraction: -1, Stage: "PSVM-2V: dual assembled"})
	res, err := solveQP(ctx, b.problem(), opt, "PSVM-2V dual", 0)
	if err != nil {
		return nil, err
	}
	pi := mat.NewVecDense(nv, res.X)
	var gA, gB mat.VecDense
	gA.MulVec(SA, pi)
	gB.MulVec(SB, pi)
	m := p.privModel("psvm2v", train, gA.RawVector().Data, gB.RawVector().Data)
	rep := &model.Report{Model: "psvm2v", Params: v.Clone(), NTrain: n, Converged: true}
	if r, w := data.LUPIViewRule(train, m.Rule); w != "" {
		m.Rule = r
		rep.Warnings = append(rep.Warnings, w)
	}
	finishReport(rep, res)
	beta := make([]float64, n)
	for i := range beta {
		beta[i] = res.X[4*n+i]
		if split {
			beta[i] -= res.X[5*n+i]
		}
	}
	rep.Diagnostics = map[string][]float64{
		"alpha_a": clone(res.X[:n]), "alpha_b": clone(res.X[n : 2*n]),
		"lambda_a": clone(res.X[2*n : 3*n]), "lambda_b": clone(res.X[3*n : 4*n]), "beta": beta}
	rep.Support = supportOf(gA.RawVector().Data, gB.RawVector().Data)
	rep.NSupport = len(rep.Support)
	rep.TrainSeconds = time.Since(start).Seconds()
	m.Rep = rep
	return m, nil
}
