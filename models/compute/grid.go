package compute

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/model"
	"lupilab/models/run"
	"lupilab/models/viz"
	"lupilab/models/wire"
)

// mapOf evaluates an outcome's model over a side×side grid of a window of
// the main plane (view "A") or of view B's plane: every layer the model has
// (decision or probability, GP mean and uncertainty, twin SVMs' proximal
// surfaces, per-tag scores), each with its standard iso-lines traced in the
// plot's coordinates.
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
	back := fromModel(o, view)
	classes := o.Train.Classes
	switch {
	case o.Spec.Task == model.MultiLabel:
		ss, err := viz.EvaluateTags(o.Fitted, g, o.Train.NumTags(), tick)
		if err != nil {
			return nil, nil, err
		}
		for t, s := range ss {
			if l := s.Layer(viz.LayerScore); l != nil {
				if err := addLayer(res, bin, s, l, fmt.Sprintf("tag:%d", t), wire.LayerTag, back); err != nil {
					return nil, nil, err
				}
			}
		}
	case o.Spec.Z == model.ZView && o.TrainZXY == nil && view == "A":
		// View B cannot be laid out in two dimensions. A model that
		// predicts from view A alone (rule A; on LUPI data always) maps its
		// decision over X without Z; any other rule needs Z: no map.
		s, err := viz.Evaluate(o.Fitted, nil, g, classes, tick)
		if err != nil {
			return nil, nil, fmt.Errorf("view B has more than two features: no map of the decision can be drawn (rule A, view A alone, can be): %w", err)
		}
		if err := addSurface(res, bin, s, back); err != nil {
			return nil, nil, err
		}
	case o.Spec.Z == model.ZView:
		if o.TrainZXY == nil {
			return nil, nil, errors.New("view B has more than two features: no map of it can be drawn")
		}
		// Each view's own decision depends on its own plane only: the
		// other view's grid is a placeholder of the same size.
		other := framed(o.TrainZXY, o.TestZXY) // model coordinates
		if view == "B" {
			other = framed(o.TrainXY, o.TestXY)
		}
		og := viz.Grid{XMin: other[0], XMax: other[1], YMin: other[2], YMax: other[3], W: side, H: side}
		ga, gb := g, og
		if view == "B" {
			ga, gb = og, g
		}
		a, b, err := viz.EvaluateViews(o.Fitted, ga, gb, classes, tick)
		if err != nil {
			return nil, nil, err
		}
		s := a
		if view == "B" {
			s = b
		}
		if err := addSurface(res, bin, s, back); err != nil {
			return nil, nil, err
		}
	default:
		s, err := viz.Evaluate(o.Fitted, o.Spec, g, classes, tick)
		if err != nil {
			return nil, nil, err
		}
		if len(classes) > 2 {
			if err := addClasses(res, bin, s, len(classes), back); err != nil {
				return nil, nil, err
			}
		}
		if err := addSurface(res, bin, s, back); err != nil {
			return nil, nil, err
		}
	}
	res.Seconds = since(start)
	return res, bin, nil
}

