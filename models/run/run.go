// Package run is what the app does when the user presses Train: build or load
// the dataset, split and scale it, fit the chosen model, score it, and
// evaluate its decision surface for drawing. The app only calls it and draws
// the Outcome; the CLI's numbers come from the same split and scaling code, so
// the app and `lupi fit` agree on the same data and seed.
package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/metrics"
	"lupilab/models/model"
	"lupilab/models/viz"
)

// Config describes one run.
type Config struct {
	Dataset   *data.Dataset // the full dataset (generated or loaded)
	TrainFrac float64       // fraction of rows for training (stratified), e.g. 0.7
	Seed      int64         // split and model seed
	Scale     string        // "standard", "minmax" or "none"; fitted on training rows only
	Model     string        // model id
	Params    model.Values  // hyper-parameters (missing ones take defaults)
	GridSize  int           // pixels per side of the decision grid (0 ⇒ no grid)
	// Rows, when set, is the split itself (row indices of Dataset) instead
	// of a stratified split by TrainFrac and Seed: the app keeps the split
	// of generated data fixed while the user edits the points.
	Rows *Rows
	// MemoryBudget, when > 0, is the most memory (bytes) the fit may add:
	// a fit predicted to need more is refused before it builds anything
	// (model.Options.MemoryBudget).
	MemoryBudget float64
	// Watch, when not nil, receives the fit's snapshots (model.Watch); the
	// time spent in it is not counted as training time.
	Watch *model.Watch
}

// Rows is a split given by row indices.
type Rows struct {
	Train, Test []int
}

// Outcome is everything the app shows after a run.
type Outcome struct {
	Spec        *model.Spec
	Params      model.Values
	Train, Test *data.Dataset // scaled
	Scaler      *data.Scaler  // fitted on the training rows; nil when unscaled
	// TrainRows and TestRows are the rows of the configured dataset that
	// make Train and Test (nil for an outcome built otherwise).
	TrainRows, TestRows []int
	Fitted              model.Fitted
	Report              *model.Report
	TrainPred           *model.Prediction
	TestPred            *model.Prediction
	TrainAcc            float64
	TestAcc             float64
	Confusion           [][]int // test confusion matrix: [true][predicted]
	// Multi-label scores (tag data): train and test.
	TrainTags, TestTags *metrics.MultiLabel
	// FitSeconds is the training time without the pauses spent in progress
	// callbacks (in the browser, where the page gets its turns);
	// FitWallSeconds includes them.
	FitSeconds, FitWallSeconds float64
	// GridSeconds is the time spent computing the decision grid;
	// GridWallSeconds adds the pauses in which the page was given the event
	// loop (progress updates, input) between chunks.
	GridSeconds, GridWallSeconds float64
	// PredictSeconds is the time spent predicting and scoring the training
	// and test rows after the fit.
	PredictSeconds float64
	// Plot coordinates: the data itself when it is 2-D, else a PCA projection
	// fitted on the training rows.
	TrainXY, TestXY *mat.Dense
	Projected       bool
	PCAVar          [2]float64
	Surface         *viz.Surface // nil when the data is not 2-D
	// Second view (two-view data with a 2-D view B): coordinates and the
	// model's view-B surface when it has one.
	TrainZXY, TestZXY *mat.Dense
	SurfaceB          *viz.Surface
	// TagSurfaces holds one surface per tag (multi-label models on 2-D data).
	TagSurfaces []*viz.Surface

	// Planes holds, per pixel of the grid(s), the signed distance to each
	// proximal surface of a binary twin model (keys "pos", "neg" or "A+",
	// "A-", "B+", "B-"); nil for other models.
	Planes map[string][]float64

	progress func(model.Progress)
	paused   time.Duration // time spent in progress callbacks from tick
}

// tick reports drawing progress between chunks of the decision grid.
func (o *Outcome) tick() {
	if o.progress != nil {
		t := time.Now()
		o.progress(model.Progress{Fraction: 1, Stage: "predicting"})
		o.paused += time.Since(t)
	}
}

