package joint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/kernel"
	"lupilab/models/model"
	"lupilab/models/spec"
	"lupilab/models/svm"
)

// Indep is T independent SVMs, one per tag (paper 003's baseline): SVM t is
// the C-SVM with bias (paper 003, eqs 4-6) trained by svm.Train on the ±1
// labels of tag t; tag t is predicted on when its decision is > 0. It
// implements model.Fitted.
type Indep struct {
	Models   []*svm.Model
	TagNames []string
	report   *model.Report
}

// IndepParams are the settings of the independent SVMs (shared by every tag).
type IndepParams struct {
	Kernel  kernel.Kernel
	C       float64
	Eps     float64 // 0 ⇒ 1e-3
	MaxIter int
}

// TrainIndep trains one SVM per column of tags (0/1) on X.
func TrainIndep(ctx context.Context, X, tags *mat.Dense, tagNames []string, p IndepParams, opt model.Options) (*Indep, error) {
	start := time.Now()
	if tags == nil {
		return nil, errors.New("indepsvm: the dataset has no tags: the tag models need a multi-label dataset")
	}
	ds := &data.Dataset{X: X, Tags: tags, TagNames: tagNames, Kind: data.KindMultiLabel}
	if err := ds.Validate(); err != nil {
		return nil, fmt.Errorf("indepsvm: %w", err)
	}
	if err := checkTags(ds); err != nil {
		return nil, err
	}
	if !(p.C > 0) || math.IsInf(p.C, 0) {
		return nil, fmt.Errorf("indepsvm: C must be positive and finite, got %v", p.C)
	}
	Y := signs(tags)
	n, t := tags.Dims()
	m := &Indep{TagNames: append([]string(nil), tagNames...)}
	rep := &model.Report{Model: "indepsvm", NTrain: n, Converged: true, Extras: map[string]float64{"tags": float64(t)}}
	support := map[int]bool{}
	y := make([]float64, n)
	opt = opt.WithWorkspace() // the tags' SVMs share the kernel rows of X
	for j := 0; j < t; j++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i := range y {
			y[i] = Y[i][j]
		}
		sub := opt
		if opt.Progress != nil {
			base, span := float64(j)/float64(t), 1/float64(t)
			stage := fmt.Sprintf("tag %d of %d", j+1, t)
			sub.Progress = func(pr model.Progress) {
				f := pr.Fraction
				if f < 0 {
					f = 0
				}
				pr.Fraction, pr.Stage = base+span*f, stage
				opt.Progress(pr)
			}
		}
		sm, err := svm.Train(ctx, X, y, svm.Params{Kernel: p.Kernel, C: p.C, Eps: p.Eps, MaxIter: p.MaxIter, Shrinking: true}, sub)
		if err != nil {
			return nil, fmt.Errorf("indepsvm: tag %d: %w", j+1, err)
		}
		m.Models = append(m.Models, sm)
		r := sm.Report()
		rep.Sub = append(rep.Sub, r)
		rep.Iterations += r.Iterations
		rep.Objective += r.Objective
		rep.Converged = rep.Converged && r.Converged
		for _, w := range r.Warnings {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("tag %d: %s", j+1, w))
		}
		for _, s := range r.Support {
			support[s] = true
		}
	}
	for i := 0; i < n; i++ {
		if support[i] {
			rep.Support = append(rep.Support, i)
		}
	}
	rep.NSupport = len(rep.Support)
	rep.TrainSeconds = time.Since(start).Seconds()
	m.report = rep
	return m, nil
}

// Report implements model.Fitted.
func (m *Indep) Report() *model.Report { return m.report }

// Predict implements model.Fitted: Scores[r][t] is SVM t's decision value
// f_t(x) = Σ yᵢαᵢK(xᵢ, x) + b (eq 6) and Tags[r][t] = f_t(x) > 0.
func (m *Indep) Predict(ds *data.Dataset) (*model.Prediction, error) {
	if ds == nil || ds.X == nil || ds.Rows() == 0 {
		return nil, data.ErrNoData
	}
	n := ds.Rows()
	p := &model.Prediction{Tags: make([][]bool, n), Scores: make([][]float64, n)}
	for i := range p.Tags {
		p.Tags[i] = make([]bool, len(m.Models))
		p.Scores[i] = make([]float64, len(m.Models))
	}
	for t, sm := range m.Models {
		d, err := sm.Decision(ds)
		if err != nil {
			return nil, fmt.Errorf("indepsvm: tag %d: %w", t+1, err)
		}
		for i, v := range d {
			if math.IsNaN(v) {
				return nil, errors.New("indepsvm: the decision value is NaN")
			}
			p.Scores[i][t] = v
			p.Tags[i][t] = v > 0
		}
	}
	return p, nil
}

type savedIndep struct {
	Models   []*svm.Model  `json:"models"`
	TagNames []string      `json:"tag_names,omitempty"`
	Report   *model.Report `json:"report"`
}

// MarshalJSON saves the per-tag SVMs.
func (m *Indep) MarshalJSON() ([]byte, error) {
	return json.Marshal(savedIndep{Models: m.Models, TagNames: m.TagNames, Report: m.report})
}

func loadIndep(raw json.RawMessage) (model.Fitted, error) {
	var s savedIndep
	if err := model.DecodeStrict(raw, &s); err != nil {
		return nil, fmt.Errorf("indepsvm: %w", err)
	}
	if s.TagNames != nil && len(s.TagNames) != len(s.Models) {
		return nil, fmt.Errorf("indepsvm: saved model names %d tags for %d per-tag SVMs", len(s.TagNames), len(s.Models))
	}
	if len(s.Models) == 0 {
		return nil, errors.New("indepsvm: saved model has no per-tag SVMs")
	}
	d := -1
	for t, sm := range s.Models {
		if sm == nil {
			return nil, errors.New("indepsvm: saved model has an empty per-tag SVM")
		}
		if x, _ := sm.InputDims(); x > 0 {
			if d > 0 && x != d {
				return nil, fmt.Errorf("indepsvm: the SVM of tag %d was trained on %d features, another on %d", t+1, x, d)
			}
			d = x
		}
	}
	if s.Report == nil {
		s.Report = &model.Report{Model: "indepsvm"}
	}
	return &Indep{Models: s.Models, TagNames: s.TagNames, report: s.Report}, nil
}

func init() {
	fit := func(ctx context.Context, train *data.Dataset, v model.Values, opt model.Options) (model.Fitted, error) {
		if train == nil {
			return nil, data.ErrNoData
		}
		v, err := spec.MustLookup("indepsvm").Resolve(v)
		if err != nil {
			return nil, err
		}
		k, err := kernel.FromValues(v, "")
		if err != nil {
			return nil, err
		}
		m, err := TrainIndep(ctx, train.X, train.Tags, train.TagNames, IndepParams{Kernel: k, C: v.Float("C")}, opt)
		if err != nil {
			return nil, err
		}
		m.report.Params = v.Clone()
		return m, nil
	}
	model.Register("indepsvm", fit, loadIndep)
}

// InputDims implements model.Shaped.
func (m *Indep) InputDims() (x, z int) {
	for _, sm := range m.Models {
		if x, _ := sm.InputDims(); x > 0 {
			return x, 0
		}
	}
	return 0, 0
}
