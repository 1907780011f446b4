package twin

import (
	"sort"

	"gonum.org/v1/gonum/mat"
)

// sqDist returns the n×n matrix of squared Euclidean distances between the
// rows of x, computed as ‖xᵢ‖² + ‖xⱼ‖² − 2xᵢ·xⱼ from one matrix product.
//
// Brute force is deliberate: the graphs of eqs (1)-(3)/(7)-(9) need every
// sample's k nearest neighbours within its class and in the other class, at
// n ≈ 400 and up to ~2000 dimensions (paper 001's AwA views have 252 and 2000).
// A k-d tree (gonum/spatial/kdtree) prunes nothing in that many dimensions —
// its bounding-box test fails for almost every node once d ≫ log₂ n — so it
// would visit all points with more overhead; the all-pairs product is one
// BLAS call of n²d flops and is reused for every graph of both problems.
func sqDist(x *mat.Dense) [][]float64 {
	n, _ := x.Dims()
	var g mat.Dense
	g.Mul(x, x.T())
	nr := rowNorms(x)
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, n)
		for j := range out[i] {
			d := nr[i] + nr[j] - 2*g.At(i, j)
			if d < 0 || i == j {
				d = 0
			}
			out[i][j] = d
		}
	}
	return out
}

// nearest returns the k members of cand nearest to row i (excluding i
// itself), ties broken by index. Small k keeps a sorted buffer of k entries
// (O(l·k)); large k sorts all candidates.
func nearest(dist [][]float64, i int, cand []int, k int) []int {
	d := dist[i]
	less := func(a, b int) bool { return d[a] < d[b] || (d[a] == d[b] && a < b) }
	if k > 32 {
		c := make([]int, 0, len(cand))
		for _, j := range cand {
			if j != i {
				c = append(c, j)
			}
		}
		sort.Slice(c, func(a, b int) bool { return less(c[a], c[b]) })
		if k > len(c) {
			k = len(c)
		}
		return c[:k]
	}
	buf := make([]int, 0, k+1)
	for _, j := range cand {
		if j == i || (len(buf) == k && !less(j, buf[k-1])) {
			continue
		}
		p := len(buf)
		if p == k {
			p--
		} else {
			buf = append(buf, 0)
		}
		for p > 0 && less(j, buf[p-1]) {
			buf[p] = buf[p-1]
			p--
		}
		buf[p] = j
	}
	return buf
}

// withinWeights returns dⱼ = Σᵢ W_s,ij for the rows idx of one class
// (eqs 1 and 7): W_s,ij = 1 when xᵢ is among the k nearest neighbours of xⱼ
// within the class or xⱼ among those of xᵢ (i ≠ j). k is capped at the class
// size − 1, so k ≥ class size − 1 gives the complete graph (dⱼ = l − 1).
func withinWeights(dist [][]float64, idx []int, k int) []float64 {
	l := len(idx)
	pos := make(map[int]int, l)
	for a, i := range idx {
		pos[i] = a
	}
	w := make([][]bool, l)
	for a := range w {
		w[a] = make([]bool, l)
	}
	for a, i := range idx {
		for _, j := range nearest(dist, i, idx, k) {
			b := pos[j]
			w[a][b], w[b][a] = true, true
		}
	}
	d := make([]float64, l)
	for a := range w {
		for b := range w[a] {
			if w[a][b] {
				d[a]++
			}
		}
	}
	return d
}

// betweenIndicators returns fⱼ for the rows others (eqs 2-3 and 8-9): fⱼ = 1
// when xⱼ is among the k nearest members of others of at least one row of
// anchors, else 0 (its constraint is redundant and dropped).
func betweenIndicators(dist [][]float64, anchors, others []int, k int) []float64 {
	pos := make(map[int]int, len(others))
	for b, j := range others {
		pos[j] = b
	}
	f := make([]float64, len(others))
	for _, i := range anchors {
		for _, j := range nearest(dist, i, others, k) {
			f[pos[j]] = 1
		}
	}
	return f
}
