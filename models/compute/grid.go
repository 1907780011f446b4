package compute

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/run"
	"lupilab/models/viz"
	"lupilab/models/wire"
)

// mapOf evaluates an outcome's model over a side×side grid of a window of
// the main plane (view "A") or of view B's plane, as layers of values.
func mapOf(o *run.Outcome, view string, frame [4]float64, side int, j *job) (*wire.GridResult, *wire.Bin, error) {
	if !(frame[1] > frame[0]) || !(frame[3] > frame[2]) || math.IsInf(frame[1]-frame[0], 0) || math.IsInf(frame[3]-frame[2], 0) {
		return nil, nil, fmt.Errorf("map window %v is empty or not finite", frame)
	}
	start := time.Now()
	mf := toModel(o, view, frame)
	g := viz.Grid{XMin: mf[0], XMax: mf[1], YMin: mf[2], YMax: mf[3], W: side, H: side}
	tick := func() { j.progress(model.Progress{Fraction: -1, Stage: "mapping the decision"}) }
	res := &wire.GridResult{View: view, Frame: frame, W: side, H: side}
	bin := &wire.Bin{}
	add := func(name, kind string, v []float64) {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, x := range v {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		res.Layers = append(res.Layers, wire.Layer{Name: name, Kind: kind, Values: bin.F32(v), Min: lo, Max: hi})
	}
	classes := o.Train.Classes
	switch {
	case o.Spec.Task == model.MultiLabel:
		ss, err := viz.EvaluateTags(o.Fitted, g, o.Train.NumTags(), tick)
		if err != nil {
			return nil, nil, err
		}
		for t, s := range ss {
			add(fmt.Sprintf("tag:%d", t), wire.LayerTag, s.Value)
		}
	case o.Spec.Z == model.ZView:
		if o.TrainZXY == nil {
			return nil, nil, errors.New("view B has more than two features: no map of it can be drawn")
		}
		// A two-view model predicts from both views; each view's own
		// decision depends on its own plane only, so both planes are
		// swept with grids of the same size and each map keeps its view.
		other := framed(o.TrainZXY, o.TestZXY) // model coordinates
		ga, gb := g, viz.Grid{XMin: other[0], XMax: other[1], YMin: other[2], YMax: other[3], W: side, H: side}
		if view == "B" {
			fa := framed(o.TrainXY, o.TestXY)
			ga = viz.Grid{XMin: fa[0], XMax: fa[1], YMin: fa[2], YMax: fa[3], W: side, H: side}
			gb = g
		}
		a, b, err := viz.EvaluateViews(o.Fitted, ga, gb, classes, tick)
		if err != nil {
			return nil, nil, err
		}
		s := a
		if view == "B" {
			s = b
		}
		add(wire.LayerDecision, wire.LayerDecision, s.Value)
		planes, err := planesOf(o, ga, gb, view)
		if err != nil {
			return nil, nil, err
		}
		for _, k := range sortedKeys(planes) {
			add("plane:"+k, wire.LayerPlane, planes[k])
		}
	default:
		s, err := viz.Evaluate(o.Fitted, o.Spec, g, classes, tick)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case len(classes) > 2:
			lab := make([]float64, len(s.Labels))
			for i, l := range s.Labels {
				lab[i] = float64(l)
			}
			add(wire.LayerClass, wire.LayerClass, lab)
		case s.Prob:
			add(wire.LayerProb, wire.LayerProb, s.Value)
		default:
			add(wire.LayerDecision, wire.LayerDecision, s.Value)
		}
		planes, err := planesOf(o, g, viz.Grid{}, "A")
		if err != nil {
			return nil, nil, err
		}
		for _, k := range sortedKeys(planes) {
			add("plane:"+k, wire.LayerPlane, planes[k])
		}
	}
	res.Seconds = since(start)
	return res, bin, nil
}

// toModel maps a window in plot coordinates (the data's units) to the
// model's (the scaled features): standardisation is affine per axis, so a
// regular grid over one is a regular grid over the other.
func toModel(o *run.Outcome, view string, f [4]float64) [4]float64 {
	if o.Projected || o.Scaler == nil {
		return f
	}
	shift, scale := o.Scaler.XShift, o.Scaler.XScale
	if view == "B" {
		shift, scale = o.Scaler.ZShift, o.Scaler.ZScale
	}
	if len(shift) < 2 {
		return f
	}
	return [4]float64{(f[0] - shift[0]) / scale[0], (f[1] - shift[0]) / scale[0], (f[2] - shift[1]) / scale[1], (f[3] - shift[1]) / scale[1]}
}

// planar is implemented by the twin SVMs: the signed, ‖ω‖-normalised value
// of each proximal surface.
type planar interface {
	PlaneValues(ds *data.Dataset) (map[string][]float64, error)
}

// planesOf evaluates a binary twin model's proximal surfaces over the grid
// (view B's grid too for two-view models), keeping the requested view's.
func planesOf(o *run.Outcome, ga, gb viz.Grid, view string) (map[string][]float64, error) {
	c, ok := o.Fitted.(*model.Classifier)
	if !ok || len(c.Models) != 1 {
		return nil, nil
	}
	pm, ok := c.Models[0].(planar)
	if !ok {
		return nil, nil
	}
	ds := &data.Dataset{X: ga.Points()}
	if gb.W > 0 {
		ds.Z = gb.Points()
	}
	v, err := pm.PlaneValues(ds)
	if err != nil {
		return nil, err
	}
	out := map[string][]float64{}
	for k, x := range v {
		if isB := len(k) > 0 && k[0] == 'B'; isB == (view == "B") {
			out[k] = x
		}
	}
	return out, nil
}

func sortedKeys(m map[string][]float64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// frameOf returns the window [xmin, xmax, ymin, ymax] that frames the bulk
// of the points with a margin: the full range when no point lies far out,
// else the range of the central 98 % (so one outlier does not squash the
// rest into a strip; the plot marks the points it clips).
func frameOf(ms ...*mat.Dense) [4]float64 { return framed(ms...) }

func framed(ms ...*mat.Dense) [4]float64 {
	var xs, ys []float64
	for _, m := range ms {
		if m == nil {
			continue
		}
		xs = append(xs, mat.Col(nil, 0, m)...)
		ys = append(ys, mat.Col(nil, 1, m)...)
	}
	x0, x1 := robustRange(xs)
	y0, y1 := robustRange(ys)
	return [4]float64{x0, x1, y0, y1}
}

// robustRange is the padded range of v, or of its central 98 % when the
// full range is more than twice that.
func robustRange(v []float64) (float64, float64) {
	if len(v) == 0 {
		return -1, 1
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	lo, hi := s[0], s[len(s)-1]
	if len(s) >= 50 {
		qlo, qhi := s[len(s)/100], s[len(s)-1-len(s)/100]
		if qhi > qlo && hi-lo > 2*(qhi-qlo) {
			lo, hi = qlo, qhi
		}
	}
	d := hi - lo
	if d == 0 {
		d = math.Max(1, math.Abs(lo))
	}
	return lo - 0.08*d, hi + 0.08*d
}