// gridDone records the grid's wall and compute times since start (paused0:
// the pauses before the grid started).
func (o *Outcome) gridDone(start time.Time, paused0 time.Duration) {
	wall := time.Since(start)
	o.GridWallSeconds = wall.Seconds()
	o.GridSeconds = (wall - (o.paused - paused0)).Seconds()
}

// Prepare splits and scales the dataset.
func Prepare(cfg Config) (train, test *data.Dataset, err error) {
	p, err := prepare(cfg)
	if err != nil {
		return nil, nil, err
	}
	return p.train, p.test, nil
}

// prepared is a split, scaled dataset.
type prepared struct {
	train, test *data.Dataset
	sc          *data.Scaler
	rows        Rows
}

// prepare splits and scales the dataset and returns the scaler (nil for
// "none").
func prepare(cfg Config) (*prepared, error) {
	if cfg.Dataset == nil {
		return nil, errors.New("no dataset")
	}
	if err := cfg.Dataset.Validate(); err != nil {
		return nil, err
	}
	var rows Rows
	if cfg.Rows != nil {
		rows = *cfg.Rows
		if len(rows.Train) == 0 || len(rows.Test) == 0 {
			return nil, errors.New("the split leaves one side empty")
		}
	} else {
		frac := cfg.TrainFrac
		if frac <= 0 || frac >= 1 {
			return nil, fmt.Errorf("training fraction %v must be in (0, 1)", frac)
		}
		var err error
		if rows.Train, rows.Test, err = data.StratifiedSplitRows(cfg.Dataset, frac, cfg.Seed); err != nil {
			return nil, err
		}
	}
	p := &prepared{train: data.Subset(cfg.Dataset, rows.Train), test: data.Subset(cfg.Dataset, rows.Test), rows: rows}
	if cfg.Scale != "" && cfg.Scale != "none" {
		sc, err := data.FitScaler(p.train, cfg.Scale)
		if err != nil {
			return nil, err
		}
		p.sc = sc
		p.train, p.test = sc.Apply(p.train), sc.Apply(p.test)
	}
	return p, nil
}

// Do runs the whole pipeline. progress may be nil.
func Do(ctx context.Context, cfg Config, progress func(model.Progress)) (*Outcome, error) {
	spec, err := model.Lookup(cfg.Model)
	if err != nil {
		return nil, err
	}
	params, err := spec.Resolve(cfg.Params)
	if err != nil {
		return nil, err
	}
	if err := Compatible(spec, cfg.Dataset); err != nil {
		return nil, err
	}
	p, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	train := p.train
	o := &Outcome{Spec: spec, Params: params, Train: train, Test: p.test, Scaler: p.sc, progress: progress,
		TrainRows: p.rows.Train, TestRows: p.rows.Test}
	if progress != nil {
		progress(model.Progress{Fraction: 0, Stage: "fitting"})
	}
	start := time.Now()
	var clock model.PauseClock
	opt := model.Options{Seed: cfg.Seed, Progress: clock.Wrap(progress), MemoryBudget: cfg.MemoryBudget}
	if w := cfg.Watch; w != nil {
		opt.Watch = &model.Watch{Due: w.Due, Take: func(s model.Snapshot) {
			t := time.Now()
			w.Take(s)
			clock.Paused += time.Since(t)
		}}
	}
	o.Fitted, err = spec.Fit(ctx, train, params, opt)
	if err != nil {
		return nil, err
	}
	wall := time.Since(start)
	o.FitWallSeconds, o.FitSeconds = wall.Seconds(), (wall - clock.Paused).Seconds()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := o.finish(cfg.GridSize); err != nil {
		return nil, err
	}
	return o, nil
}

// Layout splits and scales cfg's data and lays out its points as a fit of
// cfg.Model would show them (the data's own two features, or the training
// rows' first two principal components; view B for two-view models), with
// no model: the app draws the data before a fit ends.
func Layout(cfg Config) (*Outcome, error) {
	spec, err := model.Lookup(cfg.Model)
	if err != nil {
		return nil, err
	}
	p, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	o := &Outcome{Spec: spec, Train: p.train, Test: p.test, Scaler: p.sc, TrainRows: p.rows.Train, TestRows: p.rows.Test}
	if err := o.plot(0); err != nil {
		return nil, err
	}
	return o, nil
}

