package kernel

import (
	"slices"
	"sync"
)

// Shared rows. Fits on the same data ask for the same kernel rows: the k
// tasks of a one-vs-rest or one-vs-one multi-class fit, and every point of
// a grid over C (or λ) on one training set. Only the signs sᵢsⱼ and the
// diagonal shift differ between them. NewQ therefore keeps, process-wide,
// the unsigned rows K(xᵢ, ·) of the last data sets (sharedSets of them,
// least recently used out): a row is computed in full once, on first demand,
// and every later QMatrix on the same data, kernel and size gathers its
// entries from it. The data are compared exactly, not by a hash.
//
// The store starts with the second QMatrix on the same data. A single fit
// never uses one: computing whole rows where a shrunk SMO needs a few
// entries, and copying them out, made a single RBF fit 13–20 % slower
// (n = 1000 and 2000, go test -bench Train ./models/svm/). Sizes above
// sharedMaxN keep computing their rows (the store would hold up to n²
// float64s: 33.5 MB at n = 2048).
const sharedMaxN = 2048

// sharedSets is how many data sets the store keeps rows for (the most
// recently used ones): two, for models with two kernel matrices per fit
// (SVM1+'s K on X and K̃ on Z, the two views of SVM-2K).
const sharedSets = 2

// rowStore keeps the computed rows of K(X, X) for one data set.
type rowStore struct {
	mu   sync.Mutex
	rows [][]float64 // nil until first asked for
}

// sharedSet is one data set seen by NewQ.
type sharedSet struct {
	base QMatrix   // the data and kernel (no signs, no shift)
	s    *rowStore // nil until a second QMatrix on these data
}

var shared struct {
	sync.Mutex
	sets []*sharedSet // most recently used first, at most sharedSets
}

// sharedRows returns the store for q's data and kernel: nil the first
// time q's data are seen (the least recently used set is then forgotten),
// the shared store from the second time on; nil when q cannot use one.
func sharedRows(q *QMatrix) *rowStore {
	if q.k.Kind == Precomputed || q.n > sharedMaxN || q.n < 2 {
		return nil
	}
	shared.Lock()
	defer shared.Unlock()
	for i, e := range shared.sets {
		b := &e.base
		if b.k == q.k && b.n == q.n && b.d == q.d && slices.Equal(b.x, q.x) {
			copy(shared.sets[1:i+1], shared.sets[:i])
			shared.sets[0] = e
			if e.s == nil {
				e.s = &rowStore{rows: make([][]float64, q.n)}
			}
			return e.s
		}
	}
	e := &sharedSet{base: QMatrix{k: q.k, n: q.n, d: q.d, x: q.x, sq: q.sq, all: q.all}}
	if len(shared.sets) < sharedSets {
		shared.sets = append(shared.sets, nil)
	}
	copy(shared.sets[1:], shared.sets)
	shared.sets[0] = e
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

// ResetShared forgets the shared rows (benchmarks time fits afresh).
func ResetShared() {
	shared.Lock()
	shared.sets = nil
	shared.Unlock()
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
