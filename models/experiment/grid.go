package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"lupilab/models/data"
	"lupilab/models/metrics"
	"lupilab/models/model"
	"lupilab/models/stats"
)

// Axis is one dimension of a parameter grid: every named parameter takes
// the same value (tied parameters, as paper 001 ties C₁ = C₂).
type Axis struct {
	Names  []string `json:"names"`
	Values []string `json:"values"`
}

// Cells expands base over the axes (the first axis varies slowest) into one
// set of values per grid cell; base is not modified. No axes: one cell,
// base itself.
func Cells(base model.Values, axes ...Axis) []model.Values {
	out := []model.Values{base.Clone()}
	for _, a := range axes {
		next := make([]model.Values, 0, len(out)*len(a.Values))
		for _, v := range out {
			for _, val := range a.Values {
				w := v.Clone()
				for _, n := range a.Names {
					w[n] = val
				}
				next = append(next, w)
			}
		}
		out = next
	}
	return out
}

// Candidate is one scored point of a search.
type Candidate struct {
	Score     float64 // higher is better
	OK        bool    // false: the point failed and is not eligible
	Converged bool    // the fit reached its tolerance (see Best)
}

// Better reports whether c should replace the current best b under the
// selection rule of Best.
func (c Candidate) Better(b Candidate, preferConverged bool) bool {
	if preferConverged && c.Converged != b.Converged {
		return c.Converged
	}
	return c.Score > b.Score
}

// Best is the selection rule of every search: the eligible candidate (OK,
// score not NaN) with the highest score, the earliest on ties. With
// preferConverged, a fit that hit its iteration cap is not eligible while
// any converged fit exists — its score belongs to an unfinished
// optimisation, not to its parameters — so a converged candidate beats a
// capped one whatever their scores. −1 when no candidate is eligible.
func Best(cands []Candidate, preferConverged bool) int {
	best := -1
	for i, c := range cands {
		if !c.OK || math.IsNaN(c.Score) {
			continue
		}
		if best < 0 || c.Better(cands[best], preferConverged) {
			best = i
		}
	}
	return best
}

// CV is a k-fold cross-validation grid search of one registered model on
// one training set: each cell of the grid is fitted on k − 1 folds and
// scored on the k-th. It is the search behind the app's Tune and `lupi
// tune`; one cell is one task (RunCell), and Select picks the best cell
// from the cells' results, so the cells can run anywhere, in any order.
type CV struct {
	Model string       `json:"model"` // registry id
	Base  model.Values `json:"base,omitempty"`
	Axes  []Axis       `json:"axes"`
	Folds int          `json:"folds"`
	// Seed draws the folds (stratified by class when the data have
	// classes) and seeds every fit.
	Seed int64 `json:"seed"`
	// Scale is refitted on each fold's training rows ("" or "none": no
	// scaling).
	Scale string `json:"scale,omitempty"`
}

// CellResult is one cell's cross-validation: the score on each fold
// (accuracy; micro F1 for tags), or the error that stopped it.
type CellResult struct {
	Scores []float64 `json:"scores,omitempty"`
	Err    string    `json:"error,omitempty"`
	Fits   int       `json:"fits"`
}

// Mean is the cell's mean score and its standard deviation over folds (NaN
// for a failed cell).
func (c CellResult) Mean() (mean, sd float64) {
	if c.Err != "" || len(c.Scores) == 0 {
		return math.NaN(), math.NaN()
	}
	return stats.MeanSD(c.Scores)
}

// Check validates the search against the registry and the data.
func (cv *CV) Check(ds *data.Dataset) error {
	spec, err := model.Lookup(cv.Model)
	if err != nil {
		return err
	}
	if len(cv.Axes) == 0 {
		return errors.New("the grid has no parameter")
	}
	seen := map[string]bool{}
	for _, a := range cv.Axes {
		if len(a.Values) == 0 {
			return fmt.Errorf("parameter %s needs at least one value", strings.Join(a.Names, "="))
		}
		for _, n := range a.Names {
			if spec.Param(n) == nil {
				return fmt.Errorf("%s has no parameter %q", spec.Name, n)
			}
			if seen[n] {
				return fmt.Errorf("parameter %q is searched twice", n)
			}
			seen[n] = true
		}
	}
	if cv.Folds < 2 {
		return fmt.Errorf("%d folds: need at least 2", cv.Folds)
	}
	return spec.CheckData(ds)
}

