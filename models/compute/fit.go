package compute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/metrics"
	"lupilab/models/model"
	"lupilab/models/run"
	"lupilab/models/spec"
	"lupilab/models/wire"
)

// MemoryBudget is the most memory one fit may add in a compute worker: a
// WebAssembly instance addresses at most 4 GiB and Go's collector needs
// room beside the live data, so fits predicted to need more than 1 GiB are
// refused before they build anything (with what, how much, and how many
// rows would fit) instead of killing the worker.
const MemoryBudget = 1 << 30

// part is the body of a fit job's Part and Result messages: the fit's
// result first, then its maps (a preview, then the full map).
type part = wire.Part

// config is the run of a model on the data of a request: split as the
// request says (edited generated data: the generated rows keep their side
// of the split, added rows train), scaled on the training rows.
func config(ed *edited, split wire.Split, id string, params model.Values) (run.Config, error) {
	scale := split.Scale
	if scale == "" {
		scale = "standard"
	}
	cfg := run.Config{Dataset: ed.ds, TrainFrac: split.TrainFrac, Seed: split.Seed, Scale: scale, Model: id, Params: params, MemoryBudget: MemoryBudget}
	if ed.base != nil {
		rows, err := ed.split(split)
		if err != nil {
			return cfg, err
		}
		cfg.Rows = rows
	}
	return cfg, nil
}

// fit trains the requested model and scores it; with Grid it then sends the
// result as a Part and maps the decision (a preview, then the full map).
func (e *Engine) fit(ctx context.Context, req wire.FitRequest, j *job) (any, *wire.Bin, error) {
	o, ed, notes, err := e.train(ctx, req, j)
	if err != nil {
		return nil, nil, err
	}
	res, err := e.result(o, ed, req.Split, req.Keep)
	if err != nil {
		return nil, nil, err
	}
	res.Notes = notes
	return e.withMaps(ctx, res, o, req.Grid, j)
}

// train runs the requested fit: the outcome, the data it used and the
// notes on adapted widths.
func (e *Engine) train(ctx context.Context, req wire.FitRequest, j *job) (*run.Outcome, *edited, []wire.Note, error) {
	s, err := model.Lookup(req.Model)
	if err != nil {
		return nil, nil, nil, err
	}
	ed, err := e.dataset(req.Data)
	if err != nil {
		return nil, nil, nil, err
	}
	params := model.Values(req.Params).Clone()
	if params == nil {
		params = model.Values{}
	}
	var notes []wire.Note
	if req.AdaptWidths {
		notes = AdaptWidths(s.Spec, params, ed.ds)
	}
	cfg, err := config(ed, req.Split, req.Model, params)
	if err != nil {
		return nil, nil, nil, err
	}
	if req.Budget > 0 {
		cfg.MemoryBudget = float64(req.Budget)
	}
	if req.Watch {
		if cfg.Watch, err = e.watch(cfg, req.Grid != nil, req.WatchSpeed, j); err != nil {
			return nil, nil, nil, err
		}
	}
	j.progress(model.Progress{Fraction: 0, Stage: "fitting"})
	o, err := run.Do(ctx, cfg, j.progress)
	if err != nil {
		return nil, nil, nil, err
	}
	return o, ed, notes, nil
}

// calibrate runs a fit that measures the device's speed: the page reads
// its timing only, so the result carries nothing else (no points, no saved
// model, no maps: building and decoding those would cost both threads).
func (e *Engine) calibrate(ctx context.Context, req wire.FitRequest, j *job) (any, *wire.Bin, error) {
	req.Grid, req.Keep, req.Watch = nil, false, false
	o, _, _, err := e.train(ctx, req, j)
	if err != nil {
		return nil, nil, err
	}
	return part{Fit: &wire.FitResult{Model: o.Spec.ID, Params: o.Params,
		Timing: wire.Timing{Fit: o.FitSeconds, FitWall: o.FitWallSeconds, Predict: o.PredictSeconds}}}, nil, nil
}

