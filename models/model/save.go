package model

import (
	"encoding/json"
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
)

// FormatName and FormatVersion identify LUPI Lab's saved-model JSON.
const (
	FormatName    = "lupilab-model"
	FormatVersion = 1
)

// Saved is the versioned envelope of a saved model.
type Saved struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Model   string `json:"model"`
	Params  Values `json:"params,omitempty"`
	// Scaler, when present, is the feature scaling fitted on the training
	// data; Load applies it before every prediction, so the saved model
	// takes raw features.
	Scaler *data.Scaler    `json:"scaler,omitempty"`
	Fitted json.RawMessage `json:"fitted"`
}

// Save serialises a fitted model of the given spec id.
func Save(id string, f Fitted) ([]byte, error) { return SaveScaled(id, f, nil) }

// SaveScaled serialises a fitted model together with the scaling that was
// fitted on its training data (nil for none).
func SaveScaled(id string, f Fitted, sc *data.Scaler) ([]byte, error) {
	if s, ok := f.(*Scaled); ok {
		f, sc = s.Inner, s.Scaler
	}
	raw, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("model %s: cannot save: %w", id, err)
	}
	var params Values
	if r := f.Report(); r != nil {
		params = r.Params
	}
	return json.MarshalIndent(Saved{Format: FormatName, Version: FormatVersion, Model: id, Params: params, Scaler: sc, Fitted: raw}, "", " ")
}

// Scaled is a fitted model that scales raw features with the scaler fitted
// on its training data before predicting (what Load returns for a model
// saved with its scaler).
type Scaled struct {
	Inner  Fitted
	Scaler *data.Scaler
}

// Predict implements Fitted: it scales ds's X (and Z), then predicts. Data
// without Z (a model that used Z only while training) has only X scaled.
func (s *Scaled) Predict(ds *data.Dataset) (*Prediction, error) {
	sc := s.Scaler
	if ds != nil && ds.Z == nil && len(sc.ZShift) > 0 {
		c := *sc
		c.ZShift, c.ZScale = nil, nil
		sc = &c
	}
	scaled, err := sc.Transform(ds)
	if err != nil {
		return nil, fmt.Errorf("model: the data does not fit the saved scaling: %w", err)
	}
	return s.Inner.Predict(scaled)
}

// InputDims implements Shaped.
func (s *Scaled) InputDims() (x, z int) {
	if sh, ok := s.Inner.(Shaped); ok {
		return sh.InputDims()
	}
	return len(s.Scaler.XShift), 0
}

// Report implements Fitted.
func (s *Scaled) Report() *Report { return s.Inner.Report() }

// MarshalJSON saves the inner model (SaveScaled stores the scaler).
func (s *Scaled) MarshalJSON() ([]byte, error) { return json.Marshal(s.Inner) }

// Load rebuilds a fitted model saved by Save, returning its spec too. The
// file is validated before anything is built from it (see validate.go):
// its size, envelope, the model's own fields, kernels and shapes, and the
// saved scaling; each violation is an error naming what is wrong. A bug
// that still panics while loading becomes an InternalError.
func Load(b []byte) (*Spec, Fitted, error) {
	if len(b) > MaxFileBytes {
		return nil, nil, fmt.Errorf("the model file is larger than the limit of %d MiB", MaxFileBytes>>20)
	}
	if c, ok := firstByte(b); c != '{' {
		if !ok {
			return nil, nil, errors.New("not a LUPI Lab model file (it is empty)")
		}
		return nil, nil, fmt.Errorf("not a LUPI Lab model file (it starts with %q, not a JSON object)", c)
	}
	var s Saved
	if err := DecodeStrict(b, &s); err != nil {
		return nil, nil, fmt.Errorf("not a LUPI Lab model file: %w", err)
	}
	if s.Format != FormatName {
		return nil, nil, errors.New("not a LUPI Lab model file (format field missing or wrong)")
	}
	if s.Version < 1 || s.Version > FormatVersion {
		return nil, nil, fmt.Errorf("model file version %d is not supported (this build reads up to %d)", s.Version, FormatVersion)
	}
	spec, err := Lookup(s.Model)
	if err != nil {
		return nil, nil, err
	}
	if len(s.Fitted) == 0 || string(s.Fitted) == "null" {
		return nil, nil, fmt.Errorf("model %s: the file holds no fitted model", s.Model)
	}
	f, err := GuardValue("loading a saved "+s.Model+" model", func() (Fitted, error) { return spec.Load(s.Fitted) })
	if err != nil {
		return nil, nil, err
	}
	if err := checkParams(spec, "params", s.Params); err != nil {
		return nil, nil, err
	}
	if r := f.Report(); r != nil {
		if err := checkParams(spec, "report's params", r.Params); err != nil {
			return nil, nil, err
		}
	}
	if s.Scaler != nil {
		if err := checkScaler(s.Scaler, f); err != nil {
			return nil, nil, fmt.Errorf("model %s: %w", s.Model, err)
		}
		return spec, &Scaled{Inner: f, Scaler: s.Scaler}, nil
	}
	return spec, f, nil
}

// Matrix is a JSON-friendly dense matrix for saved models.
type Matrix struct {
	Rows int       `json:"rows"`
	Cols int       `json:"cols"`
	Data []float64 `json:"data"` // row-major
}

// MatrixOf copies m (nil gives nil).
func MatrixOf(m mat.Matrix) *Matrix {
	if m == nil {
		return nil
	}
	r, c := m.Dims()
	out := &Matrix{Rows: r, Cols: c, Data: make([]float64, 0, r*c)}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			out.Data = append(out.Data, m.At(i, j))
		}
	}
	return out
}

// Dense returns the matrix as a *mat.Dense, checking its shape.
func (m *Matrix) Dense() (*mat.Dense, error) {
	if m == nil {
		return nil, nil
	}
	// Rows, Cols ≤ len(Data) keeps Rows·Cols from overflowing (a file
	// with rows = cols = 2³² and no data is refused, not built).
	if m.Rows <= 0 || m.Cols <= 0 || m.Rows > len(m.Data) || m.Cols > len(m.Data) || len(m.Data) != m.Rows*m.Cols {
		return nil, fmt.Errorf("saved matrix: %d×%d with %d values", m.Rows, m.Cols, len(m.Data))
	}
	return mat.NewDense(m.Rows, m.Cols, append([]float64(nil), m.Data...)), nil
}

// checkParams refuses a saved model whose hyper-parameters (the envelope's
// or the fitted report's) are not the model's: an unknown name, or a value
// of the wrong kind or out of range (e.g. kernel "bogus"). Prediction uses
// the fitted kernels, but the app shows and refits from these values.
// Older names are aliases, so files saved before a renaming still load.
func checkParams(s *Spec, where string, v Values) error {
	if len(v) == 0 {
		return nil
	}
	if _, err := s.Resolve(v); err != nil {
		return fmt.Errorf("the file's %s: %w", where, err)
	}
	return nil
}
