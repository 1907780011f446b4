package multiview

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/kernel"
	"lupilab/models/model"
	"lupilab/models/spec"
)

// MvTSVM (Xie & Sun, "Multi-view twin support vector machines", Intelligent
// Data Analysis 19(4):701–712, 2015), kernel version. With C_t the training
// rows of view t, E_t = [K_t(X_t⁺, C_t), 1] (positive rows) and
// F_t = [K_t(X_t⁻, C_t), 1] (negative rows), the positive-class planes
// u_A, u_B (coefficients and bias, length n+1) solve
//
//	min ½‖E_A u_A‖² + ½‖E_B u_B‖² + c₁1ᵀq_A + c₂1ᵀq_B + D 1ᵀη
//	s.t. |E_A u_A − E_B u_B| ≤ ε + η          (λ⁺, λ⁻: the views' projections of the
//	                                            positive samples must agree)
//	     −F_A u_A + q_A ≥ 1,  −F_B u_B + q_B ≥ 1,  q_A, q_B, η ≥ 0      (α_A, α_B)
//
// whose dual (Xie & Sun's Lagrangian derivation, written as a minimisation,
// λ = λ⁺ − λ⁻) is
//
//	min ½h_Aᵀ(E_AᵀE_A + rI)⁻¹h_A + ½h_Bᵀ(E_BᵀE_B + rI)⁻¹h_B − 1ᵀ(α_A + α_B) + ε1ᵀ(λ⁺ + λ⁻)
//	s.t. 0 ≤ α_A ≤ c₁, 0 ≤ α_B ≤ c₂, λ⁺, λ⁻ ≥ 0, λ⁺ + λ⁻ ≤ D,
//	h_A = F_Aᵀα_A + E_Aᵀλ,  h_B = F_Bᵀα_B − E_Bᵀλ,  u_A = −(E_AᵀE_A + rI)⁻¹h_A,  u_B = −(E_BᵀE_B + rI)⁻¹h_B.
//
// The negative-class planes v_A, v_B solve the same problem with the classes
// swapped (c₃, c₄, H), giving v_t = +(F_tᵀF_t + rI)⁻¹(E_tᵀα'_t ± F_tᵀλ').
// Per view a point goes to the class whose plane is nearer,
// |K(x,C)u + b|/‖u_ω‖ (‖u_ω‖ the norm of the kernel coefficients, as in
// kernel TWSVM and paper 001 eq 33); f_t(x) = dist_to_negative − dist_to_positive
// is > 0 for the positive class and the combined rule uses ½(f_A + f_B)
// (paper 001 eq 35 read as the mean distance).
//
// Choices: paper 001 ties c₁ = c₂ = c₃ = c₄ and D = H; here "C" is c₁ = c₂,
// "C2" is c₃ = c₄, "D" and "H" the two agreement penalties. The ridge r
// (param "ridge", default 1e-4) regularises the singular (n+1)×(n+1) matrices
// EᵀE and FᵀF as in every kernel TWSVM. ε = 0 (default) merges λ⁺, λ⁻ into
// λ ∈ [−D, D].

func mvtsvmParams() []model.Param { return spec.MustLookup("mvtsvm").Params }

func init() {
	fit, load := model.WrapBinary("mvtsvm", fitMvTSVM, loadMvTSVM)
	model.Register("mvtsvm", fit, load)
}

// twinPlane is one kernel-generated surface K(x, C)·Coef + Bias = 0.
type twinPlane struct {
	Coef []float64 `json:"coef"`
	Bias float64   `json:"bias"`
	Norm float64   `json:"norm"` // ‖Coef‖
}

// twinView holds one view's two planes over that view's training rows.
type twinView struct {
	Kernel kernel.Kernel `json:"kernel"`
	X      *model.Matrix `json:"x"`
	Pos    twinPlane     `json:"pos"`
	Neg    twinPlane     `json:"neg"`
	x      *mat.Dense
}

