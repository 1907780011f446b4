package decomp

import (
	"sync"
	"unsafe"
)

// Elem is the storage type of cached rows: float64, or float32 as in
// LIBSVM (its Qfloat) to halve the cache and the memory traffic.
type Elem interface{ ~float32 | ~float64 }

// Cache is an LRU cache of matrix rows indexed by position under a memory
// budget (LIBSVM's Cache, Chang & Lin 2011, §5.2): rows are computed on
// demand, so that large n never needs an n×n matrix. A solver that
// permutes its variables while shrinking (as LIBSVM does) keeps positions
// and the cache in step with SwapRows and SwapBatch. A cached row holds the
// entries for positions [0, len); asking for a longer prefix computes only
// the missing tail. The number of cached entries stays within the budget,
// which is at least minRows full rows: a solver holds that many rows of one
// cache at once, and a row stays valid until minRows other rows have been
// asked for.
//
// When the budget holds all n rows, nothing is ever evicted, and each row
// is taken whole (n entries) from a pool that Release refills: a program
// that solves many problems in a row (cross-validation, one-vs-rest, an
// experiment's grid) then reuses the same memory instead of asking the
// system for fresh pages each time (page faults were a tenth of a
// jointsvm experiment's time on two workers, docs/PERFORMANCE.md §8).
type Cache[T Elem] struct {
	budget int // entries
	used   int
	n      int
	pool   *sync.Pool   // rows of n entries, when all n rows fit; else nil
	rows   []*centry[T] // by position; nil when not cached
	head   centry[T]    // sentinel of the LRU list: head.next is the least recently used
}

// Row pools by storage type (sync.Pool holds *[]T). Types defined on
// float32 or float64 are not pooled.
var rowPool32, rowPool64 sync.Pool

func rowPool[T Elem]() *sync.Pool {
	switch any(T(0)).(type) {
	case float32:
		return &rowPool32
	case float64:
		return &rowPool64
	}
	return nil
}

type centry[T Elem] struct {
	pos        int
	data       []T
	prev, next *centry[T]
}

// NewCache returns a cache for n rows of n entries within mb MiB (at least
// minRows rows).
func NewCache[T Elem](n int, mb float64, minRows int) *Cache[T] {
	var z T
	b := int(mb * (1 << 20) / float64(unsafe.Sizeof(z)))
	if m := minRows*n + 16; b < m {
		b = m
	}
	c := &Cache[T]{budget: b, n: n, rows: make([]*centry[T], n)}
	if b >= n*n {
		c.pool = rowPool[T]()
	}
	c.head.prev, c.head.next = &c.head, &c.head
	return c
}

// newRow returns a row of the given length whose capacity is all n
// entries, from the pool when it has one large enough.
func (c *Cache[T]) newRow(length int) []T {
	if v, ok := c.pool.Get().(*[]T); ok && cap(*v) >= c.n {
		return (*v)[:length:c.n]
	}
	return make([]T, length, c.n)
}

// Release hands the cached rows back to the pool (when the budget held
// every row) and empties the cache. No row it returned may be used
// afterwards; the cache itself may be used again.
func (c *Cache[T]) Release() {
	for e := c.head.next; e != &c.head; e = e.next {
		if c.pool != nil && cap(e.data) == c.n {
			d := e.data[:0]
			c.pool.Put(&d)
		}
		e.data = nil
		c.rows[e.pos] = nil
	}
	c.head.prev, c.head.next = &c.head, &c.head
	c.used = 0
}

func (c *Cache[T]) unlink(e *centry[T]) {
	e.prev.next = e.next
	e.next.prev = e.prev
}

func (c *Cache[T]) pushBack(e *centry[T]) {
	e.prev = c.head.prev
	e.next = &c.head
	e.prev.next = e
	c.head.prev = e
}

// Get returns the first length entries of row pos, calling fill(pos, from,
// dst) to compute dst[from:] when they are not all cached.
func (c *Cache[T]) Get(pos, length int, fill func(pos, from int, dst []T)) []T {
	e := c.rows[pos]
	if e != nil {
		if len(e.data) >= length {
			if e.next != &c.head { // not already the most recently used
				c.unlink(e)
				c.pushBack(e)
			}
			return e.data[:length]
		}
		c.unlink(e)
	} else {
		e = &centry[T]{pos: pos}
		c.rows[pos] = e
	}
	have := len(e.data)
	if cap(e.data) < length {
		// make room, then grow
		need := length - cap(e.data)
		var reuse []T
		for c.used+need > c.budget && c.head.next != &c.head {
			v := c.head.next
			c.unlink(v)
			c.rows[v.pos] = nil
			c.used -= cap(v.data)
			if reuse == nil && cap(v.data) >= length {
				reuse = v.data
			}
			v.data = nil
		}
		var nd []T
		if reuse != nil {
			nd = reuse[:length]
			c.used += cap(reuse)
		} else if c.pool != nil {
			nd = c.newRow(length)
			c.used += cap(nd)
		} else {
			nd = make([]T, length)
			c.used += length
		}
		copy(nd, e.data[:have])
		c.used -= cap(e.data)
		e.data = nd
	} else {
		e.data = e.data[:length]
	}
	fill(pos, have, e.data)
	c.pushBack(e)
	return e.data
}

// SwapRows exchanges the rows cached for positions i and j (their
// entries are moved by SwapBatch).
func (c *Cache[T]) SwapRows(i, j int) {
	c.rows[i], c.rows[j] = c.rows[j], c.rows[i]
	if c.rows[i] != nil {
		c.rows[i].pos = i
	}
	if c.rows[j] != nil {
		c.rows[j].pos = j
	}
}

// SwapBatch applies the position swaps (i < j each, in order) to the
// entries of every cached row: entries i and j are exchanged, and a row that
// covers i but not j is cut back to i. Doing a whole batch row by row keeps
// each row in cache while it is permuted (LIBSVM walks all rows per swap).
// It must run before the next Get after SwapRows.
func (c *Cache[T]) SwapBatch(sw [][2]int) {
	if len(sw) == 0 {
		return
	}
	for e := c.head.next; e != &c.head; e = e.next {
		d := e.data
		n := len(d)
		for _, p := range sw {
			i, j := p[0], p[1]
			if n > i {
				if n > j {
					d[i], d[j] = d[j], d[i]
				} else {
					n = i
				}
			}
		}
		if n != len(d) {
			e.data = d[:n]
		}
	}
}
