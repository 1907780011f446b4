package smo

import "unsafe"

// rowCache is an LRU cache of rows of Q indexed by solver position (the
// solver permutes variables while shrinking, as LIBSVM does). A cached row
// holds the entries for positions [0, len(data)); asking for a longer prefix
// computes only the missing tail. The total number of cached float64 entries
// stays within budget (at least two full rows, since the solver holds the
// rows of both working-set variables at once).
type rowCache[T elem] struct {
	budget int // entries
	used   int
	rows   []*centry[T] // by position; nil when not cached
	head   centry[T]    // sentinel of the LRU list: head.next is the least recently used
}

type centry[T elem] struct {
	pos        int
	data       []T
	prev, next *centry[T]
}

func newRowCache[T elem](n int, mb float64) *rowCache[T] {
	var z T
	b := int(mb * (1 << 20) / float64(unsafe.Sizeof(z)))
	if min := 2*n + 16; b < min {
		b = min
	}
	c := &rowCache[T]{budget: b, rows: make([]*centry[T], n)}
	c.head.prev, c.head.next = &c.head, &c.head
	return c
}

func (c *rowCache[T]) unlink(e *centry[T]) {
	e.prev.next = e.next
	e.next.prev = e.prev
}

func (c *rowCache[T]) pushBack(e *centry[T]) {
	e.prev = c.head.prev
	e.next = &c.head
	e.prev.next = e
	c.head.prev = e
}

// get returns the first length entries of row pos, calling fill(pos, from,
// dst) to compute dst[from:] when they are not all cached.
func (c *rowCache[T]) get(pos, length int, fill func(pos, from int, dst []T)) []T {
	e := c.rows[pos]
	if e != nil {
		c.unlink(e)
		if len(e.data) >= length {
			c.pushBack(e)
			return e.data[:length]
		}
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

// swapRows exchanges the rows cached for positions i and j (their
// entries are moved by swapBatch).
func (c *rowCache[T]) swapRows(i, j int) {
	c.rows[i], c.rows[j] = c.rows[j], c.rows[i]
	if c.rows[i] != nil {
		c.rows[i].pos = i
	}
	if c.rows[j] != nil {
		c.rows[j].pos = j
	}
}

// swapBatch applies the position swaps (i < j each, in order) to the
// entries of every cached row: entries i and j are exchanged, and a row that
// covers i but not j is cut back to i. Doing a whole batch row by row keeps
// each row in cache while it is permuted (LIBSVM walks all rows per swap).
func (c *rowCache[T]) swapBatch(sw [][2]int) {
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
