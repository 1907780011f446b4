package svmplus

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
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
	var ch mat.Cholesky
	if ok := ch.Factorize(a); !ok {
		return nil, errors.New("svmplus: λ/C·I + K̃ is not positive definite: the privileged kernel is not positive semi-definite (the sigmoid kernel often is not)")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, fmt.Errorf("svmplus: inverting λ/C·I + K̃: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Qλ = (1/C)(I − μA⁻¹), in place on the upper triangle of A⁻¹.
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
	return &inv, nil
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
	if err := checkCL(C, lambda); err != nil {
		return nil, err
	}
	n, r := zt.Dims()
	g := mat.NewSymDense(r, nil)
	g.SymOuterK(C, zt.T())
	for i := 0; i < r; i++ {
		g.SetSym(i, i, g.At(i, i)+lambda)
	}
	var ch mat.Cholesky
	if ok := ch.Factorize(g); !ok {
		return nil, errors.New("svmplus: C·Z̃ᵀZ̃ + λI is not positive definite (non-finite privileged features?)")
	}
	v := mat.NewDense(n, r, nil)
	v.Copy(zt)
	u := ch.RawU().(*mat.TriDense).RawTriangular()
	// V = Z̃R⁻¹: solve X·R = Z̃.
	blas64.Trsm(blas.Right, blas.NoTrans, 1, u, v.RawMatrix())
	for _, x := range v.RawMatrix().Data {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, errors.New("svmplus: Qλ factor has non-finite entries")
		}
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
	// full holds both triangles of dense, row-major with stride n, so that
	// rows are contiguous (the upper triangle alone makes half of every row
	// a strided column walk).
	full []float64
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
	r := q.v.RawRowView(i)
	return floats.Dot(r, r)
}

// addRow adds row i of Qλ to dst.
func (q *qlam) addRow(i int, dst []float64) {
	if q.full != nil {
		n := len(dst)
		floats.Add(dst, q.full[i*n:(i+1)*n])
		return
	}
	vi := q.v.RawRowView(i)
	for j := range dst {
		dst[j] += dotSmall(vi, q.v.RawRowView(j))
	}
}

// addSubRow adds Qλ[i][idx[t]] to dst[t].
func (q *qlam) addSubRow(i int, idx []int, dst []float64) {
	if q.full != nil {
		n := q.size()
		row := q.full[i*n : (i+1)*n]
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
	if q.dense != nil {
		var o mat.VecDense
		o.MulVec(q.dense, mat.NewVecDense(n, append([]float64(nil), a...)))
		copy(out, o.RawVector().Data)
		return out
	}
	var t, o mat.VecDense
	t.MulVec(q.v.T(), mat.NewVecDense(n, append([]float64(nil), a...)))
	o.MulVec(q.v, &t)
	copy(out, o.RawVector().Data)
	return out
}

func dotSmall(a, b []float64) float64 {
	if len(a) > 16 {
		return floats.Dot(a, b)
	}
	var s float64
	for k, x := range a {
		s += x * b[k]
	}
	return s
}
