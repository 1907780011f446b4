package svmplus

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"lupilab/models/fastblas"
	"lupilab/models/kernel"
	"lupilab/models/solver/ncqp"
)

// QLambda returns the deformed privileged kernel of paper 000 eq (5),
//
//	Qλ = (1/λ)(K̃ − K̃(λ/C·I + K̃)⁻¹K̃),
//
// through one Cholesky factorisation of A = λ/C·I + K̃ (symmetric positive
// definite for λ, C > 0 and K̃ positive semi-definite). With μ = λ/C,
// K̃ − K̃A⁻¹K̃ = K̃A⁻¹(A − K̃) = μK̃A⁻¹ = μ(I − μA⁻¹), so
//
//	Qλ = (1/C)(I − μA⁻¹) = (1/C)(I − (I + (C/λ)K̃)⁻¹),
//
// and A⁻¹ comes from the Cholesky factor (LAPACK's potri through gonum):
// n³ flops in all, against 2⅓n³ for a triangular solve W = U⁻ᵀK̃ followed by
// K̃ − WᵀW. Both have absolute error O(ε‖K̃‖/λ); this one loses relative
// accuracy only on entries far below 1/C, which do not matter next to K.
//
// K̃ must be positive semi-definite, which QLambda does not check (that
// would cost another n³/3 flops for kernels that are PSD by construction):
// its factorisation fails only when K̃ has an eigenvalue below −λ/C, and for
// an indefinite K̃ with λ_min above that it returns a Qλ with negative
// eigenvalues. Callers with a kernel that is not PSD by construction check
// K̃ first (checkKernelPSD, as privileged does).
func QLambda(ctx context.Context, kt *mat.SymDense, C, lambda float64) (*mat.SymDense, error) {
	if err := checkCL(C, lambda); err != nil {
		return nil, err
	}
	n := kt.SymmetricDim()
	a := mat.NewSymDense(n, nil)
	a.CopySym(kt)
	mu := lambda / C
	ra := a.RawSymmetric()
	for i := 0; i < n; i++ {
		for j, v := range ra.Data[i*ra.Stride+i : i*ra.Stride+n] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("svmplus: privileged kernel K̃[%d][%d] = %v is not finite", i, i+j, v)
			}
		}
		ra.Data[i*ra.Stride+i] += mu
	}
	// LAPACK's potrf and potri on A's upper triangle, in place: mat.Cholesky
	// would add a condition estimate that nothing reads (μI bounds the
	// condition number by 1 + ‖K̃‖/μ), 11 % of this function at n = 70.
	// Blocked (ncqp.CholeskyTick: fastblas's kernels, which under wasm are
	// loops where gonum is pure Go) so that large n stays cache-friendly.
	if !ncqp.CholeskyTick(ra.Data, n, nil) {
		return nil, errors.New("svmplus: λ/C·I + K̃ is not positive definite: the privileged kernel is not positive semi-definite (the sigmoid kernel often is not)")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	u := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: ra.Stride, Data: ra.Data}
	if _, ok := lapack64.Potri(u); !ok {
		return nil, errors.New("svmplus: λ/C·I + K̃ is singular")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Qλ = (1/C)(I − μA⁻¹), in place on the upper triangle of A⁻¹.
	inv := a
	ri := inv.RawSymmetric()
	for i := 0; i < n; i++ {
		row := ri.Data[i*ri.Stride+i : i*ri.Stride+n]
		for j, v := range row {
			v *= -mu
			if j == 0 {
				v++
			}
			v /= C
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, errors.New("svmplus: Qλ has non-finite entries")
			}
			row[j] = v
		}
	}
	return inv, nil
}

// LowRankQLambda returns V (n×r) with Qλ = VVᵀ for the linear privileged
// kernel K̃ = Z̃Z̃ᵀ, where Z̃ (n×r) is Z augmented as the caller wishes. By
// the push-through identity Z̃(Z̃ᵀZ̃ + (λ/C)I)⁻¹Z̃ᵀ = K̃(K̃ + (λ/C)I)⁻¹,
//
//	Qλ = (1/C)K̃(K̃ + (λ/C)I)⁻¹ = Z̃(C·Z̃ᵀZ̃ + λI)⁻¹Z̃ᵀ = VVᵀ,  V = Z̃R⁻¹,
//
// with RᵀR = C·Z̃ᵀZ̃ + λI (Cholesky of an r×r matrix). It is eq (5) in the
// primal space of the correcting function: O(nr² + r³) instead of O(n³).
func LowRankQLambda(zt *mat.Dense, C, lambda float64) (*mat.Dense, error) {
	return lowRankQLambdaT(mat.DenseCopyOf(zt.T()), C, lambda)
}

