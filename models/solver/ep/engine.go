package ep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"lupilab/models/fastblas"
)

// Block is one latent Gaussian process of the model: f in GPC; f and g in
// GPC+ (paper 002 eq 6). The EP posterior factorises over blocks (eq 11).
type Block struct {
	K    *mat.SymDense // n×n prior covariance
	Mean []float64     // prior mean per sample; nil means zero
	// AllowNegative keeps site updates with a negative precision τ̃ as long
	// as the posterior stays proper (1 + Δτ̃ Σᵢᵢ > 0, cavity precision > 0);
	// updates that would break that are skipped. Without it every update
	// to a negative τ̃ is skipped. GPC+ sets it for both blocks: its
	// likelihood is log-convex in g for well-classified samples, and,
	// integrated over g, it is a scale mixture of probits in f, which is not
	// log-concave either; such sites are moment-matched only with τ̃ < 0,
	// and a skipped (frozen) site leaves EP off its fixed point, where the
	// evidence gradient formula (GradWeights) no longer holds.
	AllowNegative bool
}

// SiteFunc computes the tilted distribution of site i: given the cavity mean
// m[b] and variance v[b] of every block b, it returns log Zᵢ and fills the
// first and second derivatives of log Zᵢ with respect to m[b] (dm[b], d2[b]).
type SiteFunc func(i int, m, v, dm, d2 []float64) (logZ float64)

// Sites are the natural parameters of the Gaussian site approximations:
// Tau[b][i] = τ̃ (precision), Nu[b][i] = ν̃ (precision × mean).
type Sites struct {
	Tau, Nu [][]float64
}

// Options control Run.
type Options struct {
	MaxSweeps int     // sweep limit (default 100)
	Tol       float64 // convergence: |Δ log Z_EP| between sweeps < Tol (default 1e-6) …
	SiteTol   float64 // … and every site moved by < SiteTol·(1+|value|) in the sweep (default 1e-4)
	Damping   float64 // δ ∈ (0, 1]: new site = (1−δ) old + δ proposed (default 1)
	Init      *Sites  // warm start (copied); nil starts from zero sites
	// Extrapolate enables Anderson acceleration of the sweeps (anderson.go)
	// for EP that converges linearly (GPC+: the f–g coupling makes every
	// sweep shrink the site changes by a near-constant ratio, ≈ 0.6 at
	// n = 400): once a sweep changes no site by more than andersonStart
	// (relative), the posterior is recomputed at the accelerated point
	// instead of the swept sites (precisions of non-negative blocks clipped
	// at 0); a point without a proper posterior is dropped and EP goes on
	// from the swept sites. The fixed point is unchanged.
	Extrapolate bool
	// Accel, with Extrapolate, carries the acceleration's history from one
	// Run to the next (see Accel); nil starts afresh.
	Accel *Accel
	// Progress, if set, is called every few sites (sweep from 1; a rerun
	// counts its sweeps from 1 again).
	Progress func(sweep, site int)
	// Retries > 0 reruns EP with the damping halved, up to Retries times,
	// when a run stalls or fails numerically (see Run); 0 never reruns.
	Retries int
}

// Accel holds Anderson acceleration's secant history between Runs at
// nearby hyper-parameters (type-II ML warm-starts each evidence evaluation
// from the last one's sites). The slow modes of GPC+'s sweeps (the f-scale /
// g-level near-symmetry) change little with the hyper-parameters, so the
// previous run's residual differences let the first sweeps of the next one
// extrapolate along them at once instead of rediscovering them. The fixed
// point is unchanged. An Accel is not safe for concurrent Runs.
type Accel struct {
	a       anderson
	damping float64 // damping of the sweep map a's pairs come from (0: none yet)
}

