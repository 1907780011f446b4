package viz

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
)

// TestClassMarginsTraceTheClassBorders: a multi-class surface's margins are
// positive exactly where their class is predicted (both strategies, the
// fast path and point by point), and the borders traced on them lie on the
// model's own border far closer than a cell: at each traced point, the
// model's labels a tenth of a cell to either side across the line differ.
// Borders drawn from the labels alone would be a cell's staircase.
func TestClassMarginsTraceTheClassBorders(t *testing.T) {
	for _, strategy := range []string{"ovr", "ovo"} {
		f, ds := fitDefault(t, "svm", "blobs", 300, map[string]string{"multiclass": strategy})
		g, err := BoundsOf(60, 60, 0.08, ds.X)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Evaluate(f, nil, g, ds.Classes, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Fast || len(s.Margins) != 3 {
			t.Fatalf("%s: fast %v, %d margin fields", strategy, s.Fast, len(s.Margins))
		}
		for c, m := range s.Margins {
			for i, v := range m {
				if (v > 0) != (s.Labels[i] == c) {
					t.Fatalf("%s: class %d's margin %v at node %d, predicted %d", strategy, c, v, i, s.Labels[i])
				}
			}
		}
		cell := (g.XMax - g.XMin) / float64(g.W)
		checked, off := 0, 0
		for c, m := range s.Margins {
			paths, err := Contours(g, m, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(paths) == 0 {
				t.Fatalf("%s: no border of class %d", strategy, c)
			}
			for _, p := range paths {
				for k := 1; k+1 < len(p.Points); k++ {
					a, b, q := p.Points[k-1], p.Points[k+1], p.Points[k]
					dx, dy := b[0]-a[0], b[1]-a[1]
					l := math.Hypot(dx, dy)
					if l == 0 {
						continue
					}
					// the normal to the line, a tenth of a cell long
					nx, ny := -dy/l*0.1*cell, dx/l*0.1*cell
					pts := mat.NewDense(2, 2, []float64{q[0] + nx, q[1] + ny, q[0] - nx, q[1] - ny})
					pred, err := f.Predict(&data.Dataset{X: pts, Classes: ds.Classes})
					if err != nil {
						t.Fatal(err)
					}
					checked++
					if pred.Labels[0] == pred.Labels[1] {
						off++
					}
				}
			}
		}
		// near a junction of three regions the line may cut a corner
		if checked < 50 || float64(off) > 0.05*float64(checked) {
			t.Errorf("%s: %d of %d border points are more than a tenth of a cell off the model's border", strategy, off, checked)
		}
		t.Logf("%s: %d of %d border points off by more than a tenth of a cell", strategy, off, checked)
	}
}
