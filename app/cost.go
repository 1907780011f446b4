package app

import (
	"fmt"
	"math"
	"sort"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/spec"
	"lupilab/models/wire"
)

// estimate is the expected cost of fitting the current settings in this
// browser.
type estimate struct {
	Seconds float64 // wall seconds in one compute worker of this browser
	Bytes   float64 // peak memory the fit adds
	// Native is the catalogue's prediction before this browser's speed
	// correction (the calibration machine's WebAssembly seconds).
	Native float64
	// UpTo says Seconds is an upper bound: a penalty well above its
	// default makes the time depend on how much the classes overlap, and
	// the estimate assumes the slow case (spec.Estimate.UpTo).
	UpTo bool
	// Overlap, when ≥ 0, is the training error of the model's last fit on
	// the same data, by which a large penalty's time was scaled
	// (spec.Estimate.Scaled); −1 otherwise.
	Overlap float64
	// Penalty is the penalty factor in Seconds (1: none).
	Penalty float64
	// Anchor, when > 0, is the measured training time of the model's last
	// fit on the same data, which Seconds is scaled from (session.speed).
	Anchor float64
}

// estimate returns the cost of the current fit from the catalogue's cost
// model (spec.Estimate: per-model coefficients calibrated by scripts/cost,
// times the WebAssembly factor) and the speed this browser has shown on
// earlier fits; ok is false when it cannot be told (no calibrated cost, or
// data of unknown size), and the fit then starts by itself.
func (s *session) estimate() (estimate, bool) {
	m := s.spec()
	if m == nil {
		return estimate{}, false
	}
	return s.estimateOf(m, s.set.Values())
}

// estimateOf is estimate for model m with values v on the current data.
func (s *session) estimateOf(m *spec.Spec, v spec.Values) (estimate, bool) {
	sh, ok := s.shape(m)
	if !ok {
		return estimate{}, false
	}
	trainErr := s.trainError(m)
	e := m.EstimateAfter(sh, v, trainErr)
	if !e.Known {
		return estimate{}, false
	}
	native := e.BrowserSeconds()
	overlap := -1.0
	if e.Scaled() {
		overlap = e.Overlap
	}
	speed, anchor := s.speed(m, sh, trainErr)
	return estimate{Seconds: native * speed, Bytes: e.Bytes, Native: native, UpTo: e.UpTo(),
		Overlap: overlap, Penalty: e.Penalty, Anchor: anchor}, true
}

// speed is the factor from the cost model's prediction to this browser's
// time for model m on the current data (of shape sh): the result on screen
// when it is a fit of m on the same data — what it took over what the cost
// model predicts for its settings, so that a change of settings scales the
// time measured on this data and device (anchor: that time), and the same
// settings again are estimated at it — else this device's speed log.
func (s *session) speed(m *spec.Spec, sh spec.Shape, trainErr float64) (factor, anchor float64) {
	r := s.shown
	if r == nil || r.res == nil || r.res.Imported || r.set.Model != m.ID || r.set.DataKey() != s.set.DataKey() ||
		len(r.trace) > 0 || !(r.res.Timing.Fit > 0) {
		return deviceSpeed.factor(m.ID), 0 // a watched fit was slowed down to be seen
	}
	prev := m.EstimateAfter(sh, r.set.Values(), trainErr)
	if !prev.Known || !(prev.BrowserSeconds() > 0) {
		return deviceSpeed.factor(m.ID), 0
	}
	return math.Min(64, math.Max(1.0/64, r.res.Timing.Fit/prev.BrowserSeconds())), r.res.Timing.Fit
}

// trainError is the training error of the result on screen when it is a
// fit of model m on the current data (the same rows, split and scaling),
// which tells how much the classes overlap (spec.EstimateAfter); −1
// otherwise. It is a fraction of rows (of row-tag pairs for multi-label
// data).
func (s *session) trainError(m *spec.Spec) float64 {
	sh := s.shown
	if sh == nil || sh.res == nil || sh.res.Imported || sh.set.Model != m.ID || sh.set.DataKey() != s.set.DataKey() {
		return -1
	}
	if t := sh.res.Scores.TrainTags; t != nil {
		return t.Hamming
	}
	if sh.res.Data.NTrain == 0 {
		return -1
	}
	return 1 - sh.res.Scores.TrainAcc
}

