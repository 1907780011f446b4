package gsmo

import "container/list"

// Matrix gives access to a symmetric positive semi-definite n×n matrix by
// rows (a kernel matrix). It has the same shape as smo.Matrix so that the
// same adapters serve both solvers.
type Matrix interface {
	Size() int
	Diag(i int) float64
	Row(i int, dst []float64)
}

// rowCache is a least-recently-used cache of matrix rows.
type rowCache struct {
	m     Matrix
	n     int
	cap   int
	rows  map[int]*list.Element
	order *list.List
	full  []float64 // the whole matrix when it fits the budget
}

type cachedRow struct {
	i   int
	row []float64
}

func newRowCache(m Matrix, mb float64) *rowCache {
	n := m.Size()
	if float64(n)*float64(n)*8 <= mb*1024*1024 {
		// Everything fits: compute the whole matrix once and serve rows
		// without bookkeeping.
		full := make([]float64, n*n)
		for i := 0; i < n; i++ {
			m.Row(i, full[i*n:(i+1)*n])
		}
		return &rowCache{m: m, n: n, full: full}
	}
	c := int(mb * 1024 * 1024 / (8 * float64(n+1)))
	if c < 4 {
		c = 4
	}
	if c > n {
		c = n
	}
	return &rowCache{m: m, n: n, cap: c, rows: map[int]*list.Element{}, order: list.New()}
}

// row returns row i; the slice is valid until the next call that misses
// after the cache is full and evicts it, so callers hold at most cap−1 rows.
func (c *rowCache) row(i int) []float64 {
	if c.full != nil {
		return c.full[i*c.n : (i+1)*c.n]
	}
	if e, ok := c.rows[i]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*cachedRow).row
	}
	var r *cachedRow
	if c.order.Len() >= c.cap {
		e := c.order.Back()
		r = e.Value.(*cachedRow)
		delete(c.rows, r.i)
		c.order.Remove(e)
		r.i = i
	} else {
		r = &cachedRow{i: i, row: make([]float64, c.n)}
	}
	c.m.Row(i, r.row)
	c.rows[i] = c.order.PushFront(r)
	return r.row
}

// Dense is a Matrix over a row-major n×n slice.
type Dense struct {
	N    int
	Data []float64
}

// Size implements Matrix.
func (d *Dense) Size() int { return d.N }

// Diag implements Matrix.
func (d *Dense) Diag(i int) float64 { return d.Data[i*d.N+i] }

// Row implements Matrix.
func (d *Dense) Row(i int, dst []float64) { copy(dst, d.Data[i*d.N:(i+1)*d.N]) }
