package decomp

import (
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestCache: under random prefix requests, batches of position swaps and
// a budget of a few rows, every row the cache returns equals the matrix
// row under the current permutation, and rows are computed only for the
// entries that were missing; the minRows most recently returned rows stay
// valid while others are asked for.
func TestCache(t *testing.T) {
	const n = 40
	rng := rand.New(rand.NewPCG(1, 2))
	entry := func(i, j int) float64 { return float64(1000*i + j) }
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	computed := 0
	fill := func(pos, from int, dst []float64) {
		for k := from; k < len(dst); k++ {
			dst[k] = entry(perm[pos], perm[k])
			computed++
		}
	}
	for _, minRows := range []int{2, 3} {
		c := NewCache[float64](n, 1e-9, minRows) // the budget is minRows rows
		for step := 0; step < 3000; step++ {
			if step%50 == 49 {
				var sw [][2]int
				for k := 0; k < 3; k++ {
					i := rng.IntN(n - 1)
					j := i + 1 + rng.IntN(n-1-i)
					c.SwapRows(i, j)
					perm[i], perm[j] = perm[j], perm[i]
					sw = append(sw, [2]int{i, j})
				}
				c.SwapBatch(sw)
			}
			held := make([][]float64, minRows)
			pos := make([]int, minRows)
			for h := range held {
				pos[h] = rng.IntN(n)
				length := 1 + rng.IntN(n)
				before := computed
				held[h] = c.Get(pos[h], length, fill)
				if len(held[h]) != length || computed-before > length {
					t.Fatalf("row %d[:%d]: %d entries, %d computed", pos[h], length, len(held[h]), computed-before)
				}
			}
			for h, r := range held {
				for k, v := range r {
					if v != entry(perm[pos[h]], perm[k]) {
						t.Fatalf("minRows %d, step %d: held row %d entry %d = %v, want %v", minRows, step, pos[h], k, v, entry(perm[pos[h]], perm[k]))
					}
				}
			}
		}
	}
}

// TestRows: Rows serves whole rows of a RowMajor matrix, also after
// evictions.
func TestRows(t *testing.T) {
	const n = 9
	m := &RowMajor{N: n, Data: make([]float64, n*n)}
	for i := range m.Data {
		m.Data[i] = float64(i)
	}
	r := NewRows(m, 1e-9, 2)
	for _, i := range []int{3, 5, 3, 8, 0, 5, 3} {
		row := r.Row(i)
		for j, v := range row {
			if v != m.Data[i*n+j] {
				t.Fatalf("row %d entry %d = %v", i, j, v)
			}
		}
	}
}

// A cache whose budget holds every row takes its rows from a pool that
// Release refills: a second cache of the same size after a Release serves
// the right entries while allocating a small part of the rows' bytes.
func TestCacheReleaseReusesRows(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // a GC may empty a sync.Pool
	const n = 300
	use := func(scale float64) {
		c := NewCache[float64](n, 100, 2)
		for i := 0; i < n; i++ {
			r := c.Get(i, n, func(pos, from int, dst []float64) {
				for k := from; k < len(dst); k++ {
					dst[k] = scale * float64(1000*pos+k)
				}
			})
			for k := range r {
				if r[k] != scale*float64(1000*i+k) {
					t.Fatalf("row %d entry %d = %v, want %v", i, k, r[k], scale*float64(1000*i+k))
				}
			}
		}
		c.Release()
	}
	use(1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	use(2)
	runtime.ReadMemStats(&after)
	rows := uint64(n * n * 8)
	if got := after.TotalAlloc - before.TotalAlloc; got > rows/4 {
		t.Fatalf("a second cache allocated %d bytes; its rows are %d bytes", got, rows)
	}
}
