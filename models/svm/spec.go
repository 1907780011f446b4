package svm

import (
	"context"
	"encoding/json"
	"fmt"

	"lupilab/models/data"
	"lupilab/models/kernel"
	"lupilab/models/model"
)

func init() {
	for _, sq := range []bool{false, true} {
		id := "svm"
		if sq {
			id = "l2svm"
		}
		squared := sq
		fit, load := model.WrapBinary(id, func(ctx context.Context, train *data.Dataset, y []float64, v model.Values, opt model.Options) (model.BinaryModel, error) {
			return fitValues(ctx, train, y, v, opt, squared)
		}, loadBinary)
		model.Register(id, fit, load)
	}
}

// ParamsFromValues reads Params from resolved model values; y (±1) is
// needed for the balanced weights.
func ParamsFromValues(v model.Values, y []float64, squared bool) (Params, error) {
	k, err := kernel.FromValues(v, "")
	if err != nil {
		return Params{}, err
	}
	p := Params{Kernel: k, C: v.Float("C"), WeightPos: 1, WeightNeg: 1, Squared: squared,
		Eps: 1e-3, Shrinking: true, CacheMB: 100}
	if _, ok := v["wpos"]; ok {
		p.WeightPos = v.Float("wpos")
	}
	if _, ok := v["wneg"]; ok {
		p.WeightNeg = v.Float("wneg")
	}
	if _, ok := v["eps"]; ok {
		p.Eps = v.Float("eps")
	}
	if _, ok := v["shrinking"]; ok {
		p.Shrinking = v.Bool("shrinking")
	}
	if _, ok := v["cache"]; ok {
		p.CacheMB = v.Float("cache")
	}
	p.MaxIter = v.Int("max_iter")
	p.Float32 = v["precision"] != "double"
	if v.Bool("balanced") {
		var np, nn float64
		for _, t := range y {
			if t > 0 {
				np++
			} else {
				nn++
			}
		}
		if np > 0 && nn > 0 {
			n := np + nn
			p.WeightPos, p.WeightNeg = n/(2*np), n/(2*nn)
		}
	}
	return p, nil
}

func fitValues(ctx context.Context, train *data.Dataset, y []float64, v model.Values, opt model.Options, squared bool) (model.BinaryModel, error) {
	p, err := ParamsFromValues(v, y, squared)
	if err != nil {
		return nil, err
	}
	m, err := Train(ctx, train.X, y, p, opt)
	if err != nil {
		return nil, err
	}
	m.report.Params = v.Clone()
	if v.Bool("probability") {
		if err := FitPlatt(ctx, m, train.X, y, p, opt); err != nil {
			return nil, fmt.Errorf("svm: probability fit: %w", err)
		}
		m.report.Extras["platt_a"] = m.Platt.A
		m.report.Extras["platt_b"] = m.Platt.B
		return ProbModel{m}, nil
	}
	return m, nil
}

type savedModel struct {
	Kernel kernel.Kernel `json:"kernel"`
	SV     *model.Matrix `json:"sv,omitempty"`
	Coef   []float64     `json:"coef"`
	Rho    float64       `json:"rho"`
	Index  []int         `json:"index"`
	Platt  *Platt        `json:"platt,omitempty"`
	Report *model.Report `json:"report,omitempty"`
}

// MarshalJSON saves the model (support vectors, coefficients, rho, kernel,
// Platt sigmoid, report).
func (m *Model) MarshalJSON() ([]byte, error) {
	return json.Marshal(savedModel{Kernel: m.Kernel, SV: svMatrix(m), Coef: m.Coef, Rho: m.Rho, Index: m.Index, Platt: m.Platt, Report: m.report})
}

func svMatrix(m *Model) *model.Matrix {
	if m.SV == nil {
		return nil
	}
	return model.MatrixOf(m.SV)
}

// UnmarshalJSON loads a model saved by MarshalJSON, refusing fields it
// does not have, unknown kernels and shapes that disagree: support vectors,
// coefficients and indices one each, finite numbers, a precomputed kernel's
// indices non-negative.
func (m *Model) UnmarshalJSON(b []byte) error {
	var s savedModel
	if err := model.DecodeStrict(b, &s); err != nil {
		return fmt.Errorf("svm: %w", err)
	}
	if err := s.Kernel.Validate(); err != nil {
		return fmt.Errorf("svm: saved model: %w", err)
	}
	if len(s.Coef) != len(s.Index) {
		return fmt.Errorf("svm: saved model has %d coefficients for %d support vectors", len(s.Coef), len(s.Index))
	}
	if err := model.CheckFiniteSlice("svm: a saved coefficient", s.Coef); err != nil {
		return err
	}
	if err := model.CheckFinite("svm: the saved rho", s.Rho); err != nil {
		return err
	}
	if s.Platt != nil {
		if err := model.CheckFinite("svm: a saved Platt coefficient", s.Platt.A, s.Platt.B); err != nil {
			return err
		}
	}
	*m = Model{Kernel: s.Kernel, Coef: s.Coef, Rho: s.Rho, Index: s.Index, Platt: s.Platt, report: s.Report}
	if s.SV != nil {
		if s.Kernel.Kind == kernel.Precomputed {
			return fmt.Errorf("svm: saved model with a precomputed kernel holds support vectors")
		}
		sv, err := s.SV.Dense()
		if err != nil {
			return fmt.Errorf("svm: %w", err)
		}
		if r, _ := sv.Dims(); r != len(s.Coef) {
			return fmt.Errorf("svm: saved model has %d support vectors for %d coefficients", r, len(s.Coef))
		}
		m.SV = sv
	} else if s.Kernel.Kind != kernel.Precomputed && len(s.Coef) > 0 {
		return fmt.Errorf("svm: saved model has coefficients but no support vectors")
	}
	for _, i := range s.Index {
		if i < 0 {
			return fmt.Errorf("svm: saved model has a negative support-vector index")
		}
	}
	if m.report == nil {
		m.report = &model.Report{}
	}
	m.prepare()
	return nil
}

// InputDims implements model.Shaped: the support vectors' features (0 when
// unknown: a precomputed kernel, or no support vector).
func (m *Model) InputDims() (x, z int) {
	if m.SV == nil {
		return 0, 0
	}
	_, d := m.SV.Dims()
	return d, 0
}

func loadBinary(raw json.RawMessage) (model.BinaryModel, error) {
	m := &Model{}
	if err := json.Unmarshal(raw, m); err != nil {
		return nil, err
	}
	if m.Platt != nil {
		return ProbModel{m}, nil
	}
	return m, nil
}