// Score evaluates an already fitted model (e.g. one imported from a file) on
// cfg's split: predictions, scores and the decision surface, no fitting. A
// model saved with its scaler (model.Scaled) brings its own scaling: the
// split is scaled with it (not refitted), so the outcome is in the same
// coordinates, with the same Scaler, as the fit that saved it.
func Score(cfg Config, spec *model.Spec, f model.Fitted) (*Outcome, error) {
	if err := Compatible(spec, cfg.Dataset); err != nil {
		return nil, err
	}
	var sc *data.Scaler
	if s, ok := f.(*model.Scaled); ok {
		cfg.Scale = "none"
		f, sc = s.Inner, s.Scaler
	}
	p, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	train, test := p.train, p.test
	if sc != nil {
		if train, err = sc.Transform(train); err != nil {
			return nil, fmt.Errorf("the data does not fit the model's saved scaling: %w", err)
		}
		if test, err = sc.Transform(test); err != nil {
			return nil, fmt.Errorf("the data does not fit the model's saved scaling: %w", err)
		}
	}
	o := &Outcome{Spec: spec, Train: train, Test: test, Fitted: f, Scaler: sc, TrainRows: p.rows.Train, TestRows: p.rows.Test}
	if r := f.Report(); r != nil {
		o.Params = r.Params
	}
	if err := o.finish(cfg.GridSize); err != nil {
		return nil, err
	}
	return o, nil
}

// finish predicts, scores and plots a fitted outcome.
func (o *Outcome) finish(gridSize int) error {
	var err error
	o.Report = o.Fitted.Report()
	if o.Report == nil {
		o.Report = &model.Report{Model: o.Spec.ID}
	}
	start := time.Now()
	if o.TrainPred, err = model.PredictChunked(o.Fitted, forPredict(o.Spec, o.Train), o.tick); err != nil {
		return err
	}
	if o.TestPred, err = model.PredictChunked(o.Fitted, forPredict(o.Spec, o.Test), o.tick); err != nil {
		return err
	}
	if err := o.score(); err != nil {
		return err
	}
	o.PredictSeconds = time.Since(start).Seconds()
	return o.plot(gridSize)
}

// Compatible says whether a model can run on a dataset (see
// model.Spec.CheckData).
func Compatible(spec *model.Spec, ds *data.Dataset) error { return spec.CheckData(ds) }

// forPredict hides Z from models that may only use it while training.
func forPredict(spec *model.Spec, ds *data.Dataset) *data.Dataset { return spec.ForPredict(ds) }

func (o *Outcome) plot(size int) error {
	if o.Train.Dim() == 2 {
		o.TrainXY, o.TestXY = o.Train.X, o.Test.X
	} else {
		p, err := viz.FitPCA(o.Train.X)
		if err != nil {
			return nil // nothing to draw; not an error for the run
		}
		o.TrainXY, o.TestXY, o.Projected, o.PCAVar = p.Apply(o.Train.X), p.Apply(o.Test.X), true, p.Var
	}
	if o.Spec.Z == model.ZView && o.Train.ZDim() == 2 {
		o.TrainZXY, o.TestZXY = o.Train.Z, o.Test.Z
	}
	if size < 2 || o.Projected {
		return nil
	}
	start, paused0 := time.Now(), o.paused
	size = o.gridSide(size)
	g, err := viz.BoundsOf(size, size, 0.08, o.TrainXY, o.TestXY)
	if err != nil {
		return err
	}
	if o.Spec.Task == model.MultiLabel {
		o.TagSurfaces, err = viz.EvaluateTags(o.Fitted, g, o.Train.NumTags(), o.tick)
		o.gridDone(start, paused0)
		return err
	}
	classes := o.Train.Classes
	if o.Spec.Z == model.ZView {
		if o.TrainZXY == nil {
			return nil
		}
		gb, err := viz.BoundsOf(size, size, 0.08, o.TrainZXY, o.TestZXY)
		if err != nil {
			return err
		}
		o.Surface, o.SurfaceB, err = viz.EvaluateViews(o.Fitted, g, gb, classes, o.tick)
		if err != nil {
			return err
		}
	} else {
		o.Surface, err = viz.Evaluate(o.Fitted, o.Spec, g, classes, o.tick)
		if err != nil {
			return err
		}
	}
	if err := o.planes(g); err != nil {
		return err
	}
	o.gridDone(start, paused0)
	return nil
}

