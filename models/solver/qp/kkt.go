package qp

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"lupilab/models/fastblas"
	"lupilab/models/solver/internal/scratch"
)

// kkt solves the interior-point Newton systems
//
//	[ P  Eᵀ  Gᵀ ] [Δx]   [r1]
//	[ E  0   0  ] [Δy] = [r2]
//	[ G  0  −D  ] [Δz]   [r3]        D = diag(s/z) > 0.
//
// Choice of factorisation. Δz = W(GΔx − r3) with W = D⁻¹ eliminates the
// inequality block and leaves the reduced system
//
//	[ H  Eᵀ ] [Δx]   [r1 + GᵀW r3]
//	[ E  0  ] [Δy] = [r2         ],    H = P + GᵀWG,
//
// which we regularise into the quasi-definite matrix [H+δI, Eᵀ; E, −δ_E I]
// and solve by a Cholesky factorisation of H + δI followed by a Cholesky
// factorisation of the (small, mE×mE) Schur complement E(H+δI)⁻¹Eᵀ + δ_E I.
// We chose this over an LDLᵀ (Bunch–Kaufman) factorisation of the whole
// indefinite (n+mE)-square matrix because (1) gonum's LAPACK has a blocked,
// multi-threaded Cholesky (Dpotrf) but no Bunch–Kaufman (Dsytrf); (2) H is
// positive semidefinite for a convex QP and becomes positive definite with the
// bound/inequality barrier terms or the tiny shift δ, so no pivoting is
// needed; (3) Cholesky costs n³/3 flops, half of LDLᵀ with pivoting, and the
// callers (SVM duals, twin SVMs) have mE ≪ n, so the Schur complement is
// cheap. The error introduced by δ, δ_E is removed by iterative refinement
// against the unregularised reduced system; if H + δI is numerically not
// positive definite (rank-deficient P with free variables, rounding), δ is
// raised by ×100 and the factorisation repeated (the "regularisation
// fallback").
type kkt struct {
	s    *setup
	n, p int

	w   []float64 // z/s per inequality
	sw  []float64 // √w for the A rows
	h   []float64 // n×n: H + δI, then its upper Cholesky factor U (HδI = UᵀU)
	sa  []float64 // mA×n scratch: √W_A·A
	m   []float64 // n×p: U⁻ᵀEᵀ
	sch []float64 // p×p: Schur complement, then its Cholesky factor

	reg, regE   float64 // current δ, δ_E
	reg0, regE0 float64 // base values
	maxDiag     float64 // max diag(H) before δ, of the last buildH

	// tick, if set, runs between the O(n²) steps of solve (progress and
	// cancellation); its first error is kept in tickErr and ends the
	// refinement early. The caller checks tickErr.
	tick    func() error
	tickErr error

	// scratch vectors
	t1, t2, rx, ry, cx, cy, gx, wz []float64
}

func newKKT(s *setup) *kkt {
	n, p := s.n, s.pE
	k := &kkt{s: s, n: n, p: p,
		w:   make([]float64, s.m),
		sw:  make([]float64, s.mA),
		h:   scratch.Floats(n * n),
		sa:  scratch.Floats(s.mA * n),
		m:   scratch.Floats(n * p),
		sch: scratch.Floats(p * p),
		t1:  make([]float64, n), t2: make([]float64, n),
		rx: make([]float64, n), ry: make([]float64, p),
		cx: make([]float64, n), cy: make([]float64, p),
		gx: make([]float64, s.m), wz: make([]float64, s.m),
	}
	scale := 1.0
	if s.p != nil {
		for i := 0; i < n; i++ {
			scale = math.Max(scale, math.Abs(s.p[i*n+i]))
		}
	}
	k.reg0 = 1e-10 * scale
	k.regE0 = 1e-10
	return k
}

// release gives k's large arrays back for the next solve (scratch); k is
// not used afterwards.
func (k *kkt) release() {
	for _, b := range [][]float64{k.h, k.sa, k.m, k.sch} {
		scratch.Put(b)
	}
	k.h, k.sa, k.m, k.sch = nil, nil, nil, nil
}

