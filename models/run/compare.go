package run

import (
	"context"
	"errors"
	"math"
	"strconv"
	"time"

	"lupilab/models/data"
	"lupilab/models/experiment"
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
// parameters from cfg.Params): experiment.CV, one cell at a time, with the
// folds stratified by class (random for tags) and scaling refitted on each
// fold's training rows. The test rows are never used.
func GridSearch(ctx context.Context, cfg Config, p1 string, v1 []string, p2 string, v2 []string, folds int, progress func(model.Progress)) (*GridResult, error) {
	if p1 == p2 {
		return nil, errors.New("choose two different parameters")
	}
	cv := &experiment.CV{Model: cfg.Model, Base: cfg.Params, Folds: folds, Seed: cfg.Seed, Scale: cfg.Scale,
		Axes: []experiment.Axis{{Names: []string{p1}, Values: v1}, {Names: []string{p2}, Values: v2}}}
	if err := cv.Check(cfg.Dataset); err != nil {
		return nil, err
	}
	train, _, err := data.StratifiedSplit(cfg.Dataset, cfg.TrainFrac, cfg.Seed)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	cells, best, err := cv.Run(ctx, train, 1, progress)
	if err != nil {
		return nil, err
	}
	g := &GridResult{Model: cfg.Model, P1: p1, P2: p2, V1: v1, V2: v2, Folds: folds, Metric: "accuracy",
		Score: grid(len(v1), len(v2)), SD: grid(len(v1), len(v2)), Errs: make([][]string, len(v1))}
	if train.Y == nil {
		g.Metric = "micro F1"
	}
	for i := range v1 {
		g.Errs[i] = make([]string, len(v2))
		for j := range v2 {
			c := cells[i*len(v2)+j]
			g.Score[i][j], g.SD[i][j] = c.Mean()
			g.Errs[i][j] = c.Err
			g.Fit += c.Fits
			if c.Fits > 0 {
				g.Cells++
			}
		}
	}
	g.Seconds = time.Since(start).Seconds()
	if best < 0 {
		return g, errors.New("every cell of the grid failed: " + g.Errs[0][0])
	}
	g.Best = [2]int{best / len(v2), best % len(v2)}
	return g, nil
}

func grid(r, c int) [][]float64 {
	g := make([][]float64, r)
	for i := range g {
		g[i] = make([]float64, c)
	}
	return g
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
