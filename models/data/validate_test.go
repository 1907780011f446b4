package data

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestValidateNonFinite: a NaN, +Inf or −Inf anywhere in X or Z (also in
// a view whose stride is wider than its rows) is reported with its block,
// row and column; finite data, including huge and tiny values, pass.
func TestValidateNonFinite(t *testing.T) {
	mk := func() *Dataset {
		big := mat.NewDense(4, 5, nil)
		for i := 0; i < 4; i++ {
			for j := 0; j < 5; j++ {
				big.Set(i, j, float64(i*5+j)*1e300)
			}
		}
		big.Set(0, 0, 5e-324)
		z := mat.NewDense(4, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8})
		return &Dataset{X: big.Slice(0, 4, 0, 3).(*mat.Dense), Z: z, Y: []int{0, 1, 0, 1}, Classes: []string{"a", "b"}}
	}
	if err := mk().Validate(); err != nil {
		t.Fatalf("finite data: %v", err)
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		ds := mk()
		ds.X.Set(2, 1, bad)
		if err := ds.Validate(); err == nil || !strings.Contains(err.Error(), "X row 3 column 2") {
			t.Errorf("X holds %v: err = %v", bad, err)
		}
		ds = mk()
		ds.Z.Set(3, 1, bad)
		if err := ds.Validate(); err == nil || !strings.Contains(err.Error(), "Z row 4 column 2") {
			t.Errorf("Z holds %v: err = %v", bad, err)
		}
	}
	// The entry beyond the view's columns is not part of X.
	ds := mk()
	raw := ds.X.RawMatrix()
	raw.Data[raw.Stride-1] = math.NaN()
	if err := ds.Validate(); err != nil {
		t.Errorf("a NaN outside the view: %v", err)
	}
}
