package viz

import (
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