// gridEstimate is the expected time of Tune's grid in this browser: each
// cell fits the model folds times on (folds−1)/folds of the training rows,
// at the cell's values (the cost model, corrected by this browser's speed
// as for a single fit), and the cells share the pool's workers. The result
// is an upper bound (UpTo) when a cell's is.
func (s *session) gridEstimate(m *spec.Spec, cells []spec.Values, folds, workers int) (estimate, bool) {
	sh, ok := s.shape(m)
	if !ok || folds < 2 || len(cells) == 0 {
		return estimate{}, false
	}
	var total estimate
	trainErr := s.trainError(m)
	speed, anchor := s.speed(m, sh, trainErr)
	sh.Rows = max(1, sh.Rows*(folds-1)/folds)
	for _, v := range cells {
		e := m.EstimateAfter(sh, v, trainErr)
		if !e.Known {
			return estimate{}, false
		}
		total.Native += float64(folds) * e.BrowserSeconds()
		total.Bytes = math.Max(total.Bytes, e.Bytes)
		total.UpTo = total.UpTo || e.UpTo()
		total.Penalty = math.Max(total.Penalty, e.Penalty)
	}
	total.Overlap = -1
	if !total.UpTo && total.Penalty > 1.5 {
		total.Overlap = trainErr
	}
	total.Native /= float64(max(1, min(workers, len(cells))))
	total.Seconds, total.Anchor = total.Native*speed, anchor
	return total, true
}

// shape is the training data's shape for the cost model.
func (s *session) shape(m *spec.Spec) (spec.Shape, bool) {
	rows, dim, zdim, classes, _ := s.dataInfo()
	if rows == 0 || dim == 0 {
		return spec.Shape{}, false
	}
	train := int(math.Round(float64(rows) * float64(s.set.TrainPct) / 100))
	if m.Z == spec.ZNone {
		zdim = 0 // the model does not read the second block
	}
	return spec.Shape{Rows: max(train, 1), Dim: dim, ZDim: zdim, Classes: classes, Tags: s.tagCount()}, true
}

// speedLog is what this browser's fits took against what the cost model
// predicted for them: the ratio's median over the last fits corrects the
// calibration machine's figures to this device (a phone is several times
// slower, a busy laptop too), per model where it has run (the WebAssembly
// factor differs between models) and overall otherwise.
type speedLog struct {
	ratios  []float64            // measured / predicted, latest last
	byModel map[string][]float64 // the same per model id
}

// deviceSpeed is the page's speed log: every session of the page (the
// playground, a tour's canvas) measures the same device.
var deviceSpeed = &speedLog{}

// speedWindow is how many recent fits the correction remembers.
const speedWindow = 9

// speedMinSeconds is the shortest predicted fit whose ratio is kept:
// below it the worker's fixed overheads dominate what is measured.
const speedMinSeconds = 0.05

// add records a fit of model id (empty: a calibration fit, counted
// overall only) that was predicted to take predicted seconds (before the
// correction) and took measured.
func (l *speedLog) add(id string, predicted, measured float64) {
	if !(predicted >= speedMinSeconds) || !(measured > 0) {
		return
	}
	r := measured / predicted
	l.ratios = keepLast(append(l.ratios, r))
	if id != "" {
		if l.byModel == nil {
			l.byModel = map[string][]float64{}
		}
		l.byModel[id] = keepLast(append(l.byModel[id], r))
	}
}

func keepLast(r []float64) []float64 {
	if len(r) > speedWindow {
		return r[len(r)-speedWindow:]
	}
	return r
}

// factor is the median ratio of model id's fits, else of all fits (1
// before any), kept within [1/8, 32] so that one odd fit cannot make every
// estimate absurd.
func (l *speedLog) factor(id string) float64 {
	r := l.byModel[id]
	if len(r) == 0 {
		r = l.ratios
	}
	if len(r) == 0 {
		return 1
	}
	r = append([]float64(nil), r...)
	sort.Float64s(r)
	med := r[len(r)/2]
	if len(r)%2 == 0 {
		med = math.Sqrt(r[len(r)/2-1] * r[len(r)/2])
	}
	return math.Min(32, math.Max(1.0/8, med))
}

// calibrationFit is the fit the page runs once, alone in the pool (after
// the page's first jobs, so that they neither wait for it nor share a core
// with it): an SVM on 3 500 generated points (predicted at about 0.08 s on
// the calibration machine) measures this device for the estimates that
// decide whether a fit starts by itself.
var calibrationFit = wire.FitRequest{Data: wire.DataRef{Source: "gen:moons", N: 5000, Noise: 0.3, Seed: 1},
	Split: wire.Split{TrainFrac: 0.7, Seed: 1, Scale: "standard"}, Model: "svm", Params: map[string]string{"C": "1", "gamma": "1"}}

var calibrated bool

// speedKey is the local-storage key of the speed log: a device keeps its
// speed between visits, so the estimates of a new visit rest on the last
// fits of earlier ones as well as on the one calibration fit, which a busy
// moment can slow down.
const speedKey = "lupilab.speed"

// savedSpeed is the speed log as stored, for the app version that measured
// it (a new version may have a re-calibrated cost model: its log starts
// afresh).
type savedSpeed struct {
	Version string               `json:"version"`
	Ratios  []float64            `json:"ratios"`
	ByModel map[string][]float64 `json:"by_model,omitempty"`
}

// save stores the log.
func (l *speedLog) save(ctx app.Context) {
	ctx.LocalStorage().Set(speedKey, savedSpeed{Version: app.Getenv("GOAPP_VERSION"), Ratios: l.ratios, ByModel: l.byModel})
}