// watchPace is the shortest time between two snapshots sent to the page at
// speed 1: a fit of a few milliseconds is slowed down so that people see it
// learn. The page may ask for a faster pace, or for no more snapshots
// (wire.Pace).
const watchPace = 120 * time.Millisecond

// watch sends a watched fit's snapshots as Parts, each with its map of view
// A (WatchSide cells a side, in the frame the result will have) when
// withMaps and the snapshot has a model, at most one every watchPace/speed.
func (e *Engine) watch(cfg run.Config, withMaps bool, speed float64, j *job) (*model.Watch, error) {
	lay, err := run.Layout(cfg) // the split, scaling and frame of the coming result
	if err != nil {
		return nil, err
	}
	plot := plotOf(lay)
	j.pace.start(speed)
	frames := &model.Frames{Interval: watchPace}
	start := time.Now()
	var spent time.Duration // inside Take: not the fit's time
	var sent time.Time
	return &model.Watch{Due: func(iter int) bool {
		speed, skip := j.pace.get()
		if skip {
			return false
		}
		frames.Interval = time.Duration(float64(watchPace) / speed)
		return frames.Due(iter)
	}, Take: func(sn model.Snapshot) {
		speed, skip := j.pace.get()
		if skip {
			return
		}
		t0 := time.Now()
		ws := &wire.Snapshot{Iter: sn.Iter, Stage: sn.Stage, Quantity: sn.Quantity, Value: sn.Value, Log: sn.Log,
			Seconds: (t0.Sub(start) - spent).Seconds(), Speed: speed}
		var gr *wire.GridResult
		var bin *wire.Bin
		if withMaps && sn.Model != nil && len(plot.Maps) > 0 {
			at := *lay
			at.Fitted = sn.Model
			// A snapshot whose map fails (a degenerate iterate) still
			// reports its measure.
			j.quiet = true
			gr, bin, _ = mapOf(&at, plot.Maps[0], plot.Frame, wire.WatchSide, j)
			j.quiet = false
		}
		if wait := time.Duration(float64(watchPace)/speed) - time.Since(sent); !sent.IsZero() && wait > 0 {
			e.sleep(wait)
		}
		j.send(wire.KindPart, part{Snapshot: ws, Grid: gr}, bin)
		sent = time.Now()
		spent += time.Since(t0)
	}}, nil
}

// pace is a watched fit's speed, which a Pace message may change while the
// fit runs (from another goroutine: the worker's message handler).
type pace struct {
	mu    sync.Mutex
	set   bool // by a Pace message, which wins over the request's speed
	speed float64
	skip  bool
}

// clampSpeed keeps a requested speed within [1/4, 64] (0 or less: 1).
func clampSpeed(s float64) float64 {
	if !(s > 0) {
		return 1
	}
	return math.Max(0.25, math.Min(64, s))
}

// start sets the request's speed unless a Pace message came first.
func (p *pace) start(speed float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.set {
		p.speed = clampSpeed(speed)
	}
}

func (p *pace) change(m wire.Pace) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.set = true
	if m.Skip {
		p.skip = true
	} else {
		p.speed = clampSpeed(m.Speed)
	}
}

func (p *pace) get() (speed float64, skip bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return clampSpeed(p.speed), p.skip
}

// Pace changes the pace of job id, a watched fit (wire.Pace); it may come
// before the job has started.
func (e *Engine) Pace(id int64, m wire.Pace) { e.paceOf(id, false).change(m) }

// paceOf returns job id's pace control, made when no Pace message came
// before; a job's start (starting) drops those of earlier jobs, which have
// ended.
func (e *Engine) paceOf(id int64, starting bool) *pace {
	e.paceMu.Lock()
	defer e.paceMu.Unlock()
	if e.paces == nil {
		e.paces = map[int64]*pace{}
	}
	p := e.paces[id]
	if p == nil {
		p = &pace{}
		e.paces[id] = p
	}
	for k := range e.paces {
		if starting && k < id {
			delete(e.paces, k)
		}
	}
	return p
}