// Result is a converged (or stopped) EP approximation.
type Result struct {
	Sites
	Mu, Var   [][]float64 // posterior marginal means / variances per block
	LogZ      float64     // EP approximation of the log marginal likelihood (R&W eq 3.65)
	Sweeps    int         // sweeps of this run (TotalSweeps counts the abandoned runs too)
	Converged bool
	Skipped   int // site updates skipped in the last sweep (negative precision or invalid cavity)
	// Damping is the damping δ of this run: Options.Damping, or a smaller
	// one after retries.
	Damping float64
	// Stalled: the run's site changes stopped shrinking (stallSweeps). With
	// retries left Run abandons such a run; the last one is returned as is
	// (Converged tells whether it still converged).
	Stalled bool
	// Retried lists the runs abandoned before this one (Options.Retries).
	Retried []Attempt
	blocks  []*blockState
	tick    func() // progress between the blocked steps of recompute
	ctx     context.Context
}

type blockState struct {
	neg    bool
	logDet float64 // log|I + S̃^½KS̃^½| = log|I + KS̃|
	k      *mat.SymDense
	m0     []float64
	sigma  *mat.SymDense
	mu     []float64
	sW     []float64
	alpha  []float64
	// buffers reused by every recompute of a Run
	kd   []float64 // K as a dense row-major n×n matrix (both triangles)
	work []float64 // n×n work matrix (V = L⁻¹S̃^½K, or the LU solve)
	bsym *mat.SymDense
	a    *mat.Dense
	ipiv []int
	p, t []float64
	// rank-one updates of Σ not yet applied (see pendRows): np columns s
	// (rows of pend, n each) with coefficients pc; pcs and pw are scratch.
	pend, pc, pcs, pw []float64
	np                int
	tick              func() // progress report (Options.Progress) inside flush
}

// kDense returns K with both triangles filled (row-major, stride n), built
// once per Run.
func (bs *blockState) kDense() []float64 {
	if bs.kd == nil {
		raw := bs.k.RawSymmetric()
		n := raw.N
		bs.kd = make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				v := raw.Data[i*raw.Stride+j]
				bs.kd[i*n+j], bs.kd[j*n+i] = v, v
			}
		}
	}
	return bs.kd
}

// flatten appends the site parameters (τ̃ then ν̃ of every block) to dst[:0].
func (s Sites) flatten(dst []float64) []float64 {
	dst = dst[:0]
	for b := range s.Tau {
		dst = append(dst, s.Tau[b]...)
		dst = append(dst, s.Nu[b]...)
	}
	return dst
}

// unflatten sets the sites from x (the layout of flatten); with blocks, the
// precisions of blocks that do not allow negative ones are clipped at 0.
func (s Sites) unflatten(x []float64, blocks []*blockState) {
	k := 0
	for b := range s.Tau {
		n := len(s.Tau[b])
		copy(s.Tau[b], x[k:k+n])
		if blocks != nil && !blocks[b].neg {
			for i, t := range s.Tau[b] {
				if t < 0 {
					s.Tau[b][i] = 0
				}
			}
		}
		copy(s.Nu[b], x[k+n:k+2*n])
		k += 2 * n
	}
}

// proper reports whether every cavity precision is positive.
func (r *Result) proper() bool {
	for b, bs := range r.blocks {
		for i := range bs.mu {
			if !(1/bs.sigma.At(i, i)-r.Tau[b][i] > 0) {
				return false
			}
		}
	}
	return true
}

// pendRows is the number of rank-one updates of Σ that are held back and
// applied together (flush) as one tiled rank-k update: one blas64.Syr per
// site streams the whole n×n Σ for n multiply-adds per element row
// (memory-bound: 43 % of GPC+'s EP time at n = 800), the rank-64 update
// does the same arithmetic with Gemm tiles.
const pendRows = 64