// restore reads the log an earlier visit of this version stored, keeping
// only ratios the log itself would have kept.
func (l *speedLog) restore(ctx app.Context) {
	var saved savedSpeed
	if err := ctx.LocalStorage().Get(speedKey, &saved); err != nil || saved.Version != app.Getenv("GOAPP_VERSION") {
		return
	}
	l.ratios = keepLast(validRatios(saved.Ratios))
	for id, r := range saved.ByModel {
		if _, err := spec.Lookup(id); err != nil {
			continue
		}
		if r = keepLast(validRatios(r)); len(r) > 0 {
			if l.byModel == nil {
				l.byModel = map[string][]float64{}
			}
			l.byModel[id] = r
		}
	}
}

// validRatios drops what no measurement gives: non-finite or non-positive
// ratios.
func validRatios(r []float64) []float64 {
	var out []float64
	for _, x := range r {
		if x > 0 && !math.IsInf(x, 1) {
			out = append(out, x)
		}
	}
	return out
}

// calibrate runs calibrationFit twice per page, after restoring the speed
// log of earlier visits, and keeps the second run's time: the first runs
// the compute build's code as first compiled, while V8 optimises it (on
// this machine 0.47–0.51 s, then 0.16–0.20 s for the same fit), and made
// every estimate of a first visit about three times too long.
func calibrate(ctx app.Context) {
	if calibrated {
		return
	}
	calibrated = true
	deviceSpeed.restore(ctx)
	m, err := spec.Lookup(calibrationFit.Model)
	if err != nil {
		return
	}
	pred := m.Estimate(spec.Shape{Rows: int(float64(calibrationFit.Data.N) * calibrationFit.Split.TrainFrac), Dim: 2, Classes: 2},
		spec.Values(calibrationFit.Params)).BrowserSeconds()
	var run func(ctx app.Context, n int)
	run = func(ctx app.Context, n int) {
		Submit(ctx, wire.KindCalibrate, calibrationFit, nil, JobOptions{Priority: PriorityBackground, Alone: true,
			OnEnd: func(ctx app.Context, msg wire.Message, w Affinity) {
				var p wire.Part
				if _, _, err := decodeEnd(msg, &p); err != nil || p.Fit == nil {
					return
				}
				if n == 0 {
					run(ctx, 1)
					return
				}
				deviceSpeed.add("", pred, p.Fit.Timing.Fit)
				deviceSpeed.save(ctx)
			}})
	}
	run(ctx, 0)
}

// liveLimit is the largest data (rows) on which a dragged slider or point
// refits continuously.
const liveLimit = 600

// liveAllowed reports whether the current data is small enough to follow a
// drag continuously.
func (s *session) liveAllowed() bool {
	rows, _, _, _, _ := s.dataInfo()
	if rows == 0 || rows > liveLimit {
		return false
	}
	est, ok := s.estimate()
	return !ok || est.Seconds < 0.2
}

// say writes an estimate for people: "about 3 s", "up to 40 s"; short
// fits are "under 0.1 s" (the cost model is calibrated on fits of 0.05 s
// and more).
func (e estimate) say() string {
	switch {
	case e.Seconds < 0.1:
		return "under 0.1 s"
	case e.UpTo:
		return "up to " + duration(e.Seconds)
	}
	return "about " + duration(e.Seconds)
}

// measured writes a measured time for people: "0.8 ms", "350 ms", "4.2 s",
// "10 s" (duration rounds up: it is for estimates).
func measured(sec float64) string {
	switch {
	case sec < 0.01:
		return fmt.Sprintf("%.1f ms", sec*1000)
	case sec < 1:
		return fmt.Sprintf("%.0f ms", sec*1000)
	case sec < 10:
		return fmt.Sprintf("%.1f s", sec)
	}
	return fmt.Sprintf("%.0f s", sec)
}

// why says what an estimate rests on when it is not the cost model alone
// (a large penalty's overlap, the last fit's time), for the notes beside
// the Train and Run buttons; "" otherwise.
func (e estimate) why() string {
	switch {
	case e.UpTo:
		return "with a large C the time depends on how much the classes overlap, and the estimate assumes they overlap a lot (train once at a smaller C to have it estimated for this data)"
	case e.Overlap >= 0 && e.Penalty > 1.5 && e.Anchor > 0:
		return fmt.Sprintf("with a large C the time depends on how much the classes overlap; estimated from the last fit's time (%s) and training error (%.1f %%)", measured(e.Anchor), 100*e.Overlap)
	case e.Overlap >= 0 && e.Penalty > 1.5:
		return fmt.Sprintf("with a large C the time depends on how much the classes overlap; estimated from the last fit's training error (%.1f %%)", 100*e.Overlap)
	case e.Anchor > 0:
		return fmt.Sprintf("scaled from the last fit on this data (%s)", measured(e.Anchor))
	}
	return ""
}