// lowRankQLambdaT is LowRankQLambda given Z̃ᵀ (r×n; overwritten): its rows
// are Z̃'s columns, so that both the Gram matrix and the triangular solve
// run along rows of length n.
func lowRankQLambdaT(cols *mat.Dense, C, lambda float64) (*mat.Dense, error) {
	if err := checkCL(C, lambda); err != nil {
		return nil, err
	}
	r, n := cols.Dims()
	cr := cols.RawMatrix()
	// C·Z̃ᵀZ̃ + λI: the Gram matrix of Z̃'s columns (fastblas: four-accumulator
	// loops under WebAssembly, where gonum's Syrk is 3× slower).
	g := blas64.Symmetric{N: r, Stride: r, Uplo: blas.Upper, Data: make([]float64, r*r)}
	fastblas.GramUpper(r, n, cr.Data, cr.Stride, g.Data, g.Stride)
	for i := 0; i < r; i++ {
		row := g.Data[i*g.Stride+i : i*g.Stride+r]
		for j := range row {
			row[j] *= C
		}
		row[0] += lambda
	}
	// RᵀR = C·Z̃ᵀZ̃ + λI by LAPACK's Cholesky (mat.Cholesky would add a
	// condition estimate, 15 % of this function on wdbc; λI bounds the
	// condition number by 1 + C‖Z̃‖²/λ anyway).
	u, ok := fastblas.Potrf(g)
	if !ok {
		return nil, errors.New("svmplus: C·Z̃ᵀZ̃ + λI is not positive definite (non-finite privileged features?)")
	}
	// Vᵀ = R⁻ᵀZ̃ᵀ: a left solve whose updates are rows of length n. The
	// right solve V = Z̃R⁻¹ updates rows of length r; with it (and the
	// condition estimate) this function took 77 instead of 43 µs on wdbc's
	// 171×21 Z̃ (BenchmarkLowRankQLambda).
	fastblas.TrsmLeft(u, true, cr)
	v := mat.DenseCopyOf(cols.T())
	if _, ok := allFinite(v.RawMatrix().Data); !ok {
		return nil, errors.New("svmplus: Qλ factor has non-finite entries")
	}
	return v, nil
}

func checkCL(C, lambda float64) error {
	if !(C > 0) || math.IsInf(C, 0) {
		return fmt.Errorf("svmplus: C = %v must be positive and finite", C)
	}
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return fmt.Errorf("svmplus: λ = %v must be positive and finite", lambda)
	}
	return nil
}

// qlam serves Qλ by rows, from a dense matrix or from its factor V.
type qlam struct {
	dense *mat.SymDense
	v     *mat.Dense
	// rows, when not nil, keeps the rows of VVᵀ computed so far (rows[i]
	// is nil until row i is first asked for; mu guards it; see
	// newFactorQlam).
	rows [][]float64
	mu   sync.Mutex
	// full holds both triangles of dense, row-major with stride n, so that
	// rows are contiguous (the upper triangle alone makes half of every row
	// a strided column walk).
	full []float64
	// dg is the diagonal of VVᵀ, computed once (diagOnce).
	dg       []float64
	diagOnce sync.Once
	// rank is the number of columns of the pivoted Cholesky factor of K̃
	// when Qλ came from it (0: exact dense or linear-kernel path).
	rank int
}

// newDenseQlam wraps a dense Qλ, mirroring its upper triangle into the
// lower one in place (SymDense reads only the upper triangle).
func newDenseQlam(q *mat.SymDense) *qlam {
	raw := q.RawSymmetric()
	n, st := raw.N, raw.Stride
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			raw.Data[j*st+i] = raw.Data[i*st+j]
		}
	}
	full := raw.Data
	if st != n {
		full = make([]float64, n*n)
		for i := 0; i < n; i++ {
			copy(full[i*n:(i+1)*n], raw.Data[i*st:i*st+n])
		}
	}
	return &qlam{dense: q, full: full}
}

func (q *qlam) size() int {
	if q.dense != nil {
		return q.dense.SymmetricDim()
	}
	n, _ := q.v.Dims()
	return n
}