// column writes the current column i of Σ into dst: the stored Σ (upper
// triangle) minus the pending rank-one updates Σ_r c_r s_r s_rᵀ.
func (bs *blockState) column(i int, dst []float64) {
	raw := bs.sigma.RawSymmetric()
	n := raw.N
	for j := 0; j < i; j++ {
		dst[j] = raw.Data[j*raw.Stride+i]
	}
	copy(dst[i:], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
	if bs.np > 0 {
		w := bs.pw[:bs.np]
		for r := range w {
			w[r] = -bs.pc[r] * bs.pend[r*n+i]
		}
		fastblas.AddMulT(bs.np, n, bs.pend, n, w, dst)
	}
}

// update applies the rank-one change of site i (Δτ̃, Δν̃) given col, the
// current column i of Σ (column): μ ← μ + s (Δp − c (μᵢ − m0ᵢ + Δp Σᵢᵢ))
// with s = Σ eᵢ, c = Δτ̃/(1 + Δτ̃ Σᵢᵢ), Δp = Δν̃ − Δτ̃ m0ᵢ, and
// Σ ← Σ − c s sᵀ, held back in the pending list (flushed every pendRows
// updates; recompute discards it).
func (bs *blockState) update(i int, dTau, dNu float64, col []float64) {
	n := len(col)
	sii := col[i]
	c := dTau / (1 + dTau*sii)
	dp := dNu - dTau*bs.m0[i]
	f := dp - c*(bs.mu[i]-bs.m0[i]+dp*sii)
	blas64.Axpy(f, blas64.Vector{N: n, Inc: 1, Data: col}, blas64.Vector{N: n, Inc: 1, Data: bs.mu})
	if c == 0 {
		return
	}
	if bs.pend == nil {
		bs.pend, bs.pc, bs.pw = make([]float64, pendRows*n), make([]float64, pendRows), make([]float64, pendRows)
	}
	if bs.np == pendRows {
		bs.flush()
	}
	copy(bs.pend[bs.np*n:(bs.np+1)*n], col)
	bs.pc[bs.np] = c
	bs.np++
}

// flush applies the pending updates: Σ ← Σ − Pᵀ diag(c) P (P the pending
// columns as rows), on the upper triangle in tileRows-square Gemm tiles.
func (bs *blockState) flush() {
	raw := bs.sigma.RawSymmetric()
	n, k := raw.N, bs.np
	if k == 0 {
		return
	}
	if len(bs.pcs) < pendRows*n {
		bs.pcs = make([]float64, pendRows*n)
	}
	for r := 0; r < k; r++ {
		c := bs.pc[r]
		dst, src := bs.pcs[r*n:(r+1)*n], bs.pend[r*n:(r+1)*n]
		for j, v := range src {
			dst[j] = c * v
		}
	}
	for j0 := 0; j0 < n; j0 += tileRows {
		wj := min(tileRows, n-j0)
		pj := subGeneral(bs.pend, n, 0, j0, k, wj)
		for i0 := 0; i0 <= j0; i0 += tileRows {
			wi := min(tileRows, n-i0)
			fastblas.GemmAcc(true, -1, subGeneral(bs.pcs, n, 0, i0, k, wi), pj, subGeneral(raw.Data, raw.Stride, i0, j0, wi, wj))
		}
		if bs.tick != nil {
			bs.tick() // ≤ pendRows·tileRows·n multiply-adds apart
		}
	}
	bs.np = 0
}

// recompute rebuilds every block's posterior from its sites: B = I + S̃^½KS̃^½
// = LLᵀ, V = L⁻¹S̃^½K, Σ = K − VᵀV, μ = m0 + Σ(ν̃ − τ̃ m0), and
// α = p − S̃^½B⁻¹S̃^½Kp with p = ν̃ − τ̃ m0 (so that the predictive mean is
// m0* + k*ᵀα).
func (r *Result) recompute() error {
	for b, bs := range r.blocks {
		n := len(bs.mu)
		bs.np = 0 // Σ is rebuilt: pending rank-one updates are void
		if bs.neg && slices.ContainsFunc(r.Tau[b], func(t float64) bool { return t < 0 }) {
			if err := r.recomputeLU(b); err != nil {
				return err
			}
			continue
		}
		for i := range bs.sW {
			if r.Tau[b][i] < 0 || math.IsNaN(r.Tau[b][i]) || math.IsInf(r.Tau[b][i], 0) {
				return fmt.Errorf("%w: site precision %v", ErrNumerical, r.Tau[b][i])
			}
			bs.sW[i] = math.Sqrt(r.Tau[b][i])
		}
		if bs.bsym == nil {
			bs.bsym = mat.NewSymDense(n, nil)
		}
		fillB(bs.bsym, bs.k, bs.sW)
		br := bs.bsym.RawSymmetric()
		if ok, err := cholTiled(br, r.progress); err != nil {
			return err
		} else if !ok {
			return fmt.Errorf("%w: I + S̃^½KS̃^½ is not positive definite", ErrNumerical)
		}
		// B = UᵀU, U in the upper triangle of bsym
		u := blas64.Triangular{N: n, Stride: br.Stride, Data: br.Data, Uplo: blas.Upper, Diag: blas.NonUnit}
		bs.logDet = 0
		for i := 0; i < n; i++ {
			bs.logDet += 2 * math.Log(br.Data[i*br.Stride+i])
		}
		// V = L⁻¹ S̃^½ K = U⁻ᵀ S̃^½ K (n×n, B = UᵀU), Σ = K − VᵀV.
		kd := bs.kDense()
		if len(bs.work) < n*n {
			bs.work = make([]float64, n*n)
		}
		vr := blas64.General{Rows: n, Cols: n, Stride: n, Data: bs.work[:n*n]}
		for i := 0; i < n; i++ {
			s := bs.sW[i]
			dst, src := vr.Data[i*n:i*n+n], kd[i*n:i*n+n]
			for j, x := range src {
				dst[j] = s * x
			}
		}
		// Tiled so that progress is reported every few milliseconds.
		if err := solveLower(u, blas.Trans, vr, r.progress); err != nil {
			return err
		}
		bs.sigma.CopySym(bs.k)
		if err := syrkUpper(vr, bs.sigma.RawSymmetric(), r.progress); err != nil {
			return err
		}
		p, t := bs.vecs(n)
		for i := range p {
			p[i] = r.Nu[b][i] - r.Tau[b][i]*bs.m0[i]
		}
		blas64.Symv(1, bs.sigma.RawSymmetric(), blas64.Vector{N: n, Inc: 1, Data: p}, 0, blas64.Vector{N: n, Inc: 1, Data: t})
		for i := range bs.mu {
			bs.mu[i] = bs.m0[i] + t[i]
		}
		bs.alpha = alphaOf(u, kd, bs.sW, p, bs.alpha)
	}
	return nil
}

// vecs returns two length-n scratch vectors of the block.
func (bs *blockState) vecs(n int) (p, t []float64) {
	if len(bs.p) != n {
		bs.p, bs.t = make([]float64, n), make([]float64, n)
	}
	return bs.p, bs.t
}

// recomputeLU is recompute for a block whose site precisions may be
// negative: Σ = (K⁻¹ + S̃)⁻¹ = (I + KS̃)⁻¹K by an LU factorisation,
// log|I + KS̃| from it (it must be positive for a proper posterior), and
// α = p − S̃Σp.
func (r *Result) recomputeLU(b int) error {
	bs := r.blocks[b]
	n := len(bs.mu)
	tau := r.Tau[b]
	kd := bs.kDense()
	if bs.a == nil {
		bs.a = mat.NewDense(n, n, nil)
	}
	ar := bs.a.RawMatrix()
	for i := 0; i < n; i++ {
		if math.IsNaN(tau[i]) || math.IsInf(tau[i], 0) {
			return fmt.Errorf("%w: site precision %v", ErrNumerical, tau[i])
		}
		bs.sW[i] = math.Sqrt(math.Max(tau[i], 0))
		dst, src := ar.Data[i*ar.Stride:i*ar.Stride+n], kd[i*n:i*n+n]
		for j, x := range src {
			dst[j] = x * tau[j]
		}
		dst[i]++
	}
	// A = P L U (luTiled: blocked Getrf with progress); log|A| from U's diagonal and the
	// parity of the row interchanges.
	if len(bs.ipiv) != n {
		bs.ipiv = make([]int, n)
	}
	if ok, err := luTiled(ar, bs.ipiv, r.progress); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("%w: the posterior covariance is not positive definite", ErrNumerical)
	}
	var ld float64
	sign := 1.0
	for i := 0; i < n; i++ {
		d := ar.Data[i*ar.Stride+i]
		if d < 0 {
			sign = -sign
		}
		ld += math.Log(math.Abs(d))
		if bs.ipiv[i] != i {
			sign = -sign
		}
	}
	if sign <= 0 || math.IsNaN(ld) || math.IsInf(ld, 0) {
		return fmt.Errorf("%w: the posterior covariance is not positive definite", ErrNumerical)
	}
	bs.logDet = ld
	if err := r.progress(); err != nil {
		return err
	}
	// Σ = A⁻¹K = U⁻¹L⁻¹PᵀK: the rows of K interchanged as in Getrf, then
	// the two tiled triangular solves.
	if len(bs.work) < n*n {
		bs.work = make([]float64, n*n)
	}
	sd := bs.work[:n*n]
	copy(sd, kd)
	for i, p := range bs.ipiv {
		if p != i {
			blas64.Swap(blas64.Vector{N: n, Inc: 1, Data: sd[i*n:]}, blas64.Vector{N: n, Inc: 1, Data: sd[p*n:]})
		}
	}
	sg := blas64.General{Rows: n, Cols: n, Stride: n, Data: sd}
	if err := solveLower(blas64.Triangular{N: n, Stride: ar.Stride, Data: ar.Data, Uplo: blas.Lower, Diag: blas.Unit}, blas.NoTrans, sg, r.progress); err != nil {
		return err
	}
	if err := solveUpper(blas64.Triangular{N: n, Stride: ar.Stride, Data: ar.Data, Uplo: blas.Upper, Diag: blas.NonUnit}, sg, r.progress); err != nil {
		return err
	}
	sr := bs.sigma.RawSymmetric()
	for i := 0; i < n; i++ {
		row := sr.Data[i*sr.Stride : i*sr.Stride+n]
		for j := i; j < n; j++ {
			row[j] = 0.5 * (sd[i*n+j] + sd[j*n+i])
		}
		if !(row[i] > 0) {
			return fmt.Errorf("%w: posterior variance %v", ErrNumerical, row[i])
		}
	}
	p, t := bs.vecs(n)
	for i := range p {
		p[i] = r.Nu[b][i] - tau[i]*bs.m0[i]
	}
	blas64.Symv(1, sr, blas64.Vector{N: n, Inc: 1, Data: p}, 0, blas64.Vector{N: n, Inc: 1, Data: t})
	if len(bs.alpha) != n {
		bs.alpha = make([]float64, n)
	}
	for i := range bs.mu {
		bs.mu[i] = bs.m0[i] + t[i]
		bs.alpha[i] = p[i] - tau[i]*t[i]
	}
	return nil
}

