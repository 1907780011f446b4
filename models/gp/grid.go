package gp

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"lupilab/models/fastblas"
	"lupilab/models/solver/ep"
)

// Fast predictive maps over a rectangular grid (two input features).
//
// The SE kernel factorises over coordinates: k(x, s) = θ·aₛ(x₁)·bₛ(x₂) with
// aₛ(u) = exp(−½(u − s₁)²/ℓ₁²), bₛ(u) = exp(−½(u − s₂)²/ℓ₂²). With A the
// W×n matrix aₛ(xs[i]) and B the H×n matrix bₛ(ys[j]), the predictive mean
// m*(i, j) = θ Σₛ αₛ aₛ bₛ is one product B·diag(θα)·Aᵀ (as
// kernel.Expansion.OnGrid).
//
// The predictive variance v*(i, j) = θ − k*ᵀ M k*, M = (K + S̃⁻¹)⁻¹, costs
// n² per point done directly (ep.Posterior.PredictTo). Here it costs far
// less, exploiting that a 1-D Gaussian kernel matrix has low numerical rank:
//
//  1. A ≈ Uₐ Rₐ by pivoted Gram–Schmidt on A's columns (Uₐ: W×rₐ
//     orthonormal, Rₐ = UₐᵀA), stopping once the residual's Frobenius norm is
//     below a tolerance (below), and the same for B (r_b);
//  2. k̃*(i, j) = θ (Rₐᵀuₐ(i)) ∘ (R_bᵀu_b(j)), whose quadratic form is
//     θ² Σ uₐ(i)ₚuₐ(i)ₚ′ u_b(j)_q u_b(j)_q′ N[(p,q),(p′,q′)] with
//     N = T M Tᵀ, T[(p,q), s] = Rₐ[p,s]R_b[q,s] (rₐr_b × n); for τ̃ ≥ 0,
//     M = CᵀC with C = L⁻¹S̃^½ (B = I + S̃^½KS̃^½ = LLᵀ), so N = ZᵀZ, Z = C Tᵀ;
//  3. uₐ(i)ₚuₐ(i)ₚ′ is symmetric in (p, p′): grouping unordered pairs gives
//     the grid of quadratic forms as Xₚ·N_c·Y_pᵀ, with Xₚ (W × rₐ(rₐ+1)/2)
//     and Y_p (H × r_b(r_b+1)/2) the pair products — two matrix products.
//
// Cost: about rₐ²r_b²n + W·Pₐ·P_b + W·H·P_b (P = r(r+1)/2) instead of
// W·H·n²/2; for the default GPC on two moons (n = 140, rₐ ≈ r_b ≈ 20) about
// 4·10⁷ multiply–adds instead of 4·10⁸.
//
// Error bound. With eₐ(i) the residual row of A at xs[i] (and e_b(j)), the
// kernel vector is off by ‖k* − k̃*‖ ≤ δk = θ(‖eₐ(i)‖ + (1 + ‖eₐ(i)‖)‖e_b(j)‖)
// (the factors are ≤ 1), and since k*ᵀMk* = θ − v* ≤ θ,
// |v* − ṽ*| = |(k*−k̃*)ᵀM(k*+k̃*)| ≤ ‖M‖₂^½ δk (2θ^½ + ‖M‖₂^½ δk), with
// ‖M‖₂ ≤ ‖C‖_F² (τ̃ ≥ 0) or ‖M‖_F. The residuals are recomputed explicitly
// after the factorisation and the bound evaluated at every node; the ranks
// are chosen so that the bound is ≤ gridVarTol·θ, and when it is not reached
// (or the low-rank form would not be cheaper) the variances are computed
// directly, exactly as Probability does. The probability Φ(m*/√(1+v*))
// moves by at most 0.121·|Δv*| (|∂Φ(m/√(1+v))/∂v| = φ(z)|z|/(2(1+v)) ≤
// 1/(2√(2πe))), GPC+'s mixture Σ wₖΦ(m*/√(v* + e^{gₖ})) by at most
// 0.121·|Δv*|/minₖ(v* + e^{gₖ}); rounding adds a few ulp of θ.
const gridVarTol = 1e-10

