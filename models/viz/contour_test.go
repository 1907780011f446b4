package viz

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sample evaluates f at the grid's pixel centres.
func sample(g Grid, f func(x, y float64) float64) []float64 {
	xs, ys := g.axes()
	v := make([]float64, g.W*g.H)
	for j, y := range ys {
		for i, x := range xs {
			v[j*g.W+i] = f(x, y)
		}
	}
	return v
}

// interpBound is the largest |f| at a traced point of a function whose
// Hessian has spectral norm ≤ m2 (see TestContoursCircle).
func interpBound(g Grid, m2 float64) float64 {
	dx := (g.XMax - g.XMin) / float64(g.W)
	dy := (g.YMax - g.YMin) / float64(g.H)
	return (math.Max(dx, dy)*math.Max(dx, dy) + dx*dx + dy*dy) / 8 * m2
}

// along returns points spread along every segment of the paths (both ends
// and three inner points).
func along(paths []Path) [][2]float64 {
	var out [][2]float64
	for _, p := range paths {
		n := len(p.Points)
		segs := n - 1
		if p.Closed {
			segs = n
		}
		for k := 0; k < segs; k++ {
			a, b := p.Points[k], p.Points[(k+1)%n]
			for _, s := range []float64{0, 0.25, 0.5, 0.75} {
				out = append(out, [2]float64{a[0] + s*(b[0]-a[0]), a[1] + s*(b[1]-a[1])})
			}
		}
		if !p.Closed {
			out = append(out, p.Points[n-1])
		}
	}
	return out
}

func signedArea(p Path) float64 {
	a := 0.0
	n := len(p.Points)
	for k := range p.Points {
		q, r := p.Points[k], p.Points[(k+1)%n]
		a += q[0]*r[1] - r[0]*q[1]
	}
	return a / 2
}

// A circle x² + y² = R²: one closed path, every traced point within the
// interpolation bound, oriented clockwise (the values above the level,
// outside, on the left).
//
// The bound: a traced vertex p is the zero of the linear interpolant of f
// along a cell edge of length h, so |f(p)| ≤ h²/8·max|f”| there; a point q
// on a segment between two vertices of one cell (length ≤ the cell's
// diagonal d) is off their linear interpolant by at most d²/8·‖∇²f‖. So
// |f(q)| ≤ (max(dx, dy)² + dx² + dy²)/8 · M₂ with M₂ a bound on the Hessian's
// spectral norm (2 for this circle).
func TestContoursCircle(t *testing.T) {
	for _, c := range []struct {
		w, h int
		r    float64
	}{{100, 100, 1.3}, {37, 53, 0.9}, {200, 120, 1.7}} {
		g := Grid{XMin: -2, XMax: 2, YMin: -2.2, YMax: 1.9, W: c.w, H: c.h}
		f := func(x, y float64) float64 { return x*x + y*y - c.r*c.r }
		paths, err := Contours(g, sample(g, f), 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) != 1 || !paths[0].Closed {
			t.Fatalf("%d×%d: %d paths (closed %v), want one closed", c.w, c.h, len(paths), len(paths) > 0 && paths[0].Closed)
		}
		bound := interpBound(g, 2)
		worst := 0.0
		for _, q := range along(paths) {
			worst = math.Max(worst, math.Abs(f(q[0], q[1])))
		}
		if worst > bound {
			t.Errorf("%d×%d: |f| up to %.3g on the traced circle, bound %.3g", c.w, c.h, worst, bound)
		}
		if a := signedArea(paths[0]); !(a < 0) || math.Abs(-a-math.Pi*c.r*c.r) > 0.01*math.Pi*c.r*c.r {
			t.Errorf("%d×%d: signed area %.4g, want ≈ −πR² = %.4g", c.w, c.h, a, -math.Pi*c.r*c.r)
		}
		t.Logf("%d×%d: %d points, worst |f| %.3g (bound %.3g)", c.w, c.h, len(paths[0].Points), worst, bound)
	}
}

