package kernel

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// QMatrix serves rows of Q_ij = s_i s_j K(x_i, x_j) + Shift·[i = j] on demand,
// without forming the n×n matrix: each entry costs one dot product (the
// squared norms ‖x_i‖² are precomputed, so RBF needs no second pass). With
// s = y it is the C-SVM dual matrix yyᵀ∘K; with a shift 1/(2C) it is the
// squared-hinge dual. It implements decomp.Matrix, SubRower and SubRower32
// (lupilab/models/solver/decomp, the SMO solvers' row interface). Row caching
// is the solver's job (decomp.Cache: an LRU cache under a memory budget).
type QMatrix struct {
	k     Kernel
	n, d  int
	x     []float64 // row-major n×d copy of X
	sq    []float64 // ‖x_i‖²
	s     []float64 // signs (nil ⇒ all +1)
	shift float64
	diag  []float64
	all   []int // 0, 1, …, n−1
	// store, when not nil, holds the unsigned rows shared with other
	// fits on the same data in a workspace (shared.go, NewQIn); base is
	// this matrix without signs and shift, which computes them.
	store *rowStore
	base  *QMatrix
}

// NewQ builds the row server for Q = (s sᵀ)∘K(X, X) + shift·I. s may be nil
// (no signs). For the precomputed kind X must be n×n. It shares nothing
// with other fits; NewQIn shares kernel rows through a model.Workspace.
func NewQ(k Kernel, X *mat.Dense, s []float64, shift float64) (*QMatrix, error) {
	return newQ(k, X, s, shift, nil)
}

// newQ is NewQ; when same is not nil it holds exactly X's data (same.x
// equals X row by row), and q shares its copy of them, their norms and
// index instead of making its own.
func newQ(k Kernel, X *mat.Dense, s []float64, shift float64, same *QMatrix) (*QMatrix, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	if X == nil {
		return nil, errors.New("kernel: no data")
	}
	n, d := X.Dims()
	if s != nil && len(s) != n {
		return nil, fmt.Errorf("kernel: %d signs for %d rows", len(s), n)
	}
	if k.Kind == Precomputed && d != n {
		return nil, fmt.Errorf("kernel: a precomputed kernel needs an n×n matrix, got %d×%d", n, d)
	}
	if math.IsNaN(shift) || math.IsInf(shift, 0) {
		return nil, errors.New("kernel: the diagonal shift must be finite")
	}
	q := &QMatrix{k: k, n: n, d: d, s: s, shift: shift, diag: make([]float64, n)}
	if same != nil {
		// checked when same was built (its data are X's)
		q.x, q.sq, q.all = same.x, same.sq, same.all
	} else {
		q.x, q.sq = make([]float64, n*d), make([]float64, n)
		for i := 0; i < n; i++ {
			r := X.RawRowView(i)
			for _, v := range r {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("kernel: row %d holds %v", i+1, v)
				}
			}
			copy(q.x[i*d:(i+1)*d], r)
			q.sq[i] = floats.Dot(r, r)
		}
		q.all = make([]int, n)
		for i := range q.all {
			q.all[i] = i
		}
	}
	one := make([]float64, 1)
	for i := 0; i < n; i++ {
		subRow(q, i, q.all[i:i+1], one)
		q.diag[i] = one[0]
	}
	return q, nil
}

func (q *QMatrix) row(i int) []float64 { return q.x[i*q.d : (i+1)*q.d] }

// entry is s_i s_j K(x_i, x_j) (no shift).
func (q *QMatrix) entry(i, j int) float64 {
	var v float64
	if q.k.Kind == Precomputed {
		v = (q.x[i*q.d+j] + q.x[j*q.d+i]) / 2
	} else {
		v = q.k.fromDot(floats.Dot(q.row(i), q.row(j)), q.sq[i], q.sq[j])
	}
	if q.s != nil {
		v *= q.s[i] * q.s[j]
	}
	return v
}

// Size returns n.
func (q *QMatrix) Size() int { return q.n }

// Diag returns Q_ii.
func (q *QMatrix) Diag(i int) float64 { return q.diag[i] }