// planar is implemented by the twin SVMs (twin.Planes): the signed,
// ‖ω‖-normalised value of each proximal surface.
type planar interface {
	PlaneValues(ds *data.Dataset) (map[string][]float64, error)
}

// planes evaluates a binary twin model's proximal surfaces over the grid
// (and view B's grid for two-view models), in chunks.
func (o *Outcome) planes(g viz.Grid) error {
	c, ok := o.Fitted.(*model.Classifier)
	if !ok || len(c.Models) != 1 {
		return nil
	}
	pm, ok := c.Models[0].(planar)
	if !ok {
		return nil
	}
	X := g.Points()
	var Z *mat.Dense
	if o.SurfaceB != nil {
		Z = o.SurfaceB.Grid.Points()
	}
	n, _ := X.Dims()
	out := map[string][]float64{}
	for lo := 0; lo < n; lo += 2000 {
		hi := min(lo+2000, n)
		part := &data.Dataset{X: X.Slice(lo, hi, 0, 2).(*mat.Dense)}
		if Z != nil {
			part.Z = Z.Slice(lo, hi, 0, 2).(*mat.Dense)
		}
		v, err := pm.PlaneValues(part)
		if err != nil {
			return err
		}
		for k, x := range v {
			out[k] = append(out[k], x...)
		}
		o.tick()
	}
	o.Planes = out
	return nil
}

// GridBudget is the time the decision grid may take; models whose
// prediction is expensive (GPs with predictive variances, big kernel
// expansions) get a coarser grid rather than a frozen page.
var GridBudget = 700 * time.Millisecond

// gridSide picks the grid resolution: it times the prediction of a probe of
// 32×32 grid points, extrapolates to the full grid and shrinks the side until
// the estimate fits GridBudget (never below 48).
func (o *Outcome) gridSide(size int) int {
	if viz.FastGrid(o.Fitted) {
		return size
	}
	g, err := viz.BoundsOf(32, 32, 0.08, o.TrainXY, o.TestXY)
	if err != nil || size <= 48 {
		return size
	}
	pts := g.Points()
	probe := &data.Dataset{X: pts, Classes: o.Train.Classes}
	if o.Spec.Z == model.ZView {
		probe.Z = pts
	}
	start := time.Now()
	if _, err := model.PredictChunked(o.Fitted, probe, o.tick); err != nil {
		return size // the real evaluation will report the error
	}
	perPoint := time.Since(start).Seconds() / float64(32*32)
	for size > 48 && perPoint*float64(size*size) > GridBudget.Seconds() {
		size = size * 4 / 5
	}
	return size
}

// score computes accuracy and the confusion matrix (classes) or the
// multi-label scores (tags).
func (o *Outcome) score() error {
	var err error
	if o.Train.Y != nil {
		if o.TrainAcc, err = metrics.Accuracy(o.Train.Y, o.TrainPred.Labels); err != nil {
			return err
		}
		if o.TestAcc, err = metrics.Accuracy(o.Test.Y, o.TestPred.Labels); err != nil {
			return err
		}
		o.Confusion, err = metrics.Confusion(o.Test.Y, o.TestPred.Labels, len(o.Train.Classes))
		return err
	}
	if o.Train.Tags != nil {
		if o.TrainTags, err = metrics.Tags(metrics.TagsOf(o.Train.Tags), o.TrainPred.Tags); err != nil {
			return err
		}
		o.TestTags, err = metrics.Tags(metrics.TagsOf(o.Test.Tags), o.TestPred.Tags)
		return err
	}
	return nil
}

// DefaultGenerator is spec.Spec.DefaultGenerator for a registered model.
func DefaultGenerator(s *model.Spec) string { return s.DefaultGenerator() }
