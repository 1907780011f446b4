package compute

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/run"
)

// toModel maps a window of plot coordinates as the fitted scaler maps
// points (view A: X's scaling, view B: Z's), and fromModel maps back; with
// projected data, no scaler or one feature both leave coordinates alone.
func TestPlaneScale(t *testing.T) {
	ds := &data.Dataset{
		X: mat.NewDense(4, 2, []float64{0, 10, 2, 30, 4, 20, 6, 40}),
		Z: mat.NewDense(4, 2, []float64{-1, 5, 1, 5.5, 3, 7, 5, 9}),
		Y: []int{0, 1, 0, 1}, Classes: []string{"a", "b"},
	}
	sc, err := data.FitScaler(ds, "standard")
	if err != nil {
		t.Fatal(err)
	}
	o := &run.Outcome{Scaler: sc}
	win := [4]float64{1, 5, 12, 35} // xmin, xmax, ymin, ymax
	corners := mat.NewDense(2, 2, []float64{win[0], win[2], win[1], win[3]})
	scaled, err := sc.Transform(&data.Dataset{X: corners, Z: corners})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		view string
		m    *mat.Dense
	}{{"A", scaled.X}, {"B", scaled.Z}} {
		got := toModel(o, c.view, win)
		want := [4]float64{c.m.At(0, 0), c.m.At(1, 0), c.m.At(0, 1), c.m.At(1, 1)}
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Errorf("view %s: toModel %v, the scaler gives %v", c.view, got, want)
				break
			}
		}
		back := fromModel(o, c.view)
		x, y := back(got[1], got[3])
		if math.Abs(x-win[1]) > 1e-12 || math.Abs(y-win[3]) > 1e-12 {
			t.Errorf("view %s: fromModel(toModel) = (%v, %v), want (%v, %v)", c.view, x, y, win[1], win[3])
		}
	}
	oneFeature := &data.Scaler{XShift: []float64{1}, XScale: []float64{2}}
	for _, o := range []*run.Outcome{{Scaler: sc, Projected: true}, {}, {Scaler: oneFeature}} {
		if got := toModel(o, "A", win); got != win {
			t.Errorf("%+v: toModel moved the window to %v", o, got)
		}
		if x, y := fromModel(o, "A")(3, 4); x != 3 || y != 4 {
			t.Errorf("%+v: fromModel moved (3, 4) to (%v, %v)", o, x, y)
		}
	}
}