func (r *Result) progress() error {
	if r.tick != nil {
		r.tick()
	}
	if r.ctx != nil {
		return r.ctx.Err()
	}
	return nil
}

// factorB factorises B = I + S̃^½KS̃^½ (for prediction).
func factorB(ch *mat.Cholesky, k *mat.SymDense, sW []float64) error {
	bm := mat.NewSymDense(len(sW), nil)
	fillB(bm, k, sW)
	if ok := ch.Factorize(bm); !ok {
		return fmt.Errorf("%w: I + S̃^½KS̃^½ is not positive definite", ErrNumerical)
	}
	return nil
}

// fillB writes the upper triangle of B = I + S̃^½KS̃^½ into bm.
func fillB(bm, k *mat.SymDense, sW []float64) {
	n := len(sW)
	kr, br := k.RawSymmetric(), bm.RawSymmetric()
	for i := 0; i < n; i++ {
		si := sW[i]
		src := kr.Data[i*kr.Stride : i*kr.Stride+n]
		dst := br.Data[i*br.Stride : i*br.Stride+n]
		for j := i; j < n; j++ {
			dst[j] = si * sW[j] * src[j]
		}
		dst[i]++
	}
}

// alphaOf returns α = p − S̃^½B⁻¹S̃^½Kp (into dst when it has length n).
func alphaOf(u blas64.Triangular, kd []float64, sW, p, dst []float64) []float64 {
	n := len(p)
	kp := make([]float64, n)
	blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: n, Cols: n, Stride: n, Data: kd}, blas64.Vector{N: n, Inc: 1, Data: p}, 0, blas64.Vector{N: n, Inc: 1, Data: kp})
	for i := range kp {
		kp[i] *= sW[i]
	}
	// B⁻¹x = U⁻¹U⁻ᵀx
	x := blas64.Vector{N: n, Inc: 1, Data: kp}
	blas64.Trsv(blas.Trans, u, x)
	blas64.Trsv(blas.NoTrans, u, x)
	if len(dst) != n {
		dst = make([]float64, n)
	}
	for i := range dst {
		dst[i] = p[i] - sW[i]*kp[i]
	}
	return dst
}

