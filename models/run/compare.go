package run

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"lupilab/models/data"
	"lupilab/models/metrics"
	"lupilab/models/model"
)

// CompareRow is one model's result in a comparison on a shared split.
type CompareRow struct {
	Model string
	Out   *Outcome // nil when the model failed
	Err   error
}

// Compare fits several models on the same split (cfg's dataset, fraction,
// seed and scaling) and returns their outcomes in order. params holds
// per-model hyper-parameters (missing ⇒ defaults). A model that fails is
// reported in its row; the comparison goes on. Cancellation stops it.
func Compare(ctx context.Context, cfg Config, ids []string, params map[string]model.Values, progress func(model.Progress)) ([]CompareRow, error) {
	if len(ids) == 0 {
		return nil, errors.New("choose at least one model to compare")
	}
	rows := make([]CompareRow, 0, len(ids))
	for k, id := range ids {
		if err := ctx.Err(); err != nil {
			return rows, err
		}
		c := cfg
		c.Model, c.Params = id, params[id]
		sub := scaleProgress(progress, k, len(ids), id)
		out, err := Do(ctx, c, sub)
		if errors.Is(err, context.Canceled) {
			return rows, err
		}
		rows = append(rows, CompareRow{Model: id, Out: out, Err: err})
	}
	return rows, nil
}

func scaleProgress(progress func(model.Progress), k, n int, stage string) func(model.Progress) {
	if progress == nil {
		return nil
	}
	return func(p model.Progress) {
		f := p.Fraction
		if f < 0 {
			f = 0
		}
		p.Fraction = (float64(k) + f) / float64(n)
		if p.Stage == "" {
			p.Stage = stage
		} else {
			p.Stage = stage + ": " + p.Stage
		}
		progress(p)
	}
}

// GridResult is a k-fold cross-validation grid over two parameters.
type GridResult struct {
	Model      string
	P1, P2     string      // parameter names (rows: P1, columns: P2)
	V1, V2     []string    // their values
	Score      [][]float64 // mean CV score (accuracy, or micro F1 for tags); NaN when the cell failed
	SD         [][]float64 // standard deviation over folds
	Errs       [][]string  // the error of a failed cell
	Best       [2]int      // indices of the best cell
	Folds      int
	Metric     string
	Seconds    float64
	Cells, Fit int // cells evaluated, fits done
}

