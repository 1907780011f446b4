package multiview

import (
	"encoding/json"
	"fmt"

	"lupilab/models/model"
)

// Loading saved two-view models (see models/model/validate.go): the JSON
// holds exactly the model's fields and names the model it was saved as;
// both views' kernels are known; each view's stored rows have that view's
// dimension and one coefficient each; offsets, norms and coefficients are
// finite; the rule is A, B or both.

// load decodes and checks a saved two-view model saved as id.
func (m *twoViews[V]) load(id string, raw json.RawMessage) error {
	if err := model.DecodeStrict(raw, m); err != nil {
		return fmt.Errorf("model %s: %w", id, err)
	}
	if err := checkHeader(id, m.Model, m.Rule, m.DimA, m.DimB); err != nil {
		return err
	}
	if err := m.A.validate(id+" view A", m.DimA); err != nil {
		return err
	}
	if err := m.B.validate(id+" view B", m.DimB); err != nil {
		return err
	}
	if m.Rep == nil {
		m.Rep = &model.Report{Model: id}
	}
	return nil
}

func loadSVMLike(id string) model.BinaryLoadFunc {
	return func(raw json.RawMessage) (model.BinaryModel, error) {
		var m svmLike
		if err := m.load(id, raw); err != nil {
			return nil, err
		}
		return &m, nil
	}
}

func loadMvTSVM(raw json.RawMessage) (model.BinaryModel, error) {
	var m mvtsvmModel
	if err := m.load("mvtsvm", raw); err != nil {
		return nil, err
	}
	return &m, nil
}

// checkHeader checks what every saved two-view model states about itself.
func checkHeader(id, saved, rule string, da, db int) error {
	if saved != id {
		return fmt.Errorf("model %s: the saved model says it is %q", id, saved)
	}
	if _, err := ruleOf(model.Values{"rule": rule}); err != nil {
		return fmt.Errorf("model %s: %w", id, err)
	}
	if da <= 0 || db <= 0 {
		return fmt.Errorf("model %s: saved dimensions %d and %d must be positive", id, da, db)
	}
	return nil
}

// validate checks a saved kernel expansion of a view of dimension d.
func (e *expansion) validate(what string, d int) error {
	if e == nil {
		return fmt.Errorf("%s: the saved expansion is missing", what)
	}
	if err := e.Kernel.Validate(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := model.CheckFiniteSlice(what+": a saved coefficient", e.Coef); err != nil {
		return err
	}
	if err := model.CheckFinite(what+": the saved offset", e.Bias); err != nil {
		return err
	}
	if len(e.Coef) == 0 {
		if e.X != nil {
			return fmt.Errorf("%s: saved rows without coefficients", what)
		}
		return nil
	}
	if err := e.X.CheckShape(what+": the saved rows", len(e.Coef), d); err != nil {
		return err
	}
	e.x, _ = e.X.Dense()
	return nil
}

// validate checks one view's saved twin planes for a view of dimension d.
func (t *twinView) validate(what string, d int) error {
	if t == nil {
		return fmt.Errorf("%s: the saved planes are missing", what)
	}
	if err := t.Kernel.Validate(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := t.X.CheckShape(what+": the saved rows", -1, d); err != nil {
		return err
	}
	for _, p := range []twinPlane{t.Pos, t.Neg} {
		if len(p.Coef) != t.X.Rows {
			return fmt.Errorf("%s: a saved plane has %d coefficients for %d rows", what, len(p.Coef), t.X.Rows)
		}
		if err := model.CheckFiniteSlice(what+": a saved plane coefficient", p.Coef); err != nil {
			return err
		}
		if err := model.CheckFinite(what+": a saved plane offset or norm", p.Bias, p.Norm); err != nil {
			return err
		}
		if !(p.Norm > 0) {
			return fmt.Errorf("%s: a saved plane has norm %v", what, p.Norm)
		}
	}
	t.x, _ = t.X.Dense()
	return nil
}