// factor builds and factorises the reduced system for weights w = z/s.
// It returns false if no regularisation up to a large multiple of the base
// value made the factorisation succeed. tick (may be nil) runs between
// blocks of the O(n³) work; its error aborts the factorisation.
func (k *kkt) factor(w []float64, tick func() error) (bool, error) {
	copy(k.w, w)
	s, n := k.s, k.n
	for i := 0; i < s.mA; i++ {
		k.sw[i] = math.Sqrt(w[i])
	}
	// Regularisation fallback: on failure raise δ by ×100, and at least
	// to 1e-13·max diag(H), since with barrier weights of 1e15 and more the
	// rounding in H is far above the base δ.
	reg := k.reg0
	for attempt := 0; attempt < 8; attempt++ {
		k.reg = reg
		if err := k.buildH(tick); err != nil {
			return false, err
		}
		ok, err := cholUpper(k.h, n, tick)
		if err != nil {
			return false, err
		}
		if ok && (k.p == 0 || k.factorSchur()) {
			return true, nil
		}
		reg = math.Max(100*reg, 1e-13*k.maxDiag)
		if !(reg <= 1e-2*math.Max(1, k.maxDiag)) {
			break
		}
	}
	return false, nil
}

// buildH writes the upper triangle of P + AᵀW_A A + diag(bound weights) + δI
// into k.h.
func (k *kkt) buildH(tick func() error) error {
	s, n := k.s, k.n
	if s.p != nil {
		copy(k.h, s.p)
	} else {
		for i := range k.h {
			k.h[i] = 0
		}
	}
	// AᵀW_A A = Σ over blocks of rows of (√W A)ᵀ(√W A), one Syrk per block.
	H := blas64.Symmetric{N: n, Stride: n, Data: k.h, Uplo: blas.Upper}
	for i0 := 0; i0 < s.mA; i0 += cholBlock {
		i1 := min(i0+cholBlock, s.mA)
		for i := i0; i < i1; i++ {
			row := s.a[i*n : (i+1)*n]
			dst := k.sa[i*n : (i+1)*n]
			f := k.sw[i]
			for j, v := range row {
				dst[j] = f * v
			}
		}
		fastblas.SyrkTUpper(1, blas64.General{Rows: i1 - i0, Cols: n, Stride: n, Data: k.sa[i0*n : i1*n]}, H)
		if tick != nil && n > cholBlock {
			if err := tick(); err != nil {
				return err
			}
		}
	}
	off := s.mA
	for j, i := range s.lo {
		k.h[i*n+i] += k.w[off+j]
	}
	off += len(s.lo)
	for j, i := range s.up {
		k.h[i*n+i] += k.w[off+j]
	}
	k.maxDiag = 0
	for i := 0; i < n; i++ {
		k.maxDiag = math.Max(k.maxDiag, k.h[i*n+i])
		k.h[i*n+i] += k.reg
	}
	return nil
}

// factorSchur forms M = U⁻ᵀEᵀ and factorises S = MᵀM + δ_E I.
func (k *kkt) factorSchur() bool {
	s, n, p := k.s, k.n, k.p
	for i := 0; i < p; i++ {
		for j := 0; j < n; j++ {
			k.m[j*p+i] = s.e[i*n+j]
		}
	}
	U := blas64.Triangular{N: n, Stride: n, Data: k.h, Uplo: blas.Upper, Diag: blas.NonUnit}
	M := blas64.General{Rows: n, Cols: p, Stride: p, Data: k.m}
	fastblas.TrsmLeft(U, true, M)
	regE := k.regE0
	for attempt := 0; attempt < 8; attempt++ {
		k.regE = regE
		S := blas64.Symmetric{N: p, Stride: p, Data: k.sch, Uplo: blas.Upper}
		for i := range k.sch {
			k.sch[i] = 0
		}
		fastblas.SyrkTUpper(1, M, S)
		maxDiag := 0.0
		for i := 0; i < p; i++ {
			maxDiag = math.Max(maxDiag, k.sch[i*p+i])
			k.sch[i*p+i] += regE
		}
		if _, ok := lapack64.Potrf(S); ok {
			return true
		}
		regE = math.Max(100*regE, 1e-13*maxDiag)
	}
	return false
}

