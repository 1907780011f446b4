package model

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
)

// Binary labels are ±1 with both classes present; the error names the
// first bad label and its row.
func TestCheckBinaryLabels(t *testing.T) {
	for _, c := range []struct {
		y    []float64
		want string
	}{
		{[]float64{1, -1, 1}, ""},
		{[]float64{-1, 1}, ""},
		{[]float64{1, 1, 1}, "only one class"},
		{[]float64{-1}, "only one class"},
		{nil, "only one class"},
		{[]float64{1, -1, 0.5, 2}, "label 0.5 at row 3 is not ±1"},
		{[]float64{1, -1, 0}, "label 0 at row 3 is not ±1"},
	} {
		err := CheckBinaryLabels(c.y)
		if c.want == "" {
			if err != nil {
				t.Errorf("%v: %v", c.y, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.y, err, c.want)
		}
	}
	// data.CheckFinite, which the binary models call beside it, names the
	// block, row and column of a non-finite value.
	x := mat.NewDense(2, 3, []float64{0, 1, 2, 3, math.NaN(), 5})
	if err := data.CheckFinite("view B", x); err == nil || err.Error() != "view B row 2 column 2: NaN is not a finite number" {
		t.Errorf("CheckFinite: %v", err)
	}
}

// SplitClasses keeps row order within each class.
func TestSplitClasses(t *testing.T) {
	pos, neg := SplitClasses([]float64{-1, 1, 1, -1, -1, 1})
	if fmt.Sprint(pos) != "[1 2 5]" || fmt.Sprint(neg) != "[0 3 4]" {
		t.Errorf("SplitClasses = %v, %v", pos, neg)
	}
}