// points lays out the data's points without a model.
func (e *Engine) points(req wire.PointsRequest) (*wire.FitResult, error) {
	ed, err := e.dataset(req.Data)
	if err != nil {
		return nil, err
	}
	cfg, err := config(ed, req.Split, req.Model, nil)
	if err != nil {
		return nil, err
	}
	o, err := run.Layout(cfg)
	if err != nil {
		return nil, err
	}
	tr, te := o.Train, o.Test
	res := &wire.FitResult{Model: req.Model, Plot: plotOf(o)}
	ed.relabel(&res.Plot)
	res.Data = wire.DataInfo{Name: tr.Name, Rows: tr.Rows() + te.Rows(), NTrain: tr.Rows(), NTest: te.Rows(),
		Dim: tr.Dim(), ZDim: tr.ZDim(), Classes: tr.Classes, Tags: tr.TagNames, Features: tr.XNames, ZFeatures: tr.ZNames}
	return res, nil
}

// importModel scores a saved model on the request's split.
func (e *Engine) importModel(ctx context.Context, req wire.ImportRequest, j *job) (any, *wire.Bin, error) {
	s, f, err := model.Load([]byte(req.Saved))
	if err != nil {
		return nil, nil, err
	}
	ed, err := e.dataset(req.Data)
	if err != nil {
		return nil, nil, err
	}
	var params model.Values
	if r := f.Report(); r != nil {
		params = r.Params
	}
	cfg, err := config(ed, req.Split, s.ID, params)
	if err != nil {
		return nil, nil, err
	}
	o, err := run.Score(cfg, s, f)
	if err != nil {
		return nil, nil, fmt.Errorf("the imported %s model cannot score this data: %w", s.Name, err)
	}
	res, err := e.result(o, ed, req.Split, req.Keep)
	if err != nil {
		return nil, nil, err
	}
	res.Imported = true
	return e.withMaps(ctx, res, o, req.Grid, j)
}

// withMaps sends res and then its maps, or returns res alone.
func (e *Engine) withMaps(ctx context.Context, res *wire.FitResult, o *run.Outcome, g *wire.GridSpec, j *job) (any, *wire.Bin, error) {
	if g == nil || len(res.Plot.Maps) == 0 {
		return part{Fit: res}, nil, nil
	}
	j.send(wire.KindPart, part{Fit: res}, nil)
	var last *wire.GridResult
	var lastBin *wire.Bin
	for _, view := range res.Plot.Maps {
		frame := res.Plot.Frame
		if view == "B" {
			frame = res.Plot.FrameB
		}
		sides := []int{g.Side}
		if g.Preview > 0 && g.Preview < g.Side {
			sides = []int{g.Preview, g.Side}
		}
		for _, side := range sides {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			gr, bin, err := mapOf(o, view, frame, side, j)
			if err != nil {
				return nil, nil, err
			}
			gr.Preview = side < g.Side
			if last != nil {
				j.send(wire.KindPart, part{Grid: last}, lastBin)
			}
			last, lastBin = gr, bin
		}
	}
	return part{Grid: last}, lastBin, nil
}

// result turns an outcome into what the page shows, keeping the model when
// asked.
func (e *Engine) result(o *run.Outcome, ed *edited, split wire.Split, keep bool) (*wire.FitResult, error) {
	rep, err := reportOf(o.Report)
	if err != nil {
		return nil, err
	}
	res := &wire.FitResult{Model: o.Spec.ID, Params: o.Params, Report: rep,
		Timing: wire.Timing{Fit: o.FitSeconds, FitWall: o.FitWallSeconds, Predict: o.PredictSeconds}}
	tr, te := o.Train, o.Test
	res.Data = wire.DataInfo{Name: tr.Name, Rows: tr.Rows() + te.Rows(), NTrain: tr.Rows(), NTest: te.Rows(),
		Dim: tr.Dim(), ZDim: tr.ZDim(), Classes: tr.Classes, Tags: tr.TagNames, Features: tr.XNames, ZFeatures: tr.ZNames}
	res.Scores = scoresOf(o)
	res.Plot = plotOf(o)
	ed.relabel(&res.Plot)
	b, err := model.SaveScaled(o.Spec.ID, o.Fitted, o.Scaler)
	if err != nil {
		res.Warnings = append(res.Warnings, "This model cannot be exported: "+err.Error())
	} else {
		res.Saved = string(b)
	}
	if keep {
		e.mu.Lock()
		e.next++
		res.Handle = "m" + strconv.Itoa(e.next)
		e.kept.put(res.Handle, &kept{out: o, split: split})
		e.mu.Unlock()
	}
	return res, nil
}