// hSolve overwrites v with (H+δI)⁻¹v.
func (k *kkt) hSolve(v []float64) {
	U := blas64.Triangular{N: k.n, Stride: k.n, Data: k.h, Uplo: blas.Upper, Diag: blas.NonUnit}
	vv := blas64.Vector{N: k.n, Inc: 1, Data: v}
	blas64.Trsv(blas.Trans, U, vv)
	blas64.Trsv(blas.NoTrans, U, vv)
}

// solveReg solves the regularised reduced system into dx, dy.
func (k *kkt) solveReg(r1, r2, dx, dy []float64) {
	n, p := k.n, k.p
	copy(dx, r1)
	if p == 0 {
		k.hSolve(dx)
		return
	}
	U := blas64.Triangular{N: n, Stride: n, Data: k.h, Uplo: blas.Upper, Diag: blas.NonUnit}
	// t = U⁻ᵀ r1; then E(H+δ)⁻¹r1 = Mᵀ U⁻¹… use M = U⁻ᵀEᵀ: E(H+δ)⁻¹r1 = Mᵀ(U⁻ᵀ r1).
	blas64.Trsv(blas.Trans, U, blas64.Vector{N: n, Inc: 1, Data: dx})
	M := blas64.General{Rows: n, Cols: p, Stride: p, Data: k.m}
	copy(dy, r2)
	// dy = Mᵀ t − r2
	blas64.Gemv(blas.Trans, 1, M, blas64.Vector{N: n, Inc: 1, Data: dx}, -1, blas64.Vector{N: p, Inc: 1, Data: dy})
	S := blas64.Triangular{N: p, Stride: p, Data: k.sch, Uplo: blas.Upper, Diag: blas.NonUnit}
	dyv := blas64.Vector{N: p, Inc: 1, Data: dy}
	blas64.Trsv(blas.Trans, S, dyv)
	blas64.Trsv(blas.NoTrans, S, dyv)
	// dx = U⁻¹(t − M dy)
	blas64.Gemv(blas.NoTrans, -1, M, dyv, 1, blas64.Vector{N: n, Inc: 1, Data: dx})
	blas64.Trsv(blas.NoTrans, U, blas64.Vector{N: n, Inc: 1, Data: dx})
}

// residual computes (rx, ry) = (r1, r2) − [H Eᵀ; E 0](dx, dy) with the
// unregularised H and returns its ∞-norm.
func (k *kkt) residual(r1, r2, dx, dy []float64) float64 {
	s, n := k.s, k.n
	copy(k.rx, r1)
	if s.p != nil {
		blas64.Gemv(blas.NoTrans, -1, blas64.General{Rows: n, Cols: n, Stride: n, Data: s.p},
			blas64.Vector{N: n, Inc: 1, Data: dx}, 1, blas64.Vector{N: n, Inc: 1, Data: k.rx})
	}
	// GᵀWG dx
	s.gMul(dx, k.gx)
	for i := range k.gx {
		k.gx[i] *= k.w[i]
	}
	s.gTMulAdd(-1, k.gx, k.rx)
	if k.p > 0 {
		s.eTMulAdd(-1, dy, k.rx)
		copy(k.ry, r2)
		s.eMulAdd(-1, dx, k.ry)
	}
	return math.Max(normInf(k.rx), normInf(k.ry))
}