// GridSearch runs k-fold cross-validation on the training part of cfg's
// split for every pair of values of two parameters of cfg.Model (other
// parameters from cfg.Params). Scaling is refitted on each fold's training
// rows. The test rows are never used.
func GridSearch(ctx context.Context, cfg Config, p1 string, v1 []string, p2 string, v2 []string, folds int, progress func(model.Progress)) (*GridResult, error) {
	spec, err := model.Lookup(cfg.Model)
	if err != nil {
		return nil, err
	}
	if p1 == p2 {
		return nil, errors.New("choose two different parameters")
	}
	for _, p := range []string{p1, p2} {
		if spec.Param(p) == nil {
			return nil, fmt.Errorf("%s has no parameter %q", spec.Name, p)
		}
	}
	if len(v1) == 0 || len(v2) == 0 {
		return nil, errors.New("each parameter needs at least one value")
	}
	if folds < 2 {
		return nil, fmt.Errorf("%d folds: need at least 2", folds)
	}
	if err := Compatible(spec, cfg.Dataset); err != nil {
		return nil, err
	}
	train, _, err := data.StratifiedSplit(cfg.Dataset, cfg.TrainFrac, cfg.Seed)
	if err != nil {
		return nil, err
	}
	var foldRows [][]int
	if train.Y != nil {
		foldRows, err = data.StratifiedKFold(train.Y, folds, cfg.Seed)
	} else {
		foldRows, err = plainKFold(train.Rows(), folds, cfg.Seed)
	}
	if err != nil {
		return nil, err
	}
	start := time.Now()
	g := &GridResult{Model: spec.ID, P1: p1, P2: p2, V1: v1, V2: v2, Folds: folds, Metric: "accuracy"}
	if train.Y == nil {
		g.Metric = "micro F1"
	}
	total := len(v1) * len(v2) * folds
	g.Score, g.SD, g.Errs = grid(len(v1), len(v2)), grid(len(v1), len(v2)), make([][]string, len(v1))
	bestScore := math.Inf(-1)
	for i := range v1 {
		g.Errs[i] = make([]string, len(v2))
		for j := range v2 {
			vals := cfg.Params.Clone()
			if vals == nil {
				vals = model.Values{}
			}
			vals[p1], vals[p2] = v1[i], v2[j]
			resolved, err := spec.Resolve(vals)
			if err != nil {
				g.Score[i][j], g.Errs[i][j] = math.NaN(), err.Error()
				continue
			}
			var scores []float64
			for f, testRows := range foldRows {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				done := (i*len(v2)+j)*folds + f
				sub := scaleProgress(progress, done, total, fmt.Sprintf("%s=%s, %s=%s, fold %d", p1, v1[i], p2, v2[j], f+1))
				s, err := foldScore(ctx, spec, train, testRows, resolved, cfg, sub)
				g.Fit++
				if errors.Is(err, context.Canceled) {
					return nil, err
				}
				if err != nil {
					g.Errs[i][j] = err.Error()
					break
				}
				scores = append(scores, s)
			}
			g.Cells++
			if g.Errs[i][j] != "" || len(scores) == 0 {
				g.Score[i][j], g.SD[i][j] = math.NaN(), math.NaN()
				continue
			}
			g.Score[i][j], g.SD[i][j] = meanSD(scores)
			if g.Score[i][j] > bestScore {
				bestScore, g.Best = g.Score[i][j], [2]int{i, j}
			}
		}
	}
	g.Seconds = time.Since(start).Seconds()
	if math.IsInf(bestScore, -1) {
		return g, errors.New("every cell of the grid failed: " + g.Errs[0][0])
	}
	return g, nil
}

func foldScore(ctx context.Context, spec *model.Spec, train *data.Dataset, testRows []int, vals model.Values, cfg Config, progress func(model.Progress)) (float64, error) {
	in := make([]bool, train.Rows())
	for _, r := range testRows {
		in[r] = true
	}
	var fitRows []int
	for r := range in {
		if !in[r] {
			fitRows = append(fitRows, r)
		}
	}
	fit, val := data.Subset(train, fitRows), data.Subset(train, testRows)
	if cfg.Scale != "" && cfg.Scale != "none" {
		sc, err := data.FitScaler(fit, cfg.Scale)
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
	f, err := spec.Fit(ctx, fit, vals, model.Options{Seed: cfg.Seed, Progress: progress})
	if err != nil {
		return 0, err
	}
	p, err := f.Predict(forPredict(spec, val))
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

func plainKFold(n, k int, seed int64) ([][]int, error) {
	if k > n {
		return nil, fmt.Errorf("%d folds for %d rows", k, n)
	}
	y := make([]int, n) // one "class": StratifiedKFold then shuffles and deals rows
	return data.StratifiedKFold(y, k, seed)
}

func grid(r, c int) [][]float64 {
	g := make([][]float64, r)
	for i := range g {
		g[i] = make([]float64, c)
	}
	return g
}

func meanSD(x []float64) (float64, float64) {
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	if len(x) > 1 {
		s /= float64(len(x) - 1)
	}
	return m, math.Sqrt(s)
}

// LogValues returns n values spaced evenly in log10 between lo and hi,
// formatted compactly (for grids over C, γ, …).
func LogValues(lo, hi float64, n int) []string {
	if n < 2 || lo <= 0 || hi <= lo {
		return []string{strconv.FormatFloat(lo, 'g', 3, 64)}
	}
	out := make([]string, n)
	a, b := math.Log10(lo), math.Log10(hi)
	for i := range out {
		out[i] = strconv.FormatFloat(math.Pow(10, a+(b-a)*float64(i)/float64(n-1)), 'g', 3, 64)
	}
	return out
}