// reportOf copies a model's report into its wire form (through JSON, the
// form the saved model and the CLI use too), refusing non-finite numbers
// with a message instead of an encoding error.
func reportOf(r *model.Report) (wire.Report, error) {
	var out wire.Report
	if r == nil {
		return out, nil
	}
	if k := nonFinite(r); k != "" {
		return out, fmt.Errorf("the fit produced a non-finite %s: the parameters are too extreme for this data", k)
	}
	b, err := json.Marshal(r)
	if err != nil {
		return out, err
	}
	return out, json.Unmarshal(b, &out)
}

func nonFinite(r *model.Report) string {
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
	if bad(r.Objective) {
		return "objective"
	}
	if r.Rho != nil && bad(*r.Rho) {
		return "offset ρ"
	}
	for k, v := range r.Extras {
		if bad(v) {
			return k
		}
	}
	for k, d := range r.Diagnostics {
		for _, v := range d {
			if bad(v) {
				return k
			}
		}
	}
	for _, s := range r.Sub {
		if k := nonFinite(s); k != "" {
			return k
		}
	}
	return ""
}

func scoresOf(o *run.Outcome) wire.Scores {
	s := wire.Scores{TrainAcc: o.TrainAcc, TestAcc: o.TestAcc, Confusion: o.Confusion,
		TrainTags: tagScores(o.TrainTags), TestTags: tagScores(o.TestTags)}
	if o.Train.Y != nil && len(o.Train.Classes) == 2 {
		for _, v := range []string{"A", "B"} {
			trv, tev := o.TrainPred.Views[v], o.TestPred.Views[v]
			if len(trv) != o.Train.Rows() || len(tev) != o.Test.Rows() {
				continue
			}
			if s.Views == nil {
				s.Views = map[string][2]float64{}
			}
			s.Views[v] = [2]float64{signAccuracy(o.Test.Y, tev), signAccuracy(o.Train.Y, trv)}
		}
	}
	return s
}

func signAccuracy(y []int, d []float64) float64 {
	ok := 0
	for i, v := range d {
		if (v > 0) == (y[i] == 1) {
			ok++
		}
	}
	return float64(ok) / float64(len(y))
}

func tagScores(m *metrics.MultiLabel) *wire.TagScores {
	if m == nil {
		return nil
	}
	b, _ := json.Marshal(m)
	var t wire.TagScores
	json.Unmarshal(b, &t)
	return &t
}