// Row writes row i of Q into dst (len n).
func (q *QMatrix) Row(i int, dst []float64) { subRow(q, i, q.all, dst) }

// SubRow writes Q_{i, idx[t]} into dst[t] for every t.
func (q *QMatrix) SubRow(i int, idx []int, dst []float64) { subRow(q, i, idx, dst) }

// SubRow32 is SubRow rounding to float32 (for single-precision row caches).
func (q *QMatrix) SubRow32(i int, idx []int, dst []float32) { subRow(q, i, idx, dst) }

func subRow[T ~float32 | ~float64](q *QMatrix, i int, idx []int, dst []T) {
	if q.store != nil {
		gather(q, i, idx, dst)
		return
	}
	dst = dst[:len(idx)]
	d := q.d
	xi := q.x[i*d : i*d+d : i*d+d]
	sqi := q.sq[i]
	si := 1.0
	if q.s != nil {
		si = q.s[i]
	}
	switch q.k.Kind {
	case RBF:
		g := -q.k.Gamma
		x, sq := q.x, q.sq
		for t, j := range idx {
			off := j * d
			xj := x[off : off+d : off+d]
			var dot float64
			if d <= 32 {
				// two accumulators, bounds checks hoisted (this loop is most
				// of the training time, natively and under WebAssembly)
				xj = xj[:len(xi)]
				var d0, d1 float64
				c := 0
				for ; c+1 < len(xi); c += 2 {
					d0 += xi[c] * xj[c]
					d1 += xi[c+1] * xj[c+1]
				}
				if c < len(xi) {
					d0 += xi[c] * xj[c]
				}
				dot = d0 + d1
			} else {
				dot = floats.Dot(xi, xj)
			}
			dist := sqi + sq[j] - 2*dot
			if dist < 0 {
				dist = 0
			}
			// fastExp inlined by hand (the compiler does not, and calls
			// are costly under WebAssembly)
			x := g * dist
			var v float64
			if x >= -700 {
				kd := x*invLn2N + expShift
				k := int64(math.Float64bits(kd) - math.Float64bits(expShift))
				kd -= expShift
				r := x - kd*ln2NHi - kd*ln2NLo
				r2 := r * r
				p := 1 + r + r2*(0.5+r*(1.0/6)) + r2*r2*(1.0/24+r*(1.0/120))
				v = expTab[k&(expN-1)] * p * math.Float64frombits(uint64(1023+(k>>expBits))<<52)
			} else {
				v = math.Exp(x)
			}
			if q.s != nil {
				v *= si * q.s[j]
			}
			if j == i {
				v += q.shift
			}
			dst[t] = T(v)
		}
	case Linear:
		x := q.x
		for t, j := range idx {
			off := j * d
			xj := x[off : off+d : off+d]
			var v float64
			if d <= 32 {
				// the RBF case's loop, repeated by hand: as a function it
				// costs 150 against Go's inlining budget of 80, so a call
				// per entry (costly under WebAssembly; a linear row is
				// little else)
				xj = xj[:len(xi)]
				var d0, d1 float64
				c := 0
				for ; c+1 < len(xi); c += 2 {
					d0 += xi[c] * xj[c]
					d1 += xi[c+1] * xj[c+1]
				}
				if c < len(xi) {
					d0 += xi[c] * xj[c]
				}
				v = d0 + d1
			} else {
				v = floats.Dot(xi, xj)
			}
			if q.s != nil {
				v *= si * q.s[j]
			}
			if j == i {
				v += q.shift
			}
			dst[t] = T(v)
		}
	case Precomputed:
		for t, j := range idx {
			v := q.entry(i, j)
			if j == i {
				v += q.shift
			}
			dst[t] = T(v)
		}
	default:
		for t, j := range idx {
			v := q.k.fromDot(floats.Dot(xi, q.x[j*d:(j+1)*d]), sqi, q.sq[j])
			if q.s != nil {
				v *= si * q.s[j]
			}
			if j == i {
				v += q.shift
			}
			dst[t] = T(v)
		}
	}
}