func (q *qlam) diag(i int) float64 {
	if q.dense != nil {
		return q.dense.At(i, i)
	}
	// Every task of a one-vs-rest fit asks for the whole diagonal (its
	// solver's Q_ii): computed once per Qλ.
	q.diagOnce.Do(func() {
		n, _ := q.v.Dims()
		q.dg = make([]float64, n)
		for j := range q.dg {
			r := q.v.RawRowView(j)
			q.dg[j] = fastblas.Dot(r, r)
		}
	})
	return q.dg[i]
}

// keptRowsMax bounds n for newFactorQlam's row store (n² entries: 72 MB
// at n = 3000).
const keptRowsMax = 3000

// newFactorQlam serves Qλ = VVᵀ from the factor V (n×r); rank is the
// pivoted Cholesky rank to report (0 for the linear kernel's factor). With
// r ≥ keepFrom and n ≤ keptRowsMax it keeps the rows it computes:
// a row from the factor costs O(nr), and the SMO asks for most rows, the
// one-vs-rest tasks of a multi-class fit for the same ones (they share Qλ
// through the workspace's qcache).
func newFactorQlam(v *mat.Dense, rank, keepFrom int) *qlam {
	n, r := v.Dims()
	q := &qlam{v: v, rank: rank}
	if r >= keepFrom && n <= keptRowsMax {
		// Rows are allocated as they are first computed: an n² store made
		// up front cost more than the rows themselves (digits, n = 539,
		// r = 65: 2.1 of a 19 ms one-vs-rest fit zeroing fresh pages).
		q.rows = make([][]float64, n)
	}
	return q
}