// LatentOnGrid returns the latent predictive mean and, when withVar, the
// variance of f at every node (xs[i], ys[j]) of a grid, row-major with the
// y index outer (out[j·len(xs) + i]). ok is false when the model was not
// trained on two features; the caller then predicts point by point.
func (g *GPC) LatentOnGrid(xs, ys []float64, withVar bool, tick func()) (mean, variance []float64, ok bool, err error) {
	if err := g.prepare(); err != nil {
		return nil, nil, false, err
	}
	n, d := g.x.Dims()
	if d != 2 || len(xs) == 0 || len(ys) == 0 {
		return nil, nil, false, nil
	}
	w, h := len(xs), len(ys)
	il2 := g.Kernel.invLen2(2)
	theta := math.Exp(g.Kernel.LogAmp)
	a := factorRows(xs, g.x, 0, il2[0]) // W×n
	b := factorRows(ys, g.x, 1, il2[1]) // H×n
	bc := make([]float64, len(b))
	for j := 0; j < h; j++ {
		for s := 0; s < n; s++ {
			bc[j*n+s] = b[j*n+s] * theta * g.Alpha[s]
		}
	}
	mean = make([]float64, w*h)
	fastblas.AddABt(bc, a, mean, h, n, w)
	if !withVar {
		return mean, nil, true, nil
	}
	if tick != nil {
		tick()
	}
	variance, lowRank := g.varianceLowRank(xs, ys, a, b, theta, tick)
	if !lowRank {
		variance = g.varianceDirect(xs, ys, a, b, theta, tick)
	}
	return mean, variance, true, nil
}

// factorRows returns the len(u)×n matrix exp(−½(u[i] − X[s,col])²·il2).
func factorRows(u []float64, X *mat.Dense, col int, il2 float64) []float64 {
	n, _ := X.Dims()
	out := make([]float64, len(u)*n)
	for i, v := range u {
		row := out[i*n : (i+1)*n]
		for s := range row {
			dv := v - X.At(s, col)
			row[s] = math.Exp(-0.5 * dv * dv * il2)
		}
	}
	return out
}

// varianceDirect is the exact predictive variance at every node, by the
// posterior's own solver (ep.Posterior.PredictTo), one grid row at a time
// with the kernel columns built from the factors.
func (g *GPC) varianceDirect(xs, ys []float64, a, b []float64, theta float64, tick func()) []float64 {
	n, _ := g.x.Dims()
	w, h := len(xs), len(ys)
	out := make([]float64, w*h)
	ks := mat.NewDense(n, w, nil)
	kss := make([]float64, w)
	for i := range kss {
		kss[i] = theta
	}
	mean := make([]float64, w)
	work := make([]float64, n*min(w, ep.PredictChunk))
	raw := ks.RawMatrix()
	for j := 0; j < h; j++ {
		for s := 0; s < n; s++ {
			bs := theta * b[j*n+s]
			row := raw.Data[s*raw.Stride : s*raw.Stride+w]
			for i := range row {
				row[i] = bs * a[i*n+s]
			}
		}
		g.post.PredictTo(mean, out[j*w:(j+1)*w], ks, kss, work)
		if tick != nil && j%16 == 15 {
			tick()
		}
	}
	return out
}

// lowRank is A ≈ U·R for a W×n row-major A: U (W×r, row-major), R (r×n),
// and the Euclidean norms of the rows of A − U·R and of A.
type lowRank struct {
	r          int
	u, rm      []float64
	resid, nrm []float64
}

