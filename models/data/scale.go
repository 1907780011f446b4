package data

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Scaling methods.
const (
	ScaleStandard = "standard" // (x − mean) / standard deviation
	ScaleMinMax   = "minmax"   // (x − min) / (max − min), to [0, 1] on the training data
	ScaleNone     = "none"     // identity
)

// Scaler maps features column by column as x ↦ (x − Shift) / Scale, for X
// and (separately fitted) Z. Fit it on training data only and apply it to
// training and test data alike. A constant column gets Scale 1, so it maps
// to 0 (standard) or to 0 (minmax) on the training data instead of NaN. It
// serialises to JSON so a saved model can carry it.
type Scaler struct {
	Method string    `json:"method"`
	XShift []float64 `json:"x_shift"`
	XScale []float64 `json:"x_scale"`
	ZShift []float64 `json:"z_shift,omitempty"`
	ZScale []float64 `json:"z_scale,omitempty"`
}

// FitScaler fits a scaler ("standard", "minmax" or "none") to ds's X and Z.
// The standard deviation is the population one (divide by n), as
// scikit-learn's StandardScaler.
func FitScaler(ds *Dataset, method string) (*Scaler, error) {
	if err := ds.Validate(); err != nil {
		return nil, err
	}
	switch method {
	case ScaleStandard, ScaleMinMax, ScaleNone:
	default:
		return nil, fmt.Errorf("data: unknown scaling %q (standard, minmax or none)", method)
	}
	s := &Scaler{Method: method}
	s.XShift, s.XScale = fitColumns(ds.X, method)
	if ds.Z != nil {
		s.ZShift, s.ZScale = fitColumns(ds.Z, method)
	}
	return s, nil
}

func fitColumns(m *mat.Dense, method string) (shift, scale []float64) {
	n, d := m.Dims()
	shift = make([]float64, d)
	scale = make([]float64, d)
	col := make([]float64, n)
	for j := 0; j < d; j++ {
		mat.Col(col, j, m)
		scale[j] = 1
		switch method {
		case ScaleStandard:
			// values beyond 1e150 on col/max|col|, so that their squares
			// do not overflow to an infinite deviation
			big := 0.0
			for _, v := range col {
				big = math.Max(big, math.Abs(v))
			}
			if big > 1e150 && !math.IsInf(big, 0) {
				for i := range col {
					col[i] /= big
				}
			} else {
				big = 1 // the usual case, computed exactly as before
			}
			mean, sd := stat.PopMeanStdDev(col, nil)
			shift[j] = mean * big
			if sd > 0 && !math.IsNaN(sd) && !math.IsInf(sd*big, 0) {
				scale[j] = sd * big
			}
		case ScaleMinMax:
			lo, hi := col[0], col[0]
			for _, v := range col {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			shift[j] = lo
			if r := hi - lo; r > 0 && !math.IsInf(r, 0) {
				scale[j] = r
			}
		}
	}
	return shift, scale
}

// Apply returns a scaled copy of ds (labels, tags and names shared). It
// returns nil if ds's dimensions differ from the fitted ones; Transform
// reports that as an error.
func (s *Scaler) Apply(ds *Dataset) *Dataset {
	out, err := s.Transform(ds)
	if err != nil {
		return nil
	}
	return out
}

// Transform is Apply with an error for mismatched dimensions or values that
// overflow. Data without a second block is scaled on its main features only.
func (s *Scaler) Transform(ds *Dataset) (*Dataset, error) {
	if ds == nil || ds.X == nil {
		return nil, ErrNoData
	}
	if ds.Dim() != len(s.XShift) {
		return nil, fmt.Errorf("data: the scaler was fitted on %d main features, the data has %d", len(s.XShift), ds.Dim())
	}
	// Data without its second block is scaled on X alone: a model that
	// used Z only while training (privileged information) predicts from X.
	if ds.Z != nil && ds.ZDim() != len(s.ZShift) {
		return nil, fmt.Errorf("data: the scaler was fitted on %d second-block features, the data has %d", len(s.ZShift), ds.ZDim())
	}
	out := *ds
	var err error
	if out.X, err = scaleMatrix(ds.X, s.XShift, s.XScale); err != nil {
		return nil, err
	}
	if ds.Z != nil {
		if out.Z, err = scaleMatrix(ds.Z, s.ZShift, s.ZScale); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// ApplyRow scales one main-feature vector in place (e.g. a grid point).
func (s *Scaler) ApplyRow(x []float64) {
	for j := range x {
		if j < len(s.XShift) {
			x[j] = (x[j] - s.XShift[j]) / s.XScale[j]
		}
	}
}

func scaleMatrix(m *mat.Dense, shift, scale []float64) (*mat.Dense, error) {
	n, d := m.Dims()
	out := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			v := (m.At(i, j) - shift[j]) / scale[j]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, errors.New("data: scaling overflowed (values too large)")
			}
			out.Set(i, j, v)
		}
	}
	return out, nil
}