// storedRow returns row i of Qλ from the dense matrix or the row store
// (computing a kept row on first use by one product Vvᵢ); nil when rows
// come from the factor.
func (q *qlam) storedRow(i int) []float64 {
	if q.full != nil {
		n := q.size()
		return q.full[i*n : (i+1)*n]
	}
	if q.rows == nil {
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	row := q.rows[i]
	if row == nil {
		n := len(q.rows)
		row = make([]float64, n)
		vr := q.v.RawMatrix()
		fastblas.MulVec(n, vr.Cols, vr.Data, vr.Stride, q.v.RawRowView(i), row)
		q.rows[i] = row
	}
	return row
}

// addRow adds row i of Qλ to dst.
func (q *qlam) addRow(i int, dst []float64) {
	if row := q.storedRow(i); row != nil {
		floats.Add(dst, row)
		return
	}
	vi := q.v.RawRowView(i)
	for j := range dst {
		dst[j] += dotSmall(vi, q.v.RawRowView(j))
	}
}

// addSubRow adds Qλ[i][idx[t]] to dst[t].
func (q *qlam) addSubRow(i int, idx []int, dst []float64) {
	if row := q.storedRow(i); row != nil {
		for t, j := range idx {
			dst[t] += row[j]
		}
		return
	}
	vi := q.v.RawRowView(i)
	for t, j := range idx {
		dst[t] += dotSmall(vi, q.v.RawRowView(j))
	}
}

// mulVec returns Qλ·a.
func (q *qlam) mulVec(a []float64) []float64 {
	n := q.size()
	out := make([]float64, n)
	if q.full != nil {
		fastblas.MulVec(n, n, q.full, n, a, out)
		return out
	}
	// V(Vᵀa), both through fastblas (gonum's Gemv is pure Go under wasm).
	vr := q.v.RawMatrix()
	t := make([]float64, vr.Cols)
	fastblas.AddMulT(n, vr.Cols, vr.Data, vr.Stride, a, t)
	fastblas.MulVec(n, vr.Cols, vr.Data, vr.Stride, t, out)
	return out
}

func dotSmall(a, b []float64) float64 {
	if len(a) > 16 {
		return fastblas.Dot(a, b)
	}
	var s float64
	for k, x := range a {
		s += x * b[k]
	}
	return s
}

// pivotedCholesky returns L (n×r) with K̃ ≈ LLᵀ by the greedy pivoted
// (incomplete) Cholesky factorisation of a positive semi-definite matrix
// given through its diagonal and its columns (Fine & Scheinberg, JMLR 2001;
// Harbrecht, Peters & Schneider, Appl. Numer. Math. 2012): step k takes the
// largest residual diagonal entry p as pivot, computes column k of L from
// column p of K̃ minus the part already explained, l = (K̃[:,p] − L·L[p,:]ᵀ)/√d_p,
// and updates the residual diagonal d ← d − l∘l. The residual K̃ − LLᵀ is
// positive semi-definite with trace Σd, so the factorisation stops when
// Σd ≤ tolAbs. It returns ok = false, and no factor, when that needs more
// than maxRank columns (or, by extrapolation, would: see below) or when the
// matrix turns out not to be positive semi-definite. col(p, dst) writes
// column p of K̃ into dst; tick (if not nil) is called once per step. Each
// step costs O(n·k) plus one column of K̃, n·r²/2 flops and r columns in all.
func pivotedCholesky(ctx context.Context, diag []float64, col func(p int, dst []float64), tolAbs float64, maxRank int, tick func()) (*mat.Dense, bool, error) {
	n := len(diag)
	if maxRank > n {
		maxRank = n
	}
	if maxRank < 1 {
		return nil, false, nil
	}
	d := append([]float64(nil), diag...)
	done := make([]bool, n)
	st := maxRank
	l := make([]float64, n*st)
	buf := make([]float64, n)
	r := 0
	var trHalf float64 // residual trace at the last power-of-two step
	// Residual diagonal entries below −neg mean K̃ is not positive
	// semi-definite (rounding makes them only slightly negative).
	neg := tolAbs
	for _, v := range diag {
		neg = math.Max(neg, 1e-10*math.Abs(v))
	}
	for {
		var tr, best float64
		p := -1
		for i, v := range d {
			if done[i] {
				continue
			}
			if v < -neg {
				return nil, false, nil
			}
			if v > 0 {
				tr += v
			}
			if p < 0 || v > best {
				p, best = i, v
			}
		}
		if tr <= tolAbs || p < 0 {
			break
		}
		if r == maxRank {
			return nil, false, nil
		}
		// Early abort: at r = 32, 64, 128, … extrapolate the decay of the
		// residual trace over the last r/2 steps geometrically; when even
		// that reaches tolAbs only beyond maxRank, give up now instead of
		// spending n·maxRank²/2 flops to find out. Kernel spectra decay
		// sub-geometrically (RBF: like exp(−c·k^(1/dim))), so the
		// extrapolation is optimistic and aborts only hopeless runs, except
		// when the trace plunges at an exact rank after a slow start (then
		// the dense path is taken, exact and merely slower).
		if r >= 16 && r&(r-1) == 0 {
			if trHalf > 0 {
				rate := math.Log(trHalf / tr)
				if !(rate > 0) || float64(r)+float64(r/2)*math.Log(tr/tolAbs)/rate > float64(maxRank) {
					return nil, false, nil
				}
			}
			trHalf = tr
		}
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		if tick != nil {
			tick()
		}
		col(p, buf)
		if r > 0 {
			// buf −= L[:, :r]·L[p, :r]ᵀ
			blas64.Gemv(blas.NoTrans, -1,
				blas64.General{Rows: n, Cols: r, Stride: st, Data: l},
				blas64.Vector{N: r, Inc: 1, Data: l[p*st : p*st+r]},
				1, blas64.Vector{N: n, Inc: 1, Data: buf})
		}
		dp := buf[p] // = d[p] up to rounding, computed afresh
		if math.IsNaN(dp) || math.IsInf(dp, 0) {
			return nil, false, errors.New("svmplus: the privileged kernel has non-finite entries")
		}
		if !(dp > 0) {
			// The residual is not numerically positive semi-definite
			// while its trace is still above tolAbs: give up (the dense
			// path handles or reports it).
			return nil, false, nil
		}
		s := math.Sqrt(dp)
		for i := 0; i < n; i++ {
			if done[i] {
				continue
			}
			v := buf[i] / s
			l[i*st+r] = v
			d[i] -= v * v
		}
		l[p*st+r] = s
		d[p], done[p] = 0, true
		r++
	}
	out := mat.NewDense(n, max(r, 1), nil)
	if r > 0 {
		out.Copy(mat.NewDense(n, st, l).Slice(0, n, 0, r))
	}
	return out, true, nil
}

// qlamOptions tune how Qλ is built and served: the low-rank path for
// nonlinear privileged kernels (lowRankPrivileged) and the rows a factor
// keeps (newFactorQlam). The model uses defaultQlamOptions; tests and
// benchmarks pass others.
type qlamOptions struct {
	// lowRankTol bounds the trace of the residual K̃ − LLᵀ of the pivoted
	// Cholesky factor relative to min(trace K̃, n·λ/C); see lowRankPrivileged.
	lowRankTol float64
	// lowRankCap is the rank cap as a fraction of n (0: always the dense
	// path); beyond n/4 columns the dense O(n³) factorisation of eq (5) is
	// about as cheap.
	lowRankCap float64
	// keepRowsFrom: factors with at least this many columns keep the rows
	// of Qλ = VVᵀ they compute (newFactorQlam) rather than recompute them
	// (O(nr) per SMO row).
	keepRowsFrom int
}

// defaultQlamOptions are the model's settings.
func defaultQlamOptions() qlamOptions {
	return qlamOptions{lowRankTol: 1e-12, lowRankCap: 0.25, keepRowsFrom: 48}
}

// epsilon is the float64 machine epsilon.
const epsilon = 0x1p-52

// lowRankPrivileged computes Qλ (eq 5) for a nonlinear privileged kernel
// from a pivoted Cholesky factor K̃ ≈ LLᵀ (n×r) of K̃ = K(z, z') + 1
// (footnote 1), when K̃ is numerically of rank r ≤ n/4. By the Woodbury
// identity, with c = C/λ,
//
//	Qλ = (1/C)(I − (I + cLLᵀ)⁻¹) = (1/C)·c·L(I_r + cLᵀL)⁻¹Lᵀ = L(C·LᵀL + λI)⁻¹Lᵀ,
//
// the linear-kernel factor form of LowRankQLambda with Z̃ = L: Qλ = VVᵀ,
// V = LR⁻¹, RᵀR = C·LᵀL + λI. Cost O(nr² + r³) plus r kernel columns,
// against O(n³) for the dense path.
//
// Accuracy: Qλ is an operator-monotone function of K̃ with slope at most
// 1/λ, so for the positive semi-definite residual E = K̃ − LLᵀ,
// ‖ΔQλ‖_max ≤ ‖ΔQλ‖₂ ≤ ‖E‖₂/λ ≤ trace(E)/λ. The entries of Qλ are at most
// min(1/C, max K̃ᵢᵢ/λ), so stopping at trace(E) ≤ tol·min(trace K̃, n·λ/C)
// bounds the max-abs error relative to that scale by about n·tol (a bound:
// the tests measure ≤ 1e-9 relative), unless the rounding floor 100ε·trace K̃
// is larger.
//
// ok is false (and the caller takes the exact dense path) when the kernel is
// neither RBF nor polynomial (the linear one has its own factor form, the
// sigmoid one need not be positive semi-definite), n < 8, K̃ turns out not to
// be positive semi-definite, or the rank would exceed qo.lowRankCap·n.
func lowRankPrivileged(ctx context.Context, Z *mat.Dense, kz kernel.Kernel, C, lambda float64, qo qlamOptions, tick func()) (*qlam, bool, error) {
	n, _ := Z.Dims()
	maxRank := int(qo.lowRankCap * float64(n))
	if (kz.Kind != kernel.RBF && kz.Kind != kernel.Poly) || maxRank < 2 {
		return nil, false, nil
	}
	sq := make([]float64, n)
	diag := make([]float64, n)
	var tr float64
	for i := range sq {
		zi := Z.RawRowView(i)
		sq[i] = floats.Dot(zi, zi)
		diag[i] = kz.FromDot(sq[i], sq[i], sq[i]) + 1
		if !(diag[i] >= 0) || math.IsInf(diag[i], 0) {
			// Not positive semi-definite (or not finite): let the dense
			// path report it.
			return nil, false, nil
		}
		tr += diag[i]
	}
	col := func(p int, dst []float64) {
		zp := Z.RawRowView(p)
		for i := range dst {
			dst[i] = kz.FromDot(floats.Dot(Z.RawRowView(i), zp), sq[i], sq[p]) + 1
		}
	}
	// The floor 100ε·trace K̃ is the rounding level of the residual
	// diagonal (an exactly low-rank K̃, e.g. a polynomial kernel on few
	// features, leaves that much after its last column).
	tol := math.Max(qo.lowRankTol*math.Min(tr, float64(n)*lambda/C), 100*epsilon*tr)
	L, ok, err := pivotedCholesky(ctx, diag, col, tol, maxRank, tick)
	if err != nil || !ok {
		return nil, false, err
	}
	v, err := LowRankQLambda(L, C, lambda)
	if err != nil {
		return nil, false, err
	}
	_, r := v.Dims()
	return newFactorQlam(v, r, qo.keepRowsFrom), true, nil
}