// pivotedGS factorises the W×n matrix a (row-major) by pivoted Gram–Schmidt
// on its columns until the residual's Frobenius norm is ≤ tol or the rank
// reaches maxRank (then ok is false).
func pivotedGS(a []float64, w, n int, tol float64, maxRank int) (lowRank, bool) {
	// Residual columns, stored as rows of an n×W matrix.
	res := make([]float64, n*w)
	for i := 0; i < w; i++ {
		for s := 0; s < n; s++ {
			res[s*w+i] = a[i*n+s]
		}
	}
	norms := make([]float64, n)
	var q [][]float64
	for {
		best, total := -1, 0.0
		for s := 0; s < n; s++ {
			v := res[s*w : (s+1)*w]
			norms[s] = fastblas.Dot(v, v)
			total += norms[s]
			if best < 0 || norms[s] > norms[best] {
				best = s
			}
		}
		if math.Sqrt(total) <= tol {
			break
		}
		if len(q) == maxRank || len(q) == w {
			return lowRank{}, false
		}
		v := append([]float64(nil), res[best*w:(best+1)*w]...)
		for pass := 0; pass < 2; pass++ { // re-orthogonalise against U
			for _, p := range q {
				c := fastblas.Dot(p, v)
				for i := range v {
					v[i] -= c * p[i]
				}
			}
		}
		nv := math.Sqrt(fastblas.Dot(v, v))
		if !(nv > 0) {
			return lowRank{}, false
		}
		for i := range v {
			v[i] /= nv
		}
		q = append(q, v)
		for s := 0; s < n; s++ {
			col := res[s*w : (s+1)*w]
			c := fastblas.Dot(v, col)
			for i := range col {
				col[i] -= c * v[i]
			}
		}
	}
	r := len(q)
	lr := lowRank{r: r, u: make([]float64, w*r), rm: make([]float64, r*n), resid: make([]float64, w), nrm: make([]float64, w)}
	for p, v := range q {
		for i, x := range v {
			lr.u[i*r+p] = x
		}
	}
	// R = Uᵀ A, then the residual A − U R recomputed explicitly.
	for p, v := range q {
		row := lr.rm[p*n : (p+1)*n]
		for i, x := range v {
			for s, y := range a[i*n : (i+1)*n] {
				row[s] += x * y
			}
		}
	}
	for i := 0; i < w; i++ {
		ai := a[i*n : (i+1)*n]
		lr.nrm[i] = math.Sqrt(fastblas.Dot(ai, ai))
		e := append([]float64(nil), ai...)
		for p := 0; p < r; p++ {
			c := lr.u[i*r+p]
			for s, x := range lr.rm[p*n : (p+1)*n] {
				e[s] -= c * x
			}
		}
		lr.resid[i] = math.Sqrt(fastblas.Dot(e, e))
	}
	return lr, true
}

// varianceLowRank is the low-rank tensor evaluation described at
// gridVarTol; ok is false when it would not be cheaper than the direct one
// or cannot certify its bound.
func (g *GPC) varianceLowRank(xs, ys []float64, a, b []float64, theta float64, tick func()) ([]float64, bool) {
	n, _ := g.x.Dims()
	w, h := len(xs), len(ys)
	vm, ok := g.varianceMetric()
	if !ok {
		return nil, false
	}
	mNorm := vm.norm
	// Tolerance on the residual norms that keeps the bound ≤ gridVarTol·θ:
	// δk ≤ θ(ε + (1+ε)ε) ≤ 3θε, so the bound is ≤ 6θ^{3/2}‖M‖^½ε + 9θ²‖M‖ε².
	sm := math.Sqrt(mNorm)
	eps := gridVarTol * math.Sqrt(theta) / (6*theta*sm + 1)
	// Beyond rₐ = r_b = (W·H·n/4)^¼ the rₐ²r_b²n of forming N alone exceeds
	// half the direct work W·H·n²/2.
	maxRank := int(math.Pow(float64(w*h*n)/4, 0.25))
	la, okA := pivotedGS(a, w, n, eps, maxRank)
	if !okA {
		return nil, false
	}
	lb, okB := pivotedGS(b, h, n, eps, maxRank)
	if !okB {
		return nil, false
	}
	ra, rb := la.r, lb.r
	pa, pb := ra*(ra+1)/2, rb*(rb+1)/2
	if float64(ra*ra*rb*rb*n+w*pa*pb+w*h*pb) > 0.5*float64(w*h)*float64(n*n)/2 {
		return nil, false
	}
	// Certify the bound at every node before spending the work.
	worst := 0.0
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			dk := theta * (la.resid[i] + (1+la.resid[i])*lb.resid[j])
			dv := sm * dk * (2*math.Sqrt(theta) + sm*dk)
			worst = math.Max(worst, dv)
		}
	}
	if worst > gridVarTol*theta {
		return nil, false
	}
	if tick != nil {
		tick()
	}
	rr := ra * rb
	// Tᵀ (n × rr): Tᵀ[s, p·rb+q] = Rₐ[p,s]·R_b[q,s].
	tt := blas64.General{Rows: n, Cols: rr, Stride: rr, Data: make([]float64, n*rr)}
	for s := 0; s < n; s++ {
		row := tt.Data[s*rr : (s+1)*rr]
		for p := 0; p < ra; p++ {
			x := la.rm[p*n+s]
			for q := 0; q < rb; q++ {
				row[p*rb+q] = x * lb.rm[q*n+s]
			}
		}
	}
	nn := vm.project(tt, n, rr)
	if tick != nil {
		tick()
	}
	return compressedQuad(nn, la, lb, w, h, theta), true
}

