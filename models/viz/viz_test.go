package viz

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// A surface whose value is the x coordinate: blue on the left, orange on
// the right, a dark boundary column at x = 0 and dashed margins at x = ±1.
func TestHeatmapBoundaryAndSides(t *testing.T) {
	g := Grid{XMin: -2, XMax: 2, YMin: -1, YMax: 1, W: 40, H: 10}
	pts := g.Points()
	s := &Surface{Grid: g, Value: make([]float64, g.W*g.H)}
	for i := range s.Value {
		s.Value[i] = pts.At(i, 0)
	}
	img := Heatmap(s, false)
	px := func(i, j int) [3]byte {
		p := 4 * (j*g.W + i)
		return [3]byte{img[p], img[p+1], img[p+2]}
	}
	left, right := px(2, 5), px(37, 5)
	if !(left[2] > left[0]) || !(right[0] > right[2]) {
		t.Errorf("sides: left %v should be blue, right %v orange", left, right)
	}
	// x = 0 lies between columns 19 and 20: column 19 carries the line.
	for j := 0; j < g.H; j++ {
		if c := px(19, j); c != [3]byte{20, 20, 20} {
			t.Fatalf("row %d: boundary pixel %v", j, c)
		}
	}
	if c := px(25, 5); c == [3]byte{20, 20, 20} {
		t.Error("boundary drawn away from x = 0")
	}
	for k := 3; k < len(img); k += 4 {
		b := img[k]
		if b != 255 {
			t.Fatal("alpha not opaque")
		}
	}
}

func TestGridAndPCA(t *testing.T) {
	g, err := BoundsOf(10, 10, 0, mat.NewDense(2, 2, []float64{0, 0, 1, 2}))
	if err != nil {
		t.Fatal(err)
	}
	if x, y := g.ToPixel(0, 2); x != 0 || y != 0 {
		t.Errorf("top-left maps to %v,%v", x, y)
	}
	if _, err := BoundsOf(10, 10, 0); err == nil {
		t.Error("no points accepted")
	}
	// PCA of points on a line: the first axis carries all the variance.
	X := mat.NewDense(5, 3, []float64{0, 0, 0, 1, 2, 3, 2, 4, 6, 3, 6, 9, 4, 8, 12})
	p, err := FitPCA(X)
	if err != nil {
		t.Fatal(err)
	}
	if p.Var[0] < 0.999 {
		t.Errorf("explained variance %v", p.Var)
	}
	Y := p.Apply(X)
	if r, c := Y.Dims(); r != 5 || c != 2 {
		t.Fatal("projection shape")
	}
}

func TestColourSpan(t *testing.T) {
	// |v| = 0.001, 0.002, …, 1.000 in a shuffled, signed order: the 95th
	// percentile (index 0.95·999 → 949) is 0.950, and the largest value
	// reaches 1, so the margins stay inside: span 1.
	var v []float64
	for i := 1000; i >= 1; i-- {
		x := float64(i) / 1000
		if i%3 == 0 {
			x = -x
		}
		v = append(v, x)
	}
	if got := ColourSpan(v); got != 1 {
		t.Errorf("span of ±0.001…±1 = %v, want 1", got)
	}
	// Halved, nothing reaches 1: the 95th percentile, 0.475.
	for i := range v {
		v[i] /= 2
	}
	if got := ColourSpan(v); math.Abs(got-0.475) > 1e-15 {
		t.Errorf("span of ±0.0005…±0.5 = %v, want 0.475", got)
	}
	// NaN and Inf are ignored; two far outliers do not widen the span
	// beyond the margins at ±1, which they reach.
	v = append(v, math.NaN(), math.Inf(1))
	if got := ColourSpan(v); math.Abs(got-0.475) > 1e-15 {
		t.Errorf("span with NaN and Inf = %v, want 0.475", got)
	}
	v = append(v, 1e6, -1e6)
	if got := ColourSpan(v); got != 1 {
		t.Errorf("span with outliers at ±1e6 = %v, want 1", got)
	}
	if got := ColourSpan(nil); got != 1 {
		t.Errorf("span of nothing = %v, want 1", got)
	}
	if got := ColourSpan([]float64{0, 0}); got != 1e-12 {
		t.Errorf("span of zeros = %v, want 1e-12", got)
	}
}
