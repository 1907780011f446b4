package joint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"lupilab/models/data"
	"lupilab/models/kernel"
	"lupilab/models/model"
	"lupilab/models/spec"
)

// Paper is the citation of paper 003.
const Paper = spec.Paper003

// ParamsFromValues reads the joint SVM's settings from resolved values.
func ParamsFromValues(v model.Values) (Params, error) {
	k, err := kernel.FromValues(v, "")
	if err != nil {
		return Params{}, err
	}
	p := Params{Kernel: k, C: v.Float("C"), Predict: v.String("predict"),
		Output: OutputParams{Kind: v.String("okernel"), Sigma2: v.Float("osigma2"), Reg: v.Float("oreg"),
			Degree: v.Int("odegree"), Coef0: v.Float("ocoef0")}}
	return p, p.Output.Validate()
}

func init() {
	model.Register("jointsvm", fitJoint, loadJoint)
}

func fitJoint(ctx context.Context, train *data.Dataset, v model.Values, opt model.Options) (model.Fitted, error) {
	if train == nil {
		return nil, data.ErrNoData
	}
	v, err := spec.MustLookup("jointsvm").Resolve(v)
	if err != nil {
		return nil, err
	}
	p, err := ParamsFromValues(v)
	if err != nil {
		return nil, err
	}
	if train.Tags == nil {
		return nil, errors.New("joint: the dataset has no tags: the joint SVM needs a multi-label dataset")
	}
	m, err := Train(ctx, train.X, train.Tags, train.TagNames, p, opt)
	if err != nil {
		return nil, err
	}
	m.report.Params = v.Clone()
	return m, nil
}

// saved is the JSON form of a fitted joint SVM.
type saved struct {
	Kernel  kernel.Kernel `json:"kernel"`
	Output  *OutputKernel `json:"output"`
	Tags    []string      `json:"tag_names,omitempty"`
	Predict string        `json:"predict"`
	Sets    [][]float64   `json:"label_sets"`
	SVX     *model.Matrix `json:"sv_x"`
	Alpha   []float64     `json:"alpha"`
	SVSet   []int         `json:"sv_set"`
	Report  *model.Report `json:"report"`
}

// MarshalJSON saves the model (see model.Save); the γ table is rebuilt on load.
func (m *Model) MarshalJSON() ([]byte, error) {
	return json.Marshal(saved{Kernel: m.kern, Output: m.out, Tags: m.tags, Predict: m.predict,
		Sets: m.sets, SVX: model.MatrixOf(m.svX), Alpha: m.alpha, SVSet: m.svSet, Report: m.report})
}

func loadJoint(raw json.RawMessage) (model.Fitted, error) {
	var s saved
	if err := model.DecodeStrict(raw, &s); err != nil {
		return nil, fmt.Errorf("jointsvm: %w", err)
	}
	if s.Output == nil {
		return nil, errors.New("jointsvm: saved model without its output kernel")
	}
	if s.Tags != nil && len(s.Tags) != s.Output.T {
		return nil, fmt.Errorf("jointsvm: saved model names %d tags for %d", len(s.Tags), s.Output.T)
	}
	if err := model.CheckFiniteSlice("jointsvm: a saved multiplier", s.Alpha); err != nil {
		return nil, err
	}
	if err := s.Kernel.Validate(); err != nil {
		return nil, fmt.Errorf("jointsvm: %w", err)
	}
	if err := s.Output.Validate(); err != nil {
		return nil, fmt.Errorf("jointsvm: %w", err)
	}
	X, err := s.SVX.Dense()
	if err != nil || X == nil {
		return nil, fmt.Errorf("jointsvm: support vectors: %v", err)
	}
	nsv, _ := X.Dims()
	if len(s.Alpha) != nsv || len(s.SVSet) != nsv || len(s.Sets) == 0 {
		return nil, errors.New("jointsvm: malformed saved model (support vectors, multipliers and label sets disagree)")
	}
	for _, y := range s.Sets {
		if len(y) != s.Output.T {
			return nil, errors.New("jointsvm: malformed saved label set")
		}
		for _, v := range y {
			if v != 1 && v != -1 {
				return nil, errors.New("jointsvm: saved label sets must hold ±1")
			}
		}
	}
	for i, k := range s.SVSet {
		if k < 0 || k >= len(s.Sets) || !(s.Alpha[i] >= 0) {
			return nil, errors.New("jointsvm: malformed saved support vector")
		}
	}
	if s.Predict != PredictExhaustive && s.Predict != PredictTrainSets {
		return nil, fmt.Errorf("jointsvm: saved prediction %q is not %s or %s", s.Predict, PredictTrainSets, PredictExhaustive)
	}
	if s.Predict == PredictExhaustive && s.Output.T > MaxExhaustiveTags {
		return nil, errors.New("jointsvm: exhaustive prediction with too many tags")
	}
	if s.Report == nil {
		s.Report = &model.Report{Model: "jointsvm"}
	}
	m := &Model{kern: s.Kernel, out: s.Output, tags: s.Tags, predict: s.Predict, sets: s.Sets,
		svX: X, alpha: s.Alpha, svSet: s.SVSet, report: s.Report}
	m.buildGamma(nil)
	return m, nil
}

// InputDims implements model.Shaped.
func (m *Model) InputDims() (x, z int) {
	if m.svX == nil {
		return 0, 0
	}
	_, d := m.svX.Dims()
	return d, 0
}