// varMetric is M = (K + S̃⁻¹)⁻¹ of the predictive variance in the form
// varianceLowRank uses: for τ̃ ≥ 0 the Cholesky factor U of B = I +
// S̃^½KS̃^½ (M = S̃^½B⁻¹S̃^½) and S̃^½; otherwise M itself, (I + S̃K)⁻¹S̃.
// norm bounds ‖M‖₂.
type varMetric struct {
	signed bool
	chol   blas64.Triangular
	sW     []float64
	mFull  *mat.Dense
	norm   float64
}

// varianceMetric factorises M for varianceLowRank (false: it cannot).
func (g *GPC) varianceMetric() (*varMetric, bool) {
	// The symmetric form: for τ̃ ≥ 0, N = ZᵀZ with Z = U⁻ᵀS̃^½Tᵀ (B = UᵀU);
	// otherwise N = T M Tᵀ with M = (I + S̃K)⁻¹S̃.
	tau := g.SiteTau
	signed := false
	for _, t := range tau {
		signed = signed || t < 0
	}
	var chol blas64.Triangular
	var sW []float64
	var mFull *mat.Dense
	var mNorm float64
	K := g.Kernel.gram(g.x)
	n, _ := g.x.Dims()
	if signed {
		var err error
		if mFull, _, err = ep.SignedSiteMatrix(K, tau); err != nil {
			return nil, false
		}
		mNorm = mat.Norm(mFull, 2) // Frobenius
	} else {
		sW = g.SqrtTau
		if tau != nil {
			sW = make([]float64, n)
			for i, t := range tau {
				sW[i] = math.Sqrt(t)
			}
		}
		bm := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: make([]float64, n*n)}
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				bm.Data[i*n+j] = sW[i] * K.At(i, j) * sW[j]
			}
			bm.Data[i*n+i]++
		}
		var ok bool
		if chol, ok = fastblas.Potrf(bm); !ok {
			return nil, false
		}
		// ‖M‖₂ = ‖C‖₂² ≤ ‖C‖_F², C = U⁻ᵀS̃^½.
		c := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
		for i := 0; i < n; i++ {
			c.Data[i*n+i] = sW[i]
		}
		fastblas.TrsmLeft(chol, true, c)
		mNorm = fastblas.Dot(c.Data, c.Data)
	}
	return &varMetric{signed: signed, chol: chol, sW: sW, mFull: mFull, norm: mNorm}, true
}

// project returns N = T M Tᵀ (rr × rr, upper triangle) from Tᵀ (n × rr;
// overwritten when τ̃ ≥ 0).
func (vm *varMetric) project(tt blas64.General, n, rr int) blas64.Symmetric {
	nn := blas64.Symmetric{Uplo: blas.Upper, N: rr, Stride: rr, Data: make([]float64, rr*rr)}
	if vm.signed {
		// M Tᵀ, then N = T (M Tᵀ) (full; only the upper triangle is read).
		mt := blas64.General{Rows: n, Cols: rr, Stride: rr, Data: make([]float64, n*rr)}
		fastblas.GemmAcc(false, 1, vm.mFull.RawMatrix(), tt, mt)
		full := blas64.General{Rows: rr, Cols: rr, Stride: rr, Data: nn.Data}
		fastblas.GemmAcc(true, 1, tt, mt, full)
	} else {
		for s := 0; s < n; s++ {
			row := tt.Data[s*rr : (s+1)*rr]
			for k := range row {
				row[k] *= vm.sW[s]
			}
		}
		fastblas.TrsmLeft(vm.chol, true, tt) // Z = U⁻ᵀ S̃^½ Tᵀ
		fastblas.SyrkTUpper(1, tt, nn)
	}
	return nn
}