// decision is the view's f_t(x) = |dist to the negative plane| − |dist to
// the positive plane| at the rows of X (> 0 for the positive class).
func (t *twinView) decision(X *mat.Dense) ([]float64, error) {
	pos, neg, err := t.signed(X)
	if err != nil {
		return nil, err
	}
	for i := range pos {
		pos[i] = math.Abs(neg[i]) - math.Abs(pos[i])
	}
	return pos, nil
}

// mvtsvmModel is a fitted MvTSVM: two twin planes per view.
type mvtsvmModel struct {
	twoViews[*twinView]
}

// augRows returns [K(X[rows], C), 1].
func augRows(K *mat.SymDense, rows []int) *mat.Dense {
	n := K.SymmetricDim()
	out := mat.NewDense(len(rows), n+1, nil)
	for i, r := range rows {
		for j := 0; j < n; j++ {
			out.Set(i, j, K.At(r, j))
		}
		out.Set(i, n, 1)
	}
	return out
}

// twinProblem solves one of MvTSVM's two QPs: planes near the rows "own"
// (E_t) and at distance ≥ 1 from the rows "other" (F_t), sign = −1 for the
// positive-plane problem and +1 for the negative one. It returns the planes
// of view A and B (length n+1 each).
func twinProblem(ctx context.Context, opt model.Options, stage string, own, other [2]*mat.Dense,
	c, d, eps, ridge float64, sign float64, rep *model.Report) (planes [2][]float64, err error) {
	no, _ := own[0].Dims()
	nr, m := other[0].Dims()
	split := eps > 0
	nv := 2*nr + no
	if split {
		nv += no
	}
	// Blocks: α_A [0,nr), α_B [nr,2nr), λ or λ⁺ [2nr, 2nr+no), λ⁻ after.
	var S [2]*mat.Dense
	for t := 0; t < 2; t++ {
		S[t] = mat.NewDense(m, nv, nil)
		lam := 1.0
		if t == 1 {
			lam = -1
		}
		for j := 0; j < nr; j++ {
			for k := 0; k < m; k++ {
				S[t].Set(k, t*nr+j, other[t].At(j, k))
			}
		}
		for j := 0; j < no; j++ {
			for k := 0; k < m; k++ {
				S[t].Set(k, 2*nr+j, lam*own[t].At(j, k))
				if split {
					S[t].Set(k, 2*nr+no+j, -lam*own[t].At(j, k))
				}
			}
		}
	}
	b := newQP(nv)
	b.bounds(0, 2*nr, 0, c)
	b.linear(0, 2*nr, -1)
	if split {
		b.bounds(2*nr, 2*no, 0, d)
		b.linear(2*nr, 2*no, eps)
		for j := 0; j < no; j++ {
			b.ineq([]int{2*nr + j, 2*nr + no + j}, []float64{1, 1}, d)
		}
	} else {
		b.bounds(2*nr, no, -d, d)
	}
	var G [2]*mat.Cholesky
	for t := 0; t < 2; t++ {
		if err := ctx.Err(); err != nil {
			return planes, err
		}
		var oo mat.SymDense
		oo.SymOuterK(1, own[t].T())
		for k := 0; k < m; k++ {
			oo.SetSym(k, k, oo.At(k, k)+ridge)
		}
		G[t] = &mat.Cholesky{}
		if !G[t].Factorize(&oo) {
			return planes, fmt.Errorf("%s: EᵀE + rI is not positive definite; increase the ridge", stage)
		}
		opt.Report(model.Progress{Fraction: -1, Stage: stage + ": assembling the dual"})
		var T, M mat.Dense
		if err := G[t].SolveTo(&T, S[t]); err != nil {
			return planes, fmt.Errorf("%s: %w", stage, err)
		}
		M.Mul(S[t].T(), &T)
		for i := 0; i < nv; i++ {
			for j := i; j < nv; j++ {
				b.P.SetSym(i, j, b.P.At(i, j)+0.5*(M.At(i, j)+M.At(j, i)))
			}
		}
	}
	// The planes are (EᵀE + rI)⁻¹h: errors in the multipliers are magnified
	// by up to 1/r, so the dual is solved to a tighter tolerance than the
	// solver's default, then polished.
	res, err := solveQP(ctx, b.problem(), opt, stage, 1e-10)
	if err != nil {
		return planes, err
	}
	// Even at 1e-10 the planes keep ~δ/r of the multipliers' error δ (~1e-2
	// of their values at r = 1e-4 against an exact solution); the exact solve
	// on the interior point's active set removes it (kept only when certified
	// optimal, see polishBox).
	if res.Converged {
		if x, obj, ok := b.polishBox(res); ok {
			res.X, res.Obj = x, obj
		}
	}
	finishReport(rep, res)
	pi := mat.NewVecDense(nv, res.X)
	for t := 0; t < 2; t++ {
		var h, u mat.VecDense
		h.MulVec(S[t], pi)
		if err := G[t].SolveVecTo(&u, &h); err != nil {
			return planes, fmt.Errorf("%s: %w", stage, err)
		}
		u.ScaleVec(sign, &u)
		planes[t] = clone(u.RawVector().Data)
	}
	return planes, nil
}