// evidence returns log Z_EP (R&W eq 3.65, written so that τ̃ = 0 is allowed,
// with a prior mean m0 per block):
//
//	Σᵢ log Zᵢ + Σ_blocks [ −Σ log Lᵢᵢ + ½ Σ log(1 + τ̃/τ₋) + ½ pᵀ(μ − m0)
//	                       + Σ (q² τ̃/τ₋ − 2pq − p²)/(2(τ₋ + τ̃)) ]
//
// with cavities τ₋ = 1/Σᵢᵢ − τ̃, ν₋ = μᵢ/Σᵢᵢ − ν̃, p = ν̃ − τ̃m0,
// q = ν₋ − τ₋m0, and log Zᵢ the tilted normaliser at the cavity.
func (r *Result) evidence(site SiteFunc) (float64, error) {
	nb := len(r.blocks)
	n := len(r.blocks[0].mu)
	m, v, dm, d2 := make([]float64, nb), make([]float64, nb), make([]float64, nb), make([]float64, nb)
	var total float64
	for i := 0; i < n; i++ {
		for b, bs := range r.blocks {
			sii := bs.sigma.At(i, i)
			tauC := 1/sii - r.Tau[b][i]
			nuC := bs.mu[i]/sii - r.Nu[b][i]
			if !(tauC > 0) {
				return 0, fmt.Errorf("%w: cavity precision %v at site %d", ErrNumerical, tauC, i)
			}
			m[b], v[b] = nuC/tauC, 1/tauC
			tt := r.Tau[b][i]
			p := r.Nu[b][i] - tt*bs.m0[i]
			q := nuC - tauC*bs.m0[i]
			total += 0.5*math.Log1p(tt/tauC) + 0.5*p*(bs.mu[i]-bs.m0[i]) + (q*q*tt/tauC-2*p*q-p*p)/(2*(tauC+tt))
		}
		total += site(i, m, v, dm, d2)
	}
	for _, bs := range r.blocks {
		total -= 0.5 * bs.logDet
	}
	if math.IsNaN(total) || math.IsInf(total, 0) {
		return 0, ErrNumerical
	}
	return total, nil
}