// plotOf lays out the points: the data's own two features in their own
// units, or the first two principal components of the (scaled) training
// rows, and view B's two features for two-view data. Maps are computed over
// windows in the same coordinates (mapOf scales them for the model).
func plotOf(o *run.Outcome) wire.PlotData {
	p := wire.PlotData{Projected: o.Projected, PCAVar: o.PCAVar}
	if o.TrainXY == nil {
		return p
	}
	names := o.Train.XNames
	p.Axes = [2]string{axisName(names, 0, "x₁"), axisName(names, 1, "x₂")}
	trainXY, testXY := o.TrainXY, o.TestXY
	if o.Projected {
		p.Axes = [2]string{fmt.Sprintf("PC1 (%.0f %% of variance)", 100*o.PCAVar[0]), fmt.Sprintf("PC2 (%.0f %% of variance)", 100*o.PCAVar[1])}
	} else if o.Scaler != nil {
		trainXY, testXY = unscale(trainXY, o.Scaler.XShift, o.Scaler.XScale), unscale(testXY, o.Scaler.XShift, o.Scaler.XScale)
	}
	p.Train = points(o, o.Train, trainXY, o.TrainPred, o.TrainRows)
	p.Test = points(o, o.Test, testXY, o.TestPred, o.TestRows)
	p.Frame = frameOf(trainXY, testXY)
	if !o.Projected {
		p.Maps = []string{"A"}
	}
	if o.TrainZXY != nil {
		trB, teB := o.TrainZXY, o.TestZXY
		if o.Scaler != nil && len(o.Scaler.ZShift) == 2 {
			trB, teB = unscale(trB, o.Scaler.ZShift, o.Scaler.ZScale), unscale(teB, o.Scaler.ZShift, o.Scaler.ZScale)
		}
		tb := points(o, o.Train, trB, o.TrainPred, o.TrainRows)
		teb := points(o, o.Test, teB, o.TestPred, o.TestRows)
		p.TrainB, p.TestB = &tb, &teb
		p.FrameB = frameOf(trB, teB)
		p.AxesB = [2]string{axisName(o.Train.ZNames, 0, "z₁"), axisName(o.Train.ZNames, 1, "z₂")}
		if !o.Projected {
			p.Maps = append(p.Maps, "B")
		}
	}
	return p
}

// unscale returns shift + scale·x column by column (the first two columns).
func unscale(m *mat.Dense, shift, scale []float64) *mat.Dense {
	r, c := m.Dims()
	out := mat.DenseCopyOf(m)
	for j := 0; j < min(c, 2, len(shift)); j++ {
		for i := 0; i < r; i++ {
			out.Set(i, j, shift[j]+scale[j]*m.At(i, j))
		}
	}
	return out
}

func axisName(names []string, j int, def string) string {
	if j < len(names) && strings.TrimSpace(names[j]) != "" {
		return names[j]
	}
	return def
}

func points(o *run.Outcome, ds *data.Dataset, xy *mat.Dense, pred *model.Prediction, rows []int) wire.Points {
	n, _ := xy.Dims()
	p := wire.Points{X: mat.Col(nil, 0, xy), Y: mat.Col(nil, 1, xy)}
	if len(rows) == n {
		p.Row = rows
	}
	if ds.Y != nil {
		p.Class = ds.Y
	}
	if ds.Tags != nil {
		p.Tags = masks(metrics.TagsOf(ds.Tags))
	}
	if pred != nil {
		if len(pred.Labels) == n {
			p.Pred = pred.Labels
		}
		if len(pred.Tags) == n {
			p.PredTags = masks(pred.Tags)
		}
		if len(pred.Decision) == n {
			p.Decision = pred.Decision
		}
		if len(pred.Views) > 0 {
			p.Views = pred.Views
		}
		if len(pred.Prob) == n && len(o.Train.Classes) == 2 {
			p.Prob = make([]float64, n)
			for i, pr := range pred.Prob {
				p.Prob[i] = pr[1]
			}
		}
	}
	return p
}

func masks(tags [][]bool) []uint64 {
	out := make([]uint64, len(tags))
	for i, row := range tags {
		for t, on := range row {
			if on && t < 64 {
				out[i] |= 1 << t
			}
		}
	}
	return out
}

// grid maps a kept (or rebuilt) model over a window.
func (e *Engine) grid(ctx context.Context, req wire.GridRequest, j *job) (any, *wire.Bin, error) {
	k, err := e.keptModel(ctx, req.Handle, req.Saved, req.Data, req.Split)
	if err != nil {
		return nil, nil, err
	}
	side := req.Side
	if side < 2 || side > 1200 {
		return nil, nil, fmt.Errorf("a map of %d cells a side: choose 2 to 1200", side)
	}
	view := req.View
	if view == "" {
		view = "A"
	}
	return mapOf(k.out, view, req.Frame, side, j)
}