// A linear function's iso-line is traced exactly (linear interpolation is
// exact): one open path from border to border on the line.
func TestContoursLinear(t *testing.T) {
	g := Grid{XMin: -1, XMax: 3, YMin: -2, YMax: 2, W: 61, H: 47}
	f := func(x, y float64) float64 { return 0.7*x - 1.3*y + 0.2 }
	for _, level := range []float64{0, 0.9, -1.4} {
		paths, err := Contours(g, sample(g, f), level)
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) != 1 || paths[0].Closed {
			t.Fatalf("level %g: %d paths, want one open", level, len(paths))
		}
		for _, q := range along(paths) {
			if d := math.Abs(f(q[0], q[1]) - level); d > 1e-12 {
				t.Fatalf("level %g: point %v off the line by %g", level, q, d)
			}
		}
		// Higher values (lower-right) on the left of the direction of travel.
		p := paths[0].Points
		a, b := p[0], p[len(p)-1]
		if !(f(a[0]+(b[1]-a[1]), a[1]-(b[0]-a[0])) < level) { // right-hand normal: lower values
			t.Errorf("level %g: path runs with the higher values on its right", level)
		}
	}
}

// The saddle x·y: the level-0 lines are the axes. x·y is bilinear, so the
// traced points lie exactly on them; the centre cell is a saddle whose
// bilinear saddle value is 0 = level, so the asymptotic
// decider's choice rests on rounding; either way the lines are two open
// L-shaped paths, each turning across the saddle cell. At level 0.3
// the hyperbola's two branches are traced exactly, one path each.
func TestContoursSaddle(t *testing.T) {
	g := Grid{XMin: -1.05, XMax: 0.95, YMin: -0.97, YMax: 1.03, W: 40, H: 40}
	f := func(x, y float64) float64 { return x * y }
	v := sample(g, f)
	paths, err := Contours(g, v, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 {
		t.Fatalf("%d paths at level 0, want 2", len(paths))
	}
	for _, p := range paths {
		if p.Closed {
			t.Error("closed path through a saddle")
		}
		onX, onY := false, false
		for _, q := range p.Points {
			if math.Abs(q[0]*q[1]) > 1e-12 {
				t.Fatalf("point %v off the axes", q)
			}
			onX = onX || math.Abs(q[1]) < 1e-12
			onY = onY || math.Abs(q[0]) < 1e-12
		}
		// Each L runs along both axes (its turn is a chord across the saddle
		// cell) and keeps an above quadrant (x·y > 0) on its left.
		if !onX || !onY {
			t.Errorf("path starting %v is not L-shaped", p.Points[0])
		}
		a, b := p.Points[0], p.Points[1]
		mid := [2]float64{(a[0] + b[0]) / 2, (a[1] + b[1]) / 2}
		left := [2]float64{mid[0] - 0.01*(b[1]-a[1])/math.Hypot(b[0]-a[0], b[1]-a[1]), mid[1] + 0.01*(b[0]-a[0])/math.Hypot(b[0]-a[0], b[1]-a[1])}
		if f(left[0], left[1]) <= 0 {
			t.Errorf("path starting %v: the left side is not above the level", a)
		}
	}
	paths, err = Contours(g, v, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 {
		t.Fatalf("%d paths at level 0.3, want 2", len(paths))
	}
	for _, p := range paths {
		for _, q := range p.Points {
			if math.Abs(q[0]*q[1]-0.3) > 1e-12 {
				t.Fatalf("vertex %v off the hyperbola", q)
			}
		}
	}
}

// The asymptotic decider on a single saddle cell: corners (TL, TR, BR, BL) =
// (1, −1, 1, −1) + c has its bilinear saddle value at c; the level 0 lines
// join the positive corners when c > 0 (cutting off the negative ones) and
// the negative ones otherwise.
func TestContoursDecider(t *testing.T) {
	g := Grid{XMin: 0, XMax: 2, YMin: 0, YMax: 2, W: 2, H: 2}
	for _, c := range []float64{0.3, -0.3} {
		v := []float64{1 + c, -1 + c, -1 + c, 1 + c} // rows: top (TL, TR), bottom (BL, BR)
		paths, err := Contours(g, v, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) != 2 {
			t.Fatalf("c = %g: %d paths", c, len(paths))
		}
		// Each path is one segment cutting off the corner nearest to it;
		// that corner's value has the sign opposite to c.
		corners := [][3]float64{{0.5, 1.5, 1 + c}, {1.5, 1.5, -1 + c}, {0.5, 0.5, -1 + c}, {1.5, 0.5, 1 + c}}
		for _, p := range paths {
			a, b := p.Points[0], p.Points[len(p.Points)-1]
			mx, my := (a[0]+b[0])/2, (a[1]+b[1])/2
			best := corners[0]
			for _, k := range corners[1:] {
				if math.Hypot(k[0]-mx, k[1]-my) < math.Hypot(best[0]-mx, best[1]-my) {
					best = k
				}
			}
			if (best[2] > 0) == (c > 0) {
				t.Errorf("c = %g: corner (%g, %g) of value %g was cut off", c, best[0], best[1], best[2])
			}
		}
	}
}

// On random values every cut edge appears exactly once among the paths'
// vertices, consecutive vertices are within one cell, and open paths start
// and end on the lattice's border.
func TestContoursRandomTopology(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 50; trial++ {
		w, h := 2+r.IntN(30), 2+r.IntN(30)
		g := Grid{XMin: 0, XMax: float64(w), YMin: 0, YMax: float64(h), W: w, H: h}
		v := make([]float64, w*h)
		for i := range v {
			v[i] = r.NormFloat64()
			if r.IntN(10) == 0 {
				v[i] = 0 // values on the level
			}
		}
		paths, err := Contours(g, v, 0)
		if err != nil {
			t.Fatal(err)
		}
		cut := 0
		for j := 0; j < h; j++ {
			for i := 0; i < w; i++ {
				a := v[j*w+i] > 0
				if i+1 < w && a != (v[j*w+i+1] > 0) {
					cut++
				}
				if j+1 < h && a != (v[(j+1)*w+i] > 0) {
					cut++
				}
			}
		}
		pts := 0
		for _, p := range paths {
			pts += len(p.Points)
			for k := 1; k < len(p.Points); k++ {
				a, b := p.Points[k-1], p.Points[k]
				if math.Abs(a[0]-b[0]) > 1+1e-9 || math.Abs(a[1]-b[1]) > 1+1e-9 {
					t.Fatalf("trial %d: jump from %v to %v", trial, a, b)
				}
			}
			if !p.Closed {
				for _, q := range [][2]float64{p.Points[0], p.Points[len(p.Points)-1]} {
					onBorder := q[0] <= 0.5+1e-9 || q[0] >= float64(w)-0.5-1e-9 || q[1] <= 0.5+1e-9 || q[1] >= float64(h)-0.5-1e-9
					if !onBorder {
						t.Fatalf("trial %d: open path ends inside at %v", trial, q)
					}
				}
			}
		}
		// Vertices equal to the previous one (a node on the level shared by
		// two cut edges) are merged, so pts ≤ cut; without zeros they match.
		if pts > cut {
			t.Fatalf("trial %d: %d vertices for %d cut edges", trial, pts, cut)
		}
	}
}

func TestContoursErrors(t *testing.T) {
	g := Grid{XMin: 0, XMax: 1, YMin: 0, YMax: 1, W: 3, H: 3}
	if _, err := Contours(g, make([]float64, 8), 0); err == nil {
		t.Error("wrong length accepted")
	}
	v := make([]float64, 9)
	v[4] = math.NaN()
	if _, err := Contours(g, v, 0); err == nil {
		t.Error("NaN accepted")
	}
	if _, err := Contours(g, make([]float64, 9), math.Inf(1)); err == nil {
		t.Error("infinite level accepted")
	}
	if _, err := Contours(Grid{W: 1, H: 5}, make([]float64, 5), 0); err == nil {
		t.Error("1-wide grid accepted")
	}
	if p, err := Contours(g, make([]float64, 9), 0); err != nil || len(p) != 0 {
		t.Errorf("flat surface: %v, %v", p, err)
	}
}
