package data

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestTransformWithoutZ checks that a scaler fitted on X and Z scales data
// that comes without its second block (a model that used Z only while
// training predicts from X alone), and still refuses a Z of another width.
func TestTransformWithoutZ(t *testing.T) {
	ds := &Dataset{X: mat.NewDense(4, 1, []float64{0, 2, 4, 6}), Z: mat.NewDense(4, 2, []float64{1, 0, 3, 0, 5, 1, 7, 1}),
		Y: []int{0, 0, 1, 1}, Classes: []string{"a", "b"}}
	sc, err := FitScaler(ds, "standard")
	if err != nil {
		t.Fatal(err)
	}
	xOnly := &Dataset{X: mat.NewDense(1, 1, []float64{3})}
	out, err := sc.Transform(xOnly)
	if err != nil {
		t.Fatalf("X without Z: %v", err)
	}
	if out.Z != nil || out.X.At(0, 0) != 0 {
		t.Errorf("scaled X = %v (want 0, the mean), Z = %v", out.X.At(0, 0), out.Z)
	}
	wrong := &Dataset{X: mat.NewDense(1, 1, []float64{3}), Z: mat.NewDense(1, 3, nil)}
	if _, err := sc.Transform(wrong); err == nil || !strings.Contains(err.Error(), "2 second-block features") {
		t.Errorf("a Z of 3 columns: %v", err)
	}
}