// addClasses adds a multi-class surface's predicted classes (the "class"
// layer) with the borders of the class regions as its "boundary" iso-line,
// each region's border traced on its class margin's 0 level (so a border
// between two regions is traced from both sides), and the margins as
// layers "margin:<class>" (kind "margin"), which the page interpolates to
// colour the regions between the grid's nodes.
func addClasses(res *wire.GridResult, bin *wire.Bin, s *viz.Surface, k int, back func(x, y float64) (float64, float64)) error {
	lab := make([]float64, len(s.Labels))
	for i, l := range s.Labels {
		lab[i] = float64(l)
	}
	cl := wire.Layer{Name: wire.LayerClass, Kind: wire.LayerClass, Values: bin.F32(lab), Min: 0, Max: float64(k - 1)}
	if len(s.Margins) != k {
		res.Layers = append(res.Layers, cl)
		return nil
	}
	border := wire.Contour{Level: 0, Style: "boundary"}
	var margins []wire.Layer
	for c, m := range s.Margins {
		paths, err := viz.Contours(s.Grid, m, 0)
		if err != nil {
			return err
		}
		border.Paths = append(border.Paths, flatPaths(paths, back)...)
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, x := range m {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		margins = append(margins, wire.Layer{Name: fmt.Sprintf("%s:%d", wire.LayerMargin, c), Kind: wire.LayerMargin, Values: bin.F32(m), Min: lo, Max: hi})
	}
	if len(border.Paths) > 0 {
		cl.Contours = []wire.Contour{border}
	}
	res.Layers = append(res.Layers, cl)
	res.Layers = append(res.Layers, margins...)
	return nil
}

// flatPaths returns traced paths as flat (x0, y0, x1, y1, …) lists in the
// plot's coordinates, a closed one ending on its first point.
func flatPaths(paths []viz.Path, back func(x, y float64) (float64, float64)) [][]float64 {
	var out [][]float64
	for _, p := range paths {
		flat := make([]float64, 0, 2*len(p.Points)+2)
		for _, pt := range p.Points {
			x, y := back(pt[0], pt[1])
			flat = append(flat, x, y)
		}
		if p.Closed && len(flat) >= 2 {
			flat = append(flat, flat[0], flat[1])
		}
		out = append(out, flat)
	}
	return out
}

// addSurface adds every layer of a surface, the boundary's iso-line on the
// layer shown first.
func addSurface(res *wire.GridResult, bin *wire.Bin, s *viz.Surface, back func(x, y float64) (float64, float64)) error {
	for i := range s.Layers {
		l := &s.Layers[i]
		name, kind := wireLayer(l)
		if err := addLayer(res, bin, s, l, name, kind, back); err != nil {
			return err
		}
	}
	return nil
}

// wireLayer names a surface layer for the page.
func wireLayer(l *viz.Layer) (name, kind string) {
	switch l.Kind {
	case viz.KindProbability:
		return wire.LayerProb, wire.LayerProb
	case viz.KindVariance:
		return wire.LayerVar, wire.LayerVar
	case viz.KindEntropy:
		return wire.LayerEntropy, wire.LayerEntropy
	case viz.KindPlane:
		return "plane:" + l.Name, wire.LayerPlane
	case viz.KindScore:
		if l.Name == viz.LayerMean {
			return wire.LayerMean, wire.LayerMean
		}
		return wire.LayerDecision, wire.LayerScore
	}
	return wire.LayerDecision, wire.LayerDecision
}

// addLayer adds one layer with its standard iso-lines. A probability's
// boundary is traced on the latent mean's 0 level when the surface has it
// (the same line, traced far more accurately).
func addLayer(res *wire.GridResult, bin *wire.Bin, s *viz.Surface, l *viz.Layer, name, kind string, back func(x, y float64) (float64, float64)) error {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range l.Values {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	wl := wire.Layer{Name: name, Kind: kind, Values: bin.F32(l.Values), Min: lo, Max: hi}
	if wire.HasSpan(kind) {
		wl.Span = viz.ColourSpan(l.Values)
	}
	for _, lv := range viz.Levels(l.Kind) {
		src, level := l, lv.Value
		if l.Kind == viz.KindProbability && lv.Style == viz.Solid {
			src, level = viz.BoundaryLayer(s)
		}
		if src == nil || level < lo && src == l || level > hi && src == l {
			continue
		}
		paths, err := viz.Contours(s.Grid, src.Values, level)
		if err != nil {
			return err
		}
		if len(paths) == 0 {
			continue
		}
		c := wire.Contour{Level: lv.Value, Style: contourStyle(l.Kind, lv), Paths: flatPaths(paths, back)}
		wl.Contours = append(wl.Contours, c)
	}
	res.Layers = append(res.Layers, wl)
	return nil
}

func contourStyle(k viz.Kind, lv viz.Level) string {
	switch {
	case k == viz.KindPlane:
		return "plane"
	case lv.Style == viz.Solid:
		return "boundary"
	case lv.Style == viz.Dashed:
		return "margin"
	}
	return "level"
}

// planeScale returns the per-axis shift and scale that standardised the
// plotted view's first two features (view "B": the second block), or ok =
// false when the model sees the plot's coordinates as they are (projected
// data, no scaling, fewer than two features).
func planeScale(o *run.Outcome, view string) (shift, scale []float64, ok bool) {
	if o.Projected || o.Scaler == nil {
		return nil, nil, false
	}
	shift, scale = o.Scaler.XShift, o.Scaler.XScale
	if view == "B" {
		shift, scale = o.Scaler.ZShift, o.Scaler.ZScale
	}
	return shift, scale, len(shift) >= 2
}

// fromModel maps the model's coordinates back to the plot's (the inverse of
// toModel).
func fromModel(o *run.Outcome, view string) func(x, y float64) (float64, float64) {
	shift, scale, ok := planeScale(o, view)
	if !ok {
		return func(x, y float64) (float64, float64) { return x, y }
	}
	return func(x, y float64) (float64, float64) { return shift[0] + scale[0]*x, shift[1] + scale[1]*y }
}

// toModel maps a window in plot coordinates (the data's units) to the
// model's (the scaled features): standardisation is affine per axis, so a
// regular grid over one is a regular grid over the other.
func toModel(o *run.Outcome, view string, f [4]float64) [4]float64 {
	shift, scale, ok := planeScale(o, view)
	if !ok {
		return f
	}
	return [4]float64{(f[0] - shift[0]) / scale[0], (f[1] - shift[0]) / scale[0], (f[2] - shift[1]) / scale[1], (f[3] - shift[1]) / scale[1]}
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
