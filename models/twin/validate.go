package twin

import (
	"encoding/json"
	"fmt"

	"lupilab/models/model"
)

// Loading saved twin models (see models/model/validate.go): the JSON holds
// exactly the model's fields, the kernel is known, and every plane has one
// weight per feature of its view — the input columns for the linear
// kernel, one per basis row (training sample) otherwise — and a finite,
// non-zero normal.

// validate checks one view's features against its planes.
func (f *features) validate(what string, planes ...plane) error {
	if f == nil {
		return fmt.Errorf("%s: the saved features are missing", what)
	}
	if err := f.Kernel.Validate(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if f.Dim <= 0 {
		return fmt.Errorf("%s: the saved input dimension is %d", what, f.Dim)
	}
	p := f.Dim
	if isLinear(f.Kernel) {
		if f.Basis != nil {
			return fmt.Errorf("%s: a linear twin model holds basis rows", what)
		}
	} else {
		if err := f.Basis.CheckShape(what+": the saved basis", -1, f.Dim); err != nil {
			return err
		}
		p = f.Basis.Rows
	}
	for _, pl := range planes {
		if len(pl.W) != p {
			return fmt.Errorf("%s: a saved plane has %d weights for %d features", what, len(pl.W), p)
		}
		if err := model.CheckFiniteSlice(what+": a saved plane weight", pl.W); err != nil {
			return err
		}
		if err := model.CheckFinite(what+": a saved plane offset", pl.B); err != nil {
			return err
		}
		if !(pl.norm() > 0) {
			return fmt.Errorf("%s: a saved plane has a zero normal", what)
		}
	}
	return f.restore()
}

func loadTwin(raw json.RawMessage) (model.BinaryModel, error) {
	var m twinModel
	if err := model.DecodeStrict(raw, &m); err != nil {
		return nil, fmt.Errorf("twin model: %w", err)
	}
	if m.Kind != "twsvm" && m.Kind != "wltsvm" {
		return nil, fmt.Errorf("twin model: saved kind %q is not twsvm or wltsvm", m.Kind)
	}
	if err := m.Feat.validate(m.Kind, m.Pos, m.Neg); err != nil {
		return nil, err
	}
	if m.Rep == nil {
		m.Rep = &model.Report{Model: m.Kind}
	}
	return &m, nil
}

func loadMP(raw json.RawMessage) (model.BinaryModel, error) {
	var m mpModel
	if err := model.DecodeStrict(raw, &m); err != nil {
		return nil, fmt.Errorf("mpwtsvm: %w", err)
	}
	if err := m.FeatA.validate("mpwtsvm view A", m.APos, m.ANeg); err != nil {
		return nil, err
	}
	if err := m.FeatB.validate("mpwtsvm view B", m.BPos, m.BNeg); err != nil {
		return nil, err
	}
	switch m.Rule {
	case "A", "B", "both":
	default:
		return nil, fmt.Errorf("mpwtsvm: saved decision rule %q is not A, B or both", m.Rule)
	}
	if m.Rep == nil {
		m.Rep = &model.Report{Model: "mpwtsvm"}
	}
	return &m, nil
}

// InputDims implements model.Shaped.
func (m *twinModel) InputDims() (x, z int) { return m.Feat.Dim, 0 }

// InputDims implements model.Shaped.
func (m *mpModel) InputDims() (x, z int) { return m.FeatA.Dim, m.FeatB.Dim }
