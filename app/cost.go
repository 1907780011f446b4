package app

import (
	"math"
	"sort"

	"lupilab/models/spec"
)

// estimate is the expected cost of fitting the current settings in this
// browser.
type estimate struct {
	Seconds float64 // wall seconds in one compute worker of this browser
	Bytes   float64 // peak memory the fit adds
	// Native is the catalogue's prediction before this browser's speed
	// correction (the calibration machine's WebAssembly seconds).
	Native float64
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
	sh, ok := s.shape(m)
	if !ok {
		return estimate{}, false
	}
	e := m.Estimate(sh, s.set.Values())
	if !e.Known {
		return estimate{}, false
	}
	native := e.BrowserSeconds()
	return estimate{Seconds: native * s.speed.factor(), Bytes: e.Bytes, Native: native}, true
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
// slower, a new laptop faster).
type speedLog struct {
	ratios []float64 // measured / predicted, latest last
}

// speedWindow is how many recent fits the correction remembers.
const speedWindow = 9

// speedMinSeconds is the shortest predicted fit whose ratio is kept:
// below it the worker's fixed overheads dominate what is measured.
const speedMinSeconds = 0.05

// add records a fit that was predicted to take predicted seconds (before
// the correction) and took measured.
func (l *speedLog) add(predicted, measured float64) {
	if !(predicted >= speedMinSeconds) || !(measured > 0) {
		return
	}
	l.ratios = append(l.ratios, measured/predicted)
	if len(l.ratios) > speedWindow {
		l.ratios = l.ratios[len(l.ratios)-speedWindow:]
	}
}

// factor is the median ratio (1 before any fit), kept within [1/8, 8] so
// that one odd fit cannot make every estimate absurd.
func (l *speedLog) factor() float64 {
	if len(l.ratios) == 0 {
		return 1
	}
	r := append([]float64(nil), l.ratios...)
	sort.Float64s(r)
	med := r[len(r)/2]
	if len(r)%2 == 0 {
		med = math.Sqrt(r[len(r)/2-1] * r[len(r)/2])
	}
	return math.Min(8, math.Max(1.0/8, med))
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

// say writes an estimate for people; short fits are "under 0.1 s" (the
// cost model is calibrated on fits of 0.05 s and more).
func (e estimate) say() string {
	if e.Seconds < 0.1 {
		return "under 0.1 s"
	}
	return duration(e.Seconds)
}