// compressedQuad evaluates the variances θ − θ²·xᵀN x on the w × h grid
// from N (upper triangle) through the unordered index pairs of the two
// low-rank factors.
func compressedQuad(nn blas64.Symmetric, la, lb lowRank, w, h int, theta float64) []float64 {
	ra, rb := la.r, lb.r
	rr := ra * rb
	pa, pb := ra*(ra+1)/2, rb*(rb+1)/2
	at := func(x, y int) float64 { // N, symmetric, from its upper triangle
		if x > y {
			x, y = y, x
		}
		return nn.Data[x*rr+y]
	}
	// Unordered pairs and the compressed N_c (stored transposed: P_b × P_a).
	type pair struct{ p, q int }
	pairs := func(r int) []pair {
		out := make([]pair, 0, r*(r+1)/2)
		for p := 0; p < r; p++ {
			for q := p; q < r; q++ {
				out = append(out, pair{p, q})
			}
		}
		return out
	}
	ka, kb := pairs(ra), pairs(rb)
	nct := make([]float64, pb*pa)
	for k, pp := range ka {
		as := [][2]int{{pp.p, pp.q}}
		if pp.p != pp.q {
			as = append(as, [2]int{pp.q, pp.p})
		}
		for l, qq := range kb {
			bs := [][2]int{{qq.p, qq.q}}
			if qq.p != qq.q {
				bs = append(bs, [2]int{qq.q, qq.p})
			}
			s := 0.0
			for _, x := range as {
				for _, y := range bs {
					s += at(x[0]*rb+y[0], x[1]*rb+y[1])
				}
			}
			nct[l*pa+k] = s
		}
	}
	xp := make([]float64, w*pa)
	for i := 0; i < w; i++ {
		u := la.u[i*ra : (i+1)*ra]
		for k, pp := range ka {
			xp[i*pa+k] = u[pp.p] * u[pp.q]
		}
	}
	yp := make([]float64, h*pb)
	for j := 0; j < h; j++ {
		u := lb.u[j*rb : (j+1)*rb]
		for l, qq := range kb {
			yp[j*pb+l] = u[qq.p] * u[qq.q]
		}
	}
	z1 := make([]float64, w*pb) // Xₚ·N_c
	fastblas.AddABt(xp, nct, z1, w, pa, pb)
	quad := make([]float64, w*h) // Y_p·(Xₚ N_c)ᵀ
	fastblas.AddABt(yp, z1, quad, h, pb, w)
	t2 := theta * theta
	for k, x := range quad {
		quad[k] = math.Max(0, theta-t2*x)
	}
	return quad
}

// ProbabilityOf returns Φ(m*/√(1 + v*)) for latent means and variances
// (what Probability computes from them).
func (g *GPC) ProbabilityOf(mean, variance []float64) []float64 {
	p := make([]float64, len(mean))
	for i := range mean {
		p[i] = ep.Phi(mean[i] / math.Sqrt(1+variance[i]))
	}
	return p
}

// LatentOnGrid is GPC.LatentOnGrid for the f block (the only one needed
// at test time).
func (g *GPCPlus) LatentOnGrid(xs, ys []float64, withVar bool, tick func()) (mean, variance []float64, ok bool, err error) {
	if err := g.prepare(); err != nil {
		return nil, nil, false, err
	}
	return g.f.LatentOnGrid(xs, ys, withVar, tick)
}

// ProbabilityOf returns eq 9's P(y=1|x) = Σₖ wₖ Φ(m*/√(v* + e^{gₖ})) for
// latent means and variances (what Probability computes from them).
func (g *GPCPlus) ProbabilityOf(mean, variance []float64) []float64 {
	if err := g.prepare(); err != nil {
		return nil
	}
	nm := ep.NewNoiseMixture(g.gh, g.GMean, math.Exp(g.KernelG.LogAmp))
	p := make([]float64, len(mean))
	for i := range mean {
		p[i] = nm.Prob(mean[i], variance[i])
	}
	return p
}
