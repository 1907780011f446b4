package kernel

import (
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/model"
)

// Fits on the same data share unsigned rows from the second QMatrix on;
// every entry they serve, signed, shifted and rounded to float32, must be
// bit for bit what a QMatrix without the store computes; other data, other
// kernels and other sizes must start afresh.
func TestSharedRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, d := 40, 7
	X := normalMatrix(rng, n, d)
	signs := func() []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(2*rng.IntN(2) - 1)
		}
		return s
	}
	idx := []int{39, 0, 5, 17, 5, 22}
	for _, k := range []Kernel{{Kind: Linear}, {Kind: RBF, Gamma: 0.3}, {Kind: Poly, Gamma: 0.5, Coef0: 1, Degree: 3}, {Kind: Sigmoid, Gamma: 0.1, Coef0: -1}} {
		ws := model.NewWorkspace()
		first, err := NewQIn(ws, k, X, signs(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if first.store != nil {
			t.Fatalf("%v: the first QMatrix on new data has a store", k)
		}
		for trial := 0; trial < 3; trial++ {
			s, shift := signs(), 0.25*float64(trial)
			q, err := NewQIn(ws, k, X, s, shift)
			if err != nil {
				t.Fatal(err)
			}
			if q.store == nil {
				t.Fatalf("%v: the QMatrix after the first on the same data has no store", k)
			}
			ref := *q
			ref.store, ref.base = nil, nil
			for i := 0; i < n; i += 3 {
				got, want := make([]float64, n), make([]float64, n)
				q.Row(i, got)
				ref.Row(i, want)
				for j := range got {
					if got[j] != want[j] {
						t.Fatalf("%v trial %d: Q[%d][%d] = %v from the store, %v computed", k, trial, i, j, got[j], want[j])
					}
				}
				g32, w32 := make([]float32, len(idx)), make([]float32, len(idx))
				q.SubRow32(i, idx, g32)
				ref.SubRow32(i, idx, w32)
				for t2 := range idx {
					if g32[t2] != w32[t2] {
						t.Fatalf("%v: SubRow32(%d)[%d] = %v from the store, %v computed", k, i, idx[t2], g32[t2], w32[t2])
					}
				}
			}
		}
		// Other data (one entry changed), another kernel, another size.
		X2 := mat.DenseCopyOf(X)
		X2.Set(3, 2, X.At(3, 2)+1e-12)
		for _, c := range []struct {
			name string
			k    Kernel
			x    *mat.Dense
		}{{"changed entry", k, X2}, {"other kernel", Kernel{Kind: RBF, Gamma: 7}, X}, {"fewer rows", k, mat.DenseCopyOf(X.Slice(0, n-1, 0, d))}} {
			ws := model.NewWorkspace()
			if _, err := NewQIn(ws, k, X, nil, 0); err != nil {
				t.Fatal(err)
			}
			q, err := NewQIn(ws, c.k, c.x, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if q.store != nil {
				t.Errorf("%v: %s shares the store of different data", k, c.name)
			}
		}
	}
}

// Two data sets alternate (SVM1+'s X and Z per one-vs-rest task) and
// share; a third evicts the least recently used.
func TestSharedRowsTwoSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	mk := func() *mat.Dense {
		m := mat.NewDense(30, 4, nil)
		for i := 0; i < 30; i++ {
			for j := 0; j < 4; j++ {
				m.Set(i, j, rng.NormFloat64())
			}
		}
		return m
	}
	A, B, C := mk(), mk(), mk()
	k := Kernel{Kind: RBF, Gamma: 1}
	ws := model.NewWorkspace()
	has := func(X *mat.Dense) bool {
		q, err := NewQIn(ws, k, X, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		return q.store != nil
	}
	for step, c := range []struct {
		x    *mat.Dense
		name string
		want bool
	}{{A, "A", false}, {B, "B", false}, {A, "A again", true}, {B, "B again", true}, {C, "C", false}, {B, "B (kept)", true}, {A, "A (evicted by C)", false}} {
		if got := has(c.x); got != c.want {
			t.Errorf("step %d, %s: shared store %v, want %v", step, c.name, got, c.want)
		}
	}
}

// Parallel fits on the same data may compute a row at the same time; all
// get the same entries (go test -race checks the locking).
func TestSharedRowsConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n := 200
	X := mat.NewDense(n, 3, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < 3; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	k := Kernel{Kind: RBF, Gamma: 0.5}
	ws := model.NewWorkspace()
	if _, err := NewQIn(ws, k, X, nil, 0); err != nil {
		t.Fatal(err)
	}
	want := k.Gram(X)
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q, err := NewQIn(ws, k, X, nil, 0)
			if err != nil || q.store == nil {
				errs <- "no shared store"
				return
			}
			row := make([]float64, n)
			for i := 0; i < n; i++ {
				q.Row(i, row)
				for j, v := range row {
					if d := v - want.At(i, j); d > 1e-12 || d < -1e-12 {
						errs <- "entry differs from the Gram matrix"
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// Rows are shared only within a workspace: a second QMatrix on the same
// data in another workspace, or with none, computes its own rows.
func TestSharedRowsPerWorkspace(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	X := mat.NewDense(25, 3, nil)
	for i := 0; i < 25; i++ {
		for j := 0; j < 3; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	k := Kernel{Kind: RBF, Gamma: 0.7}
	shared := func(ws *model.Workspace) bool {
		t.Helper()
		q, err := NewQIn(ws, k, X, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		return q.store != nil
	}
	a, b := model.NewWorkspace(), model.NewWorkspace()
	if shared(a) || shared(b) || shared(nil) || shared(nil) {
		t.Fatal("a first QMatrix in a workspace (or one without) has a store")
	}
	if !shared(a) || !shared(b) {
		t.Fatal("the second QMatrix on the same data in a workspace has no store")
	}
	if q, err := NewQ(k, X, nil, 0); err != nil || q.store != nil {
		t.Fatalf("NewQ shares rows (err %v)", err)
	}
}

// A QMatrix on data its workspace has seen shares their copy, norms and
// index rather than copying them again, whether the data come in the same
// matrix or an equal one; a matrix differing in one entry, or under another
// kernel, gets its own copy, and changing the caller's matrix afterwards
// changes nothing the QMatrix serves.
func TestSharedDataCopy(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	n, d := 30, 4
	X := normalMatrix(rng, n, d)
	k := Kernel{Kind: RBF, Gamma: 0.4}
	ws := model.NewWorkspace()
	first, err := NewQIn(ws, k, X, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, n)
	first.Row(3, want)
	again, err := NewQIn(ws, k, mat.DenseCopyOf(X), nil, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if !sameArray(first.x, again.x) || !sameArray(first.sq, again.sq) || &first.all[0] != &again.all[0] {
		t.Fatal("a QMatrix on data the workspace has seen made its own copy")
	}
	other := mat.DenseCopyOf(X)
	other.Set(n-1, d-1, other.At(n-1, d-1)+1e-12)
	for _, c := range []struct {
		what string
		k    Kernel
		X    *mat.Dense
	}{{"other data", k, other}, {"another kernel", Kernel{Kind: RBF, Gamma: 0.5}, X}} {
		q, err := NewQIn(ws, c.k, c.X, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if sameArray(first.x, q.x) {
			t.Fatalf("%s: shares the copy of different data", c.what)
		}
	}
	X.Set(3, 0, 99)
	got := make([]float64, n)
	again.Row(3, got)
	for j := range got {
		if j != 3 && got[j] != want[j] {
			t.Fatalf("Q[3][%d] = %v after the caller changed its matrix, want %v", j, got[j], want[j])
		}
	}
}

// normalMatrix is an n×d matrix of standard normal draws.
func normalMatrix(rng *rand.Rand, n, d int) *mat.Dense {
	X := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	return X
}