func plane(u []float64) (twinPlane, error) {
	n := len(u) - 1
	p := twinPlane{Coef: clone(u[:n]), Bias: u[n], Norm: floats.Norm(u[:n], 2)}
	if !(p.Norm > 0) || math.IsInf(p.Norm, 0) {
		return p, errors.New("mvtsvm: a plane has zero (or non-finite) kernel coefficients; the problem is degenerate for these parameters")
	}
	return p, nil
}

func fitMvTSVM(ctx context.Context, train *data.Dataset, y []float64, v model.Values, opt model.Options) (model.BinaryModel, error) {
	start := time.Now()
	v = withDefaults(mvtsvmParams(), v)
	var c1, c2, dd, hh, ridge, eps float64
	w, err := readViews(train, y, v, penalty{"C_pos", &c1, false}, penalty{"C_neg", &c2, false}, penalty{"agreement_pos", &dd, false},
		penalty{"agreement_neg", &hh, false}, penalty{"ridge", &ridge, false}, penalty{"epsilon", &eps, true})
	if err != nil {
		return nil, err
	}
	xa, xb, rule, ka, kb := w.xa, w.xb, w.rule, w.ka, w.kb
	pos, neg := model.SplitClasses(y)
	KA, KB := ka.Gram(xa), kb.Gram(xb)
	opt.Report(model.Progress{Fraction: -1, Stage: "MvTSVM: kernel matrices"})
	E := [2]*mat.Dense{augRows(KA, pos), augRows(KB, pos)}
	F := [2]*mat.Dense{augRows(KA, neg), augRows(KB, neg)}
	rep := &model.Report{Model: "mvtsvm", Params: v.Clone(), NTrain: len(y), Converged: true}
	if r, w := data.LUPIViewRule(train, rule); w != "" {
		rule = r
		rep.Warnings = append(rep.Warnings, w)
	}
	up, err := twinProblem(ctx, opt, "MvTSVM positive planes", E, F, c1, dd, eps, ridge, -1, rep)
	if err != nil {
		return nil, err
	}
	vn, err := twinProblem(ctx, opt, "MvTSVM negative planes", F, E, c2, hh, eps, ridge, 1, rep)
	if err != nil {
		return nil, err
	}
	m := &mvtsvmModel{twoViews[*twinView]{Model: "mvtsvm", Rule: rule, DimA: train.Dim(), DimB: train.ZDim()}}
	views := [2]**twinView{&m.A, &m.B}
	kern := [2]kernel.Kernel{ka, kb}
	xs := [2]*mat.Dense{xa, xb}
	for t := 0; t < 2; t++ {
		pp, err := plane(up[t])
		if err != nil {
			return nil, err
		}
		np, err := plane(vn[t])
		if err != nil {
			return nil, err
		}
		*views[t] = &twinView{Kernel: kern[t], X: model.MatrixOf(xs[t]), Pos: pp, Neg: np, x: xs[t]}
	}
	rep.TrainSeconds = time.Since(start).Seconds()
	m.Rep = rep
	return m, nil
}