// keptModel returns a kept model, rebuilding it from its saved form when
// this worker does not hold it.
func (e *Engine) keptModel(ctx context.Context, handle, saved string, ref *wire.DataRef, split wire.Split) (*kept, error) {
	e.mu.Lock()
	k, ok := e.kept.get(handle)
	e.mu.Unlock()
	if ok {
		return k, nil
	}
	if saved == "" || ref == nil {
		return nil, errors.New("this model is no longer held by the compute engine: train it again")
	}
	s, f, err := model.Load([]byte(saved))
	if err != nil {
		return nil, err
	}
	ed, err := e.dataset(*ref)
	if err != nil {
		return nil, err
	}
	cfg, err := config(ed, split, s.ID, nil)
	if err != nil {
		return nil, err
	}
	o, err := run.Score(cfg, s, f)
	if err != nil {
		return nil, err
	}
	k = &kept{out: o, split: split}
	if handle != "" {
		e.mu.Lock()
		e.kept.put(handle, k)
		e.mu.Unlock()
	}
	return k, nil
}

func (e *Engine) resultsCSV(ctx context.Context, req wire.ModelRequest, j *job) (any, *wire.Bin, error) {
	k, err := e.keptModel(ctx, req.Handle, req.Saved, &req.Data, req.Split)
	if err != nil {
		return nil, nil, err
	}
	b := run.ResultsCSV(k.out)
	if b == nil {
		return nil, nil, errors.New("no results to export")
	}
	return wire.TextResult{Name: k.out.Spec.ID + "-results.csv", Text: string(b)}, nil, nil
}

func (e *Engine) forget(keep []string) {
	m := map[string]bool{}
	for _, k := range keep {
		m[k] = true
	}
	e.mu.Lock()
	e.kept.retain(m)
	e.mu.Unlock()
}

// cv scores one cell of a cross-validated grid.
func (e *Engine) cv(ctx context.Context, req wire.CVRequest, j *job) (*wire.CVResult, error) {
	ed, err := e.dataset(req.Data)
	if err != nil {
		return nil, err
	}
	cfg, err := config(ed, req.Split, req.Model, req.Params)
	if err != nil {
		return nil, err
	}
	scores, metric, err := run.CrossValidate(ctx, cfg, req.Folds, j.progress)
	if err != nil {
		return nil, err
	}
	m, sd := meanSD(scores)
	return &wire.CVResult{Mean: m, SD: sd, Scores: scores, Metric: metric}, nil
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

// AdaptWidths sets RBF widths still at their default (1) to 1/d for data
// with d ≠ 2 features (LIBSVM's default γ = 1/d: γ = 1 on 64 standardised
// pixels makes every kernel value vanish), and says what it set.
func AdaptWidths(s *spec.Spec, v model.Values, ds *data.Dataset) []wire.Note {
	var notes []wire.Note
	zblock := "privileged"
	if s.Z == spec.ZView {
		zblock = "view-B"
	}
	for _, w := range []struct {
		name, block string
		dim         int
	}{{"gamma", "main", ds.Dim()}, {"zgamma", zblock, ds.ZDim()}} {
		par := s.Param(w.name)
		cur, given := v[w.name]
		if par == nil || w.dim <= 2 || par.Default != "1" || (given && cur != par.Default) {
			continue
		}
		g := strconv.FormatFloat(roundSig(1/float64(w.dim)), 'g', -1, 64)
		if par.Validate(g) != nil {
			continue
		}
		v[w.name] = g
		notes = append(notes, wire.Note{Param: w.name, Text: fmt.Sprintf("This fit used %s = %s = 1/%d, LIBSVM's default for the %d %s features (the form's default, %s, is for 2-D data; a value you set yourself is used as it is)", par.Label, g, w.dim, w.dim, w.block, par.Default)})
	}
	return notes
}

func roundSig(x float64) float64 {
	if x == 0 {
		return 0
	}
	e := math.Pow(10, math.Floor(math.Log10(math.Abs(x)))-2)
	return math.Round(x/e) * e
}

// since returns the seconds since t.
func since(t time.Time) float64 { return time.Since(t).Seconds() }