// solve solves the full Newton system for right-hand sides r1 (n), r2 (p),
// r3 (m) into dx, dy, dz.
func (k *kkt) solve(r1, r2, r3, dx, dy, dz []float64) {
	s := k.s
	// r̃1 = r1 + GᵀW r3
	copy(k.t1, r1)
	for i := range r3 {
		k.wz[i] = k.w[i] * r3[i]
	}
	s.gTMulAdd(1, k.wz, k.t1)
	k.solveReg(k.t1, r2, dx, dy)
	// Iterative refinement against the unregularised system; accept a step
	// only when it reduces the residual.
	rhsNorm := math.Max(normInf(k.t1), normInf(r2))
	res := k.residual(k.t1, r2, dx, dy)
	for it := 0; it < 4 && res > 1e-14*(1+rhsNorm); it++ {
		if k.tick != nil && k.tickErr == nil {
			k.tickErr = k.tick()
		}
		if k.tickErr != nil {
			break
		}
		k.solveReg(k.rx, k.ry, k.cx, k.cy)
		copy(k.t2, dx)
		for i := range dx {
			dx[i] += k.cx[i]
		}
		for i := range dy {
			dy[i] += k.cy[i]
		}
		r := k.residual(k.t1, r2, dx, dy)
		if !(r < res) {
			copy(dx, k.t2)
			for i := range dy {
				dy[i] -= k.cy[i]
			}
			break
		}
		stagnating := r > 0.5*res
		res = r
		if stagnating {
			break
		}
	}
	// Δz = W(GΔx − r3)
	s.gMul(dx, dz)
	for i := range dz {
		dz[i] = k.w[i] * (dz[i] - r3[i])
	}
}

func normInf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		if a := math.Abs(x); a > m || math.IsNaN(a) {
			m = a
		}
	}
	return m
}

// gMul computes out = Gx (length m).
func (s *setup) gMul(x, out []float64) {
	n := s.n
	if s.mA > 0 {
		blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: s.mA, Cols: n, Stride: n, Data: s.a},
			blas64.Vector{N: n, Inc: 1, Data: x}, 0, blas64.Vector{N: s.mA, Inc: 1, Data: out[:s.mA]})
	}
	off := s.mA
	for j, i := range s.lo {
		out[off+j] = -x[i]
	}
	off += len(s.lo)
	for j, i := range s.up {
		out[off+j] = x[i]
	}
}

// gTMulAdd computes out += alpha·Gᵀz.
func (s *setup) gTMulAdd(alpha float64, z, out []float64) {
	n := s.n
	if s.mA > 0 {
		blas64.Gemv(blas.Trans, alpha, blas64.General{Rows: s.mA, Cols: n, Stride: n, Data: s.a},
			blas64.Vector{N: s.mA, Inc: 1, Data: z[:s.mA]}, 1, blas64.Vector{N: n, Inc: 1, Data: out})
	}
	off := s.mA
	for j, i := range s.lo {
		out[i] -= alpha * z[off+j]
	}
	off += len(s.lo)
	for j, i := range s.up {
		out[i] += alpha * z[off+j]
	}
}

// eMulAdd computes out += alpha·Ex.
func (s *setup) eMulAdd(alpha float64, x, out []float64) {
	if s.pE == 0 {
		return
	}
	blas64.Gemv(blas.NoTrans, alpha, blas64.General{Rows: s.pE, Cols: s.n, Stride: s.n, Data: s.e},
		blas64.Vector{N: s.n, Inc: 1, Data: x}, 1, blas64.Vector{N: s.pE, Inc: 1, Data: out})
}

// eTMulAdd computes out += alpha·Eᵀy.
func (s *setup) eTMulAdd(alpha float64, y, out []float64) {
	if s.pE == 0 {
		return
	}
	blas64.Gemv(blas.Trans, alpha, blas64.General{Rows: s.pE, Cols: s.n, Stride: s.n, Data: s.e},
		blas64.Vector{N: s.pE, Inc: 1, Data: y}, 1, blas64.Vector{N: s.n, Inc: 1, Data: out})
}

// pMul computes out = Px (zero when P is nil).
func (s *setup) pMul(x, out []float64) {
	if s.p == nil {
		for i := range out {
			out[i] = 0
		}
		return
	}
	blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: s.n, Cols: s.n, Stride: s.n, Data: s.p},
		blas64.Vector{N: s.n, Inc: 1, Data: x}, 0, blas64.Vector{N: s.n, Inc: 1, Data: out})
}