// Cells returns the grid's cells (first axis slowest).
func (cv *CV) Cells() []model.Values {
	base := cv.Base
	if base == nil {
		base = model.Values{}
	}
	return Cells(base, cv.Axes...)
}

// FoldRows returns the test rows of each fold: stratified by class when ds
// has classes (data.StratifiedKFold), random otherwise (data.KFold).
func (cv *CV) FoldRows(ds *data.Dataset) ([][]int, error) {
	if ds.Y != nil {
		return data.StratifiedKFold(ds.Y, cv.Folds, cv.Seed)
	}
	return data.KFold(ds.Rows(), cv.Folds, cv.Seed)
}

// RunCell cross-validates cell i on ds with the given folds. A fit or
// parameter error is the cell's (Err); only cancellation is returned.
func (cv *CV) RunCell(ctx context.Context, ds *data.Dataset, folds [][]int, i int, progress func(model.Progress)) (CellResult, error) {
	spec, err := model.Lookup(cv.Model)
	if err != nil {
		return CellResult{}, err
	}
	cells := cv.Cells()
	if i < 0 || i >= len(cells) {
		return CellResult{}, fmt.Errorf("cell %d of %d", i, len(cells))
	}
	vals, err := spec.Resolve(cells[i])
	if err != nil {
		return CellResult{Err: err.Error()}, nil
	}
	var res CellResult
	for f, testRows := range folds {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		s, err := cv.foldScore(ctx, spec, ds, testRows, vals, progress)
		res.Fits++
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if err != nil {
			res.Scores, res.Err = nil, fmt.Sprintf("fold %d: %v", f+1, err)
			return res, nil
		}
		res.Scores = append(res.Scores, s)
	}
	return res, nil
}

func (cv *CV) foldScore(ctx context.Context, spec *model.Spec, ds *data.Dataset, testRows []int, vals model.Values, progress func(model.Progress)) (float64, error) {
	fit, val := data.Subset(ds, data.Complement(ds.Rows(), testRows)), data.Subset(ds, testRows)
	if cv.Scale != "" && cv.Scale != "none" {
		sc, err := data.FitScaler(fit, cv.Scale)
		if err != nil {
			return 0, err
		}
		fit, val = sc.Apply(fit), sc.Apply(val)
	}
	if fit.Y != nil {
		if err := fit.RequireClasses(); err != nil {
			return 0, err
		}
	}
	f, err := spec.Fit(ctx, fit, vals, model.Options{Seed: cv.Seed, Progress: progress})
	if err != nil {
		return 0, err
	}
	p, err := f.Predict(spec.ForPredict(val))
	if err != nil {
		return 0, err
	}
	if val.Y != nil {
		return metrics.Accuracy(val.Y, p.Labels)
	}
	m, err := metrics.Tags(metrics.TagsOf(val.Tags), p.Tags)
	if err != nil {
		return 0, err
	}
	return m.Micro.F1, nil
}

// Select returns the best cell by mean CV score (the earliest on ties; see
// Best), −1 when every cell failed.
func Select(cells []CellResult) int {
	cands := make([]Candidate, len(cells))
	for i, c := range cells {
		m, _ := c.Mean()
		cands[i] = Candidate{Score: m, OK: c.Err == "" && len(c.Scores) > 0}
	}
	return Best(cands, false)
}

// Run cross-validates every cell, jobs at a time (≤ 1: one after the
// other; the result does not depend on it), and returns the cells' results
// and the best cell (−1 when all failed). progress receives the fraction of
// cells done (one call at a time) and, with jobs ≤ 1, the fits' reports.
func (cv *CV) Run(ctx context.Context, ds *data.Dataset, jobs int, progress func(model.Progress)) ([]CellResult, int, error) {
	if err := cv.Check(ds); err != nil {
		return nil, -1, err
	}
	folds, err := cv.FoldRows(ds)
	if err != nil {
		return nil, -1, err
	}
	n := len(cv.Cells())
	out := make([]CellResult, n)
	err = Parallel(ctx, n, jobs, func(ctx context.Context, i int, report func(model.Progress)) error {
		var err error
		out[i], err = cv.RunCell(ctx, ds, folds, i, report)
		return err
	}, progress)
	if err != nil {
		return nil, -1, err
	}
	return out, Select(out), nil
}
