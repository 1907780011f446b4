package decomp

import "gonum.org/v1/gonum/mat"

// Matrix serves the rows of a symmetric n×n matrix on demand (a kernel
// matrix or a dual's Hessian): the one row interface of the SMO-type
// solvers and their adapters (kernel.QMatrix and the models' matrices).
type Matrix interface {
	Size() int
	Diag(i int) float64
	// Row writes row i into dst (len Size()).
	Row(i int, dst []float64)
}

// SubRower is optionally implemented by a Matrix that can compute selected
// entries of a row: dst[t] = Q[i][idx[t]]. A solver then computes only the
// entries of active (unshrunk) variables, as LIBSVM does.
type SubRower interface {
	SubRow(i int, idx []int, dst []float64)
}

// SubRower32 is SubRower rounding to float32, for a single-precision
// cache (LIBSVM's Qfloat).
type SubRower32 interface {
	SubRow32(i int, idx []int, dst []float32)
}

// Factored is optionally implemented by a Matrix that is exactly WWᵀ for an
// n×k factor W of small rank k (SVM2+ with linear kernels: W = [y∘X, V],
// k = d + rank Qλ). A Newton polish then forms a face's Hessian by one
// rank-k update and changes the gradient by W(W_Fᵀ Δα_F), computing no
// row.
type Factored interface {
	// Factor returns W (n×k), or nil when the matrix has none.
	Factor() *mat.Dense
}

// DenseMatrix adapts a dense symmetric matrix to Matrix (and SubRower).
type DenseMatrix struct{ S *mat.SymDense }

// Dense wraps s as a Matrix.
func Dense(s *mat.SymDense) DenseMatrix { return DenseMatrix{S: s} }

// Size returns n.
func (d DenseMatrix) Size() int { return d.S.SymmetricDim() }

// Diag returns Q_ii.
func (d DenseMatrix) Diag(i int) float64 { return d.S.At(i, i) }

// Row copies row i.
func (d DenseMatrix) Row(i int, dst []float64) {
	raw := d.S.RawSymmetric()
	n := raw.N
	for j := 0; j < i; j++ {
		dst[j] = raw.Data[j*raw.Stride+i]
	}
	copy(dst[i:n], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
}

// SubRow writes Q[i][idx[t]] into dst[t].
func (d DenseMatrix) SubRow(i int, idx []int, dst []float64) {
	raw := d.S.RawSymmetric()
	for t, j := range idx {
		if j >= i {
			dst[t] = raw.Data[i*raw.Stride+j]
		} else {
			dst[t] = raw.Data[j*raw.Stride+i]
		}
	}
}

// RowMajor is a Matrix over a row-major n×n slice holding both triangles.
type RowMajor struct {
	N    int
	Data []float64
}

// Size returns n.
func (d *RowMajor) Size() int { return d.N }

// Diag returns Q_ii.
func (d *RowMajor) Diag(i int) float64 { return d.Data[i*d.N+i] }

// Row copies row i.
func (d *RowMajor) Row(i int, dst []float64) { copy(dst, d.Data[i*d.N:(i+1)*d.N]) }

// Rows serves the whole rows of m through a cache of at least minRows rows
// within mb MiB, for solvers that do not permute their variables.
type Rows struct {
	m     Matrix
	n     int
	cache *Cache[float64]
	fill  func(pos, from int, dst []float64)
	tmp   []float64
}

// NewRows returns the row server of m.
func NewRows(m Matrix, mb float64, minRows int) *Rows {
	n := m.Size()
	r := &Rows{m: m, n: n, cache: NewCache[float64](n, mb, minRows)}
	r.fill = r.compute
	return r
}

// Row returns row i of the matrix, valid until minRows other rows have
// been asked for.
func (r *Rows) Row(i int) []float64 { return r.cache.Get(i, r.n, r.fill) }

func (r *Rows) compute(pos, from int, dst []float64) {
	if from == 0 {
		r.m.Row(pos, dst)
		return
	}
	if r.tmp == nil {
		r.tmp = make([]float64, r.n)
	}
	r.m.Row(pos, r.tmp)
	copy(dst[from:], r.tmp[from:len(dst)])
}