// Alpha returns α of block b: the predictive mean at a new point is
// m0* + k*ᵀα (R&W alg. 3.6 with a prior mean), and the evidence gradient
// with respect to a prior-mean parameter θ is αᵀ ∂m0/∂θ.
func (r *Result) Alpha(b int) []float64 { return append([]float64(nil), r.blocks[b].alpha...) }

// SqrtTau returns S̃^½ of block b (what NewPosterior needs; negative site
// precisions of an AllowNegative block are clipped at 0 here).
func (r *Result) SqrtTau(b int) []float64 { return append([]float64(nil), r.blocks[b].sW...) }

// GradWeights returns W = ααᵀ − S̃^½B⁻¹S̃^½ of block b: the gradient of the EP
// evidence at its fixed point with respect to a kernel hyper-parameter θ is
// ½ Σᵢⱼ Wᵢⱼ ∂Kᵢⱼ/∂θ (R&W eq 3.74).
func (r *Result) GradWeights(b int) (*mat.SymDense, error) {
	bs := r.blocks[b]
	n := len(bs.sW)
	// S̃^½B⁻¹S̃^½ = (K + S̃⁻¹)⁻¹ = S̃ − S̃ΣS̃ (Woodbury; valid for any sign of
	// τ̃ and for τ̃ = 0), so W = ααᵀ + S̃ΣS̃ − S̃ from the Σ that recompute
	// already holds: O(n²) instead of inverting B (O(n³)).
	tau := r.Tau[b]
	W := mat.NewSymDense(n, nil)
	wr, sr := W.RawSymmetric(), bs.sigma.RawSymmetric()
	for i := 0; i < n; i++ {
		ai, ti := bs.alpha[i], tau[i]
		srow := sr.Data[i*sr.Stride : i*sr.Stride+n]
		wrow := wr.Data[i*wr.Stride : i*wr.Stride+n]
		for j := i; j < n; j++ {
			wrow[j] = ai*bs.alpha[j] + ti*tau[j]*srow[j]
		}
		wrow[i] -= ti
	}
	return W, nil
}

