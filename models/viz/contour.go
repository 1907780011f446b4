package viz

import (
	"errors"
	"fmt"
	"math"
)

// Path is one iso-line: a polyline in data coordinates (x, y), closed when
// its last point joins its first (the first point is then not repeated).
// Paths are oriented: walking along one, values above the level lie on the
// left (x to the right, y up), so a closed path around a maximum runs
// counter-clockwise.
type Path struct {
	Points [][2]float64
	Closed bool
}

// Contours traces the iso-line values = level of a surface sampled on g
// (values[j·W + i] at the centre of pixel (i, j), row 0 at the top, as
// Points lays them out) by marching squares with linear interpolation, and
// returns it as maximal connected paths in data coordinates.
//
// The lattice is the W×H pixel centres, so the lines cover the rectangle
// between the outermost centres (half a pixel short of the grid's edges). A
// node counts as above the level when its value is > level and as below
// otherwise (a value equal to the level is below; the line then passes
// through the node). Each cell edge with one node above and one below is cut
// once, at the linear interpolate of its two values; the point is computed
// from the edge alone, so neighbouring cells share it exactly and the
// segments join into continuous paths: open ones end on the lattice's
// border, closed ones are loops.
//
// Saddles (a cell whose diagonal corners are above and the other two below)
// are resolved by the asymptotic decider (Nielson & Hamann 1991): the value
// of the cell's bilinear interpolant at its saddle point,
// (v₀₀v₁₁ − v₁₀v₀₁)/(v₀₀ + v₁₁ − v₁₀ − v₀₁) with v₀₀, v₁₁ one diagonal,
// decides which diagonal is connected: above the level, the two above corners
// are joined and the lines cut off the below ones; otherwise the below
// corners are joined. The traced topology is thus that of the bilinear
// interpolant of the samples (the smooth heat map's), and is the same
// whichever way the grid is walked.
//
// values must have W·H finite entries and level must be finite (the grid
// evaluators refuse NaN); otherwise Contours returns an error.
func Contours(g Grid, values []float64, level float64) ([]Path, error) {
	if err := checkContourInput(g, values, level); err != nil {
		return nil, err
	}
	w, h := g.W, g.H
	xs, ys := g.axes()
	// Edge ids: horizontal edge (i,j)–(i+1,j) is j·(W−1)+i; vertical edge
	// (i,j)–(i,j+1) is H·(W−1) + j·W + i.
	nh := h * (w - 1)
	hEdge := func(i, j int) int { return j*(w-1) + i }
	vEdge := func(i, j int) int { return nh + j*w + i }
	next := make([]int32, nh+(h-1)*w)
	for k := range next {
		next[k] = -1
	}
	hasPrev := make([]bool, len(next))
	above := func(v float64) bool { return v > level }
	for j := 0; j+1 < h; j++ {
		for i := 0; i+1 < w; i++ {
			// Corners counter-clockwise in data coordinates (y up, so the
			// lower row j+1 comes first): d, c, b, a; edge k joins corner k
			// and corner k+1.
			v := [4]float64{values[(j+1)*w+i], values[(j+1)*w+i+1], values[j*w+i+1], values[j*w+i]}
			e := [4]int{hEdge(i, j+1), vEdge(i+1, j), hEdge(i, j), vEdge(i, j)}
			var up [4]bool
			n := 0
			for k, x := range v {
				up[k] = above(x)
				if up[k] {
					n++
				}
			}
			if n == 0 || n == 4 {
				continue
			}
			link := func(from, to int) {
				next[e[from]] = int32(e[to])
				hasPrev[e[to]] = true
			}
			if n == 2 && up[0] == up[2] { // saddle
				// Asymptotic decider on the bilinear interpolant.
				s := (v[0]*v[2] - v[1]*v[3]) / (v[0] + v[2] - v[1] - v[3])
				joinUp := above(s) == up[0] // the diagonal (0, 2) is joined
				for k := 0; k < 4; k++ {
					// Cut off the corners of the diagonal that is not joined:
					// around an above corner go from edge k to edge k−1,
					// around a below corner from edge k−1 to edge k.
					cut := (k%2 == 0) != joinUp
					if !cut {
						continue
					}
					if up[k] {
						link(k, (k+3)%4)
					} else {
						link((k+3)%4, k)
					}
				}
				continue
			}
			// One run of above corners s..t (cyclic): from edge t to edge s−1.
			s := 0
			for !up[s] || up[(s+3)%4] { // s: an above corner after a below one
				s++
			}
			t := s
			for up[(t+1)%4] {
				t = (t + 1) % 4
			}
			link(t, (s+3)%4)
		}
	}
	point := func(edge int) [2]float64 {
		var i0, j0, i1, j1 int
		if edge < nh {
			j0, i0 = edge/(w-1), edge%(w-1)
			i1, j1 = i0+1, j0
		} else {
			k := edge - nh
			j0, i0 = k/w, k%w
			i1, j1 = i0, j0+1
		}
		a, b := values[j0*w+i0], values[j1*w+i1]
		t := (level - a) / (b - a)
		return [2]float64{xs[i0] + t*(xs[i1]-xs[i0]), ys[j0] + t*(ys[j1]-ys[j0])}
	}
	var paths []Path
	visited := make([]bool, len(next))
	walk := func(start int) Path {
		var p Path
		for k := start; k >= 0 && !visited[k]; k = int(next[k]) {
			visited[k] = true
			pt := point(k)
			if n := len(p.Points); n == 0 || p.Points[n-1] != pt {
				p.Points = append(p.Points, pt)
			}
		}
		return p
	}
	for k := range next { // open paths start at an edge nothing leads to
		if next[k] >= 0 && !hasPrev[k] {
			paths = append(paths, walk(k))
		}
	}
	for k := range next { // what is left are loops
		if next[k] >= 0 && !visited[k] {
			p := walk(k)
			if n := len(p.Points); n > 1 && p.Points[n-1] == p.Points[0] {
				p.Points = p.Points[:n-1]
			}
			p.Closed = true
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// Style is how a contour level is drawn.
type Style int

// Line styles of the standard levels.
const (
	Solid  Style = iota // the decision boundary
	Dashed              // margins
	Dotted              // optional guide levels (probabilities 0.1 and 0.9)
)

// Level is one iso-line to draw on a layer.
type Level struct {
	Value    float64
	Style    Style
	Label    string
	Optional bool // a guide the UI may hide by default
}

// Kind says what a layer's values are, and so which levels are standard.
type Kind int

// Layer kinds.
const (
	// KindDecision: an SVM-type decision value; boundary 0, margins ±1.
	KindDecision Kind = iota
	// KindScore: a signed score whose 0 level is the boundary but whose ±1
	// levels mean nothing (twin SVMs' distance differences, the joint SVM's
	// per-tag max-marginals, GP latent means).
	KindScore
	// KindProbability: P(class 1); boundary 0.5, optional guides 0.1, 0.9.
	KindProbability
	// KindPlane: a twin SVM's signed distance to one proximal surface,
	// (ω·φ(x) + b)/‖ω‖; the surface is its 0 level.
	KindPlane
	// KindVariance: a GP's latent predictive variance (no standard level).
	KindVariance
	// KindEntropy: the predictive entropy in bits, in [0, 1] (no standard level).
	KindEntropy
)

// Levels returns the standard iso-lines of a layer kind: decision 0 solid
// and ±1 dashed; probability 0.5 solid and 0.1, 0.9 dotted (optional);
// scores and twin planes 0 solid; none for variances and entropies.
func Levels(k Kind) []Level {
	switch k {
	case KindDecision:
		return []Level{{Value: 0, Style: Solid, Label: "boundary"},
			{Value: -1, Style: Dashed, Label: "margin −1"}, {Value: 1, Style: Dashed, Label: "margin +1"}}
	case KindScore:
		return []Level{{Value: 0, Style: Solid, Label: "boundary"}}
	case KindProbability:
		return []Level{{Value: 0.5, Style: Solid, Label: "p = 0.5"},
			{Value: 0.1, Style: Dotted, Label: "p = 0.1", Optional: true}, {Value: 0.9, Style: Dotted, Label: "p = 0.9", Optional: true}}
	case KindPlane:
		return []Level{{Value: 0, Style: Solid, Label: "proximal surface"}}
	}
	return nil
}

// BoundaryLayer returns the layer and level whose iso-line is the surface's
// decision boundary: for GP surfaces the latent mean's 0 level — the same
// line as p = 0.5 (p − ½ has the mean's sign), traced far more accurately
// because the mean is smoother than a steep probability — and otherwise the
// first layer's standard solid level. nil when the surface has no layers.
func BoundaryLayer(s *Surface) (*Layer, float64) {
	if l := s.Layer(LayerMean); l != nil {
		return l, 0
	}
	if len(s.Layers) == 0 {
		return nil, 0
	}
	l := &s.Layers[0]
	if lv := Levels(l.Kind); len(lv) > 0 {
		return l, lv[0].Value
	}
	return l, 0
}

// checkContourInput refuses a grid smaller than 2×2, a value count other
// than W·H, and a non-finite level or value.
func checkContourInput(g Grid, values []float64, level float64) error {
	w, h := g.W, g.H
	if w < 2 || h < 2 {
		return fmt.Errorf("viz: contours need a grid of at least 2×2, got %d×%d", w, h)
	}
	if len(values) != w*h {
		return fmt.Errorf("viz: %d values for a %d×%d grid", len(values), w, h)
	}
	if math.IsNaN(level) || math.IsInf(level, 0) {
		return fmt.Errorf("viz: contour level %v", level)
	}
	for _, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errors.New("viz: contours of a surface with NaN or infinite values")
		}
	}
	return nil
}
