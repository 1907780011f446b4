package kernel

import (
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/model"
)

// Shared rows. Fits on the same data ask for the same kernel rows: the k
// tasks of a one-vs-rest multi-class fit, and every point of a grid over C
// (or λ) on one training set. Only the signs sᵢsⱼ and the diagonal shift
// differ between them. NewQIn therefore keeps, in the caller's
// model.Workspace, the unsigned rows K(xᵢ, ·) of the last data sets
// (sharedSets of them, least recently used out): a row is computed in full
// once, on first demand, and every later QMatrix of that workspace on the
// same data, kernel and size gathers its entries from it. The data are
// compared exactly, not by a hash.
//
// The store starts with the second QMatrix on the same data. A single fit
// never uses one: computing whole rows where a shrunk SMO needs a few
// entries, and copying them out, made a single RBF fit 13–20 % slower
// (n = 1000 and 2000, go test -bench Train ./models/svm/). Sizes above
// sharedMaxN keep computing their rows (the store would hold up to n²
// float64s: 33.5 MB at n = 2048).
const sharedMaxN = 2048

// sharedSets is how many data sets a workspace keeps rows for (the most
// recently used ones): two, for models with two kernel matrices per fit
// (SVM1+'s K on X and K̃ on Z, the two views of SVM-2K).
const sharedSets = 2

// rowStore keeps the computed rows of K(X, X) for one data set.
type rowStore struct {
	mu   sync.Mutex
	rows [][]float64 // nil until first asked for
}

// sharedSet is one data set seen by NewQIn.
type sharedSet struct {
	base QMatrix   // the data and kernel (no signs, no shift)
	s    *rowStore // nil until a second QMatrix on these data
}

// sharedStore is a workspace's kernel rows: the data sets it has seen,
// most recently used first, at most sharedSets.
type sharedStore struct {
	sync.Mutex
	sets []*sharedSet
}

// storeKey is the workspace slot of the kernel rows.
type storeKey struct{}

// NewQIn is NewQ sharing rows with the other QMatrix values built in ws on
// the same data and kernel (see above); a nil ws shares nothing, as NewQ.
func NewQIn(ws *model.Workspace, k Kernel, X *mat.Dense, s []float64, shift float64) (*QMatrix, error) {
	st := model.WorkspaceSlot(ws, storeKey{}, func() *sharedStore { return &sharedStore{} })
	// A QMatrix on data the workspace has seen shares their copy (the
	// copies were half of what a jointsvm experiment allocated).
	q, err := newQ(k, X, s, shift, st.seen(k, X))
	if err != nil {
		return nil, err
	}
	if q.store = st.rows(q); q.store != nil {
		q.base = &QMatrix{k: q.k, n: q.n, d: q.d, x: q.x, sq: q.sq, all: q.all}
	}
	return q, nil
}

// seen returns the base matrix of the data set equal to X under kernel k,
// or nil.
func (st *sharedStore) seen(k Kernel, X *mat.Dense) *QMatrix {
	if st == nil || X == nil || k.Kind == Precomputed {
		return nil
	}
	n, d := X.Dims()
	if n > sharedMaxN || n < 2 {
		return nil
	}
	st.Lock()
	defer st.Unlock()
	for _, e := range st.sets {
		if b := &e.base; b.k == k && b.n == n && b.d == d && equalRows(b.x, X) {
			return b
		}
	}
	return nil
}

// equalRows reports whether x holds X's rows, row-major.
func equalRows(x []float64, X *mat.Dense) bool {
	n, d := X.Dims()
	for i := 0; i < n; i++ {
		if !slices.Equal(x[i*d:(i+1)*d], X.RawRowView(i)) {
			return false
		}
	}
	return true
}

// rows returns the store for q's data and kernel: nil the first time q's
// data are seen (the least recently used set is then forgotten), the
// shared store from the second time on; nil when q cannot use one or st is
// nil.
func (st *sharedStore) rows(q *QMatrix) *rowStore {
	if st == nil || q.k.Kind == Precomputed || q.n > sharedMaxN || q.n < 2 {
		return nil
	}
	st.Lock()
	defer st.Unlock()
	for i, e := range st.sets {
		b := &e.base
		if b.k == q.k && b.n == q.n && b.d == q.d && (sameArray(b.x, q.x) || slices.Equal(b.x, q.x)) {
			copy(st.sets[1:i+1], st.sets[:i])
			st.sets[0] = e
			if e.s == nil {
				e.s = &rowStore{rows: make([][]float64, q.n)}
			}
			return e.s
		}
	}
	e := &sharedSet{base: QMatrix{k: q.k, n: q.n, d: q.d, x: q.x, sq: q.sq, all: q.all}}
	if len(st.sets) < sharedSets {
		st.sets = append(st.sets, nil)
	}
	copy(st.sets[1:], st.sets)
	st.sets[0] = e
	return nil
}

// row returns the unsigned row K(xᵢ, x_j), j = 0…n−1, computing it from
// base on first use (outside the lock: fits running in parallel on the
// same data do not wait for each other's rows).
func (s *rowStore) row(base *QMatrix, i int) []float64 {
	s.mu.Lock()
	r := s.rows[i]
	s.mu.Unlock()
	if r != nil {
		return r
	}
	r = make([]float64, base.n)
	subRow(base, i, base.all, r)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rows[i] == nil {
		s.rows[i] = r
	}
	return s.rows[i]
}

// gather writes s_i s_j K(xᵢ, x_j) (+ shift on the diagonal) for j in idx
// from the shared row, rounding once, as subRow does.
func gather[T ~float32 | ~float64](q *QMatrix, i int, idx []int, dst []T) {
	row := q.store.row(q.base, i)
	dst = dst[:len(idx)]
	si := 1.0
	if q.s != nil {
		si = q.s[i]
	}
	for t, j := range idx {
		v := row[j]
		if q.s != nil {
			v *= si * q.s[j]
		}
		if j == i {
			v += q.shift
		}
		dst[t] = T(v)
	}
}

// sameArray reports whether a and b are the same slice of one array.
func sameArray(a, b []float64) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