// Posterior predicts a latent GP block at new inputs from its EP sites.
type Posterior struct {
	sW, alpha []float64
	l         blas64.Triangular // lower Cholesky factor of B = I + S̃^½KS̃^½
	// m is (K + S̃⁻¹)⁻¹ = (I + S̃K)⁻¹S̃ when some site precision is negative
	// (NewPosteriorSigned); S̃^½ and L are then unused.
	m *mat.Dense
}

// NewPosteriorSigned is NewPosterior from signed site precisions τ̃. With
// every τ̃ ≥ 0 it is NewPosterior(K, √τ̃, α); otherwise B = I + S̃^½KS̃^½
// does not exist and the predictive variance is k** − k*ᵀ(K + S̃⁻¹)⁻¹k*
// with (K + S̃⁻¹)⁻¹ = (I + S̃K)⁻¹S̃ (valid for any sign of τ̃; symmetric), formed
// once by an LU solve (O(n³), as the Cholesky of B).
func NewPosteriorSigned(K *mat.SymDense, tau, alpha []float64) (*Posterior, error) {
	n, _ := K.Dims()
	if len(tau) != n || len(alpha) != n {
		return nil, errors.New("ep: posterior of inconsistent size")
	}
	neg := false
	sW := make([]float64, n)
	for i, t := range tau {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, fmt.Errorf("%w: site precision %v", ErrNumerical, t)
		}
		neg = neg || t < 0
		sW[i] = math.Sqrt(math.Max(t, 0))
	}
	if !neg {
		return NewPosterior(K, sW, alpha)
	}
	m, det, err := SignedSiteMatrix(K, tau)
	if det <= 0 {
		return nil, fmt.Errorf("%w: the posterior covariance is not positive definite", ErrNumerical)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNumerical, err)
	}
	return &Posterior{sW: sW, alpha: append([]float64(nil), alpha...), m: m}, nil
}

// SignedSiteMatrix returns M = (K + S̃⁻¹)⁻¹ = (I + S̃K)⁻¹S̃ for site
// precisions τ̃ of any sign (the predictive variance is k** − k*ᵀMk*), and
// det(I + S̃K), which is positive exactly when the posterior covariance is
// positive definite. With Aᵀ = I + S̃K, M = A⁻ᵀS̃ solves AᵀM = S̃ by one LU
// factorisation (O(n³)); the error is the solve's (a singular Aᵀ).
func SignedSiteMatrix(K mat.Matrix, tau []float64) (m *mat.Dense, det float64, err error) {
	n := len(tau)
	at := mat.NewDense(n, n, nil)
	rhs := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			at.Set(i, j, tau[i]*K.At(i, j))
		}
		at.Set(i, i, at.At(i, i)+1)
		rhs.Set(i, i, tau[i])
	}
	var lu mat.LU
	lu.Factorize(at)
	m = mat.NewDense(n, n, nil)
	if err := lu.SolveTo(m, false, rhs); err != nil {
		return nil, lu.Det(), err
	}
	return m, lu.Det(), nil
}

// NewPosterior factorises B = I + S̃^½KS̃^½ for predictive variances.
func NewPosterior(K *mat.SymDense, sW, alpha []float64) (*Posterior, error) {
	n, _ := K.Dims()
	if len(sW) != n || len(alpha) != n {
		return nil, errors.New("ep: posterior of inconsistent size")
	}
	p := &Posterior{sW: append([]float64(nil), sW...), alpha: append([]float64(nil), alpha...)}
	var ch mat.Cholesky
	if err := factorB(&ch, K, p.sW); err != nil {
		return nil, err
	}
	var L mat.TriDense
	ch.LTo(&L)
	p.l = L.RawTriangular()
	return p, nil
}

// PredictChunk is the number of test points Predict processes per block:
// its n×PredictChunk work matrix is reused, so memory stays O(n·chunk) for
// any number of test points.
const PredictChunk = 256

// Predict returns the latent predictive mean (without the prior mean) and
// variance at m new points: Ks is n×m (k(xᵢ, x*ⱼ)), kss the prior variances
// k(x*ⱼ, x*ⱼ). mean = Ksᵀα, var = kss − ‖L⁻¹(S̃^½Ks)‖² (R&W alg. 3.6).
func (p *Posterior) Predict(Ks *mat.Dense, kss []float64) (mean, variance []float64) {
	_, m := Ks.Dims()
	mean = make([]float64, m)
	variance = make([]float64, m)
	p.PredictTo(mean, variance, Ks, kss, nil)
	return mean, variance
}

// signedVariance is PredictTo's variance with M = (K + S̃⁻¹)⁻¹: per block of
// PredictChunk test points T = M Ks (one Gemm), var = kss − colsum(Ks ∘ T).
func (p *Posterior) signedVariance(variance []float64, Ks *mat.Dense, kss, work []float64) {
	n, m := Ks.Dims()
	kr, mr := Ks.RawMatrix(), p.m.RawMatrix()
	w := min(PredictChunk, m)
	for j0 := 0; j0 < m; j0 += w {
		c := min(w, m-j0)
		T := blas64.General{Rows: n, Cols: c, Stride: c, Data: work[:n*c]}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, mr, blas64.General{Rows: n, Cols: c, Stride: kr.Stride, Data: kr.Data[j0:]}, 0, T)
		out := variance[j0 : j0+c]
		copy(out, kss[j0:j0+c])
		for i := 0; i < n; i++ {
			krow := kr.Data[i*kr.Stride+j0 : i*kr.Stride+j0+c]
			for j, x := range T.Data[i*c : i*c+c] {
				out[j] -= x * krow[j]
			}
		}
		for j := range out {
			if out[j] < 0 {
				out[j] = 0
			}
		}
	}
}

// PredictTo is Predict writing into mean and variance (length m; variance
// may be nil when only the mean is wanted). The variances are computed in
// blocks of PredictChunk test points: V = S̃^½Ks[:, block] into work, one
// triangular solve L⁻¹V per block (blas64.Trsm), and the column sums of
// squares of V accumulated row by row. work (n·PredictChunk floats) is
// reused when large enough; nil allocates it.
func (p *Posterior) PredictTo(mean, variance []float64, Ks *mat.Dense, kss, work []float64) {
	n, m := Ks.Dims()
	if m == 0 {
		return
	}
	kr := Ks.RawMatrix()
	// mean = Ksᵀα
	blas64.Gemv(blas.Trans, 1, kr, blas64.Vector{N: n, Inc: 1, Data: p.alpha}, 0, blas64.Vector{N: m, Inc: 1, Data: mean})
	if variance == nil {
		return
	}
	w := min(PredictChunk, m)
	if len(work) < n*w {
		work = make([]float64, n*w)
	}
	if p.m != nil {
		p.signedVariance(variance, Ks, kss, work)
		return
	}
	for j0 := 0; j0 < m; j0 += w {
		c := min(w, m-j0)
		V := blas64.General{Rows: n, Cols: c, Stride: c, Data: work[:n*c]}
		for i := 0; i < n; i++ {
			src := kr.Data[i*kr.Stride+j0 : i*kr.Stride+j0+c]
			dst := V.Data[i*c : i*c+c]
			s := p.sW[i]
			for j, x := range src {
				dst[j] = s * x
			}
		}
		blas64.Trsm(blas.Left, blas.NoTrans, 1, p.l, V)
		out := variance[j0 : j0+c]
		copy(out, kss[j0:j0+c])
		for i := 0; i < n; i++ {
			for j, x := range V.Data[i*c : i*c+c] {
				out[j] -= x * x
			}
		}
		for j := range out {
			if out[j] < 0 {
				out[j] = 0
			}
		}
	}
}
