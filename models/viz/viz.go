// Package viz computes what the app draws: decision values over a grid,
// their rendering as an RGBA heatmap with contour lines, and 2-D projections
// of data with more than two features. It is numerics, so it lives under
// models; the app only copies the bytes into a canvas.
package viz

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/kernel"
	"lupilab/models/model"
)

// Grid is a regular W×H grid over a rectangle of the plane. Pixel (i, j)
// (column i, row j, row 0 at the top) is centred on
// (XMin + (i+½)·dx, YMax − (j+½)·dy).
type Grid struct {
	XMin, XMax, YMin, YMax float64
	W, H                   int
}

// BoundsOf returns a grid of w×h pixels covering the first two columns of the
// given matrices with a margin of pad (a fraction of the range).
func BoundsOf(w, h int, pad float64, ms ...*mat.Dense) (Grid, error) {
	g := Grid{XMin: math.Inf(1), XMax: math.Inf(-1), YMin: math.Inf(1), YMax: math.Inf(-1), W: w, H: h}
	for _, m := range ms {
		if m == nil {
			continue
		}
		r, c := m.Dims()
		if c < 2 {
			return g, errors.New("viz: need at least two columns")
		}
		for i := 0; i < r; i++ {
			x, y := m.At(i, 0), m.At(i, 1)
			g.XMin, g.XMax = math.Min(g.XMin, x), math.Max(g.XMax, x)
			g.YMin, g.YMax = math.Min(g.YMin, y), math.Max(g.YMax, y)
		}
	}
	if math.IsInf(g.XMin, 0) || w < 2 || h < 2 {
		return g, errors.New("viz: no points to bound")
	}
	dx, dy := g.XMax-g.XMin, g.YMax-g.YMin
	if dx == 0 {
		dx = 1
	}
	if dy == 0 {
		dy = 1
	}
	g.XMin, g.XMax = g.XMin-pad*dx, g.XMax+pad*dx
	g.YMin, g.YMax = g.YMin-pad*dy, g.YMax+pad*dy
	return g, nil
}

// Points returns the W·H pixel centres as rows (row-major, top row first).
func (g Grid) Points() *mat.Dense {
	pts := mat.NewDense(g.W*g.H, 2, nil)
	dx := (g.XMax - g.XMin) / float64(g.W)
	dy := (g.YMax - g.YMin) / float64(g.H)
	for j := 0; j < g.H; j++ {
		y := g.YMax - (float64(j)+0.5)*dy
		for i := 0; i < g.W; i++ {
			pts.Set(j*g.W+i, 0, g.XMin+(float64(i)+0.5)*dx)
			pts.Set(j*g.W+i, 1, y)
		}
	}
	return pts
}

// ToPixel maps a point of the plane to canvas coordinates (fractional pixels).
func (g Grid) ToPixel(x, y float64) (px, py float64) {
	return (x - g.XMin) / (g.XMax - g.XMin) * float64(g.W), (g.YMax - y) / (g.YMax - g.YMin) * float64(g.H)
}

// predictChunks predicts grid points in chunks (see model.PredictChunked),
// calling tick between chunks so the browser stays responsive.
func predictChunks(f model.Fitted, X, Z *mat.Dense, classes []string, tick func()) (*model.Prediction, error) {
	return model.PredictChunked(f, &data.Dataset{X: X, Z: Z, Classes: classes}, tick)
}

// Surface is a model's output over a grid.
type Surface struct {
	Grid   Grid
	Value  []float64 // decision value (binary), or probability of class 1 (probabilistic models)
	Labels []int     // predicted class per pixel
	Prob   bool      // Value holds probabilities (contour at 0.5) rather than decision values (contour at 0, margins at ±1)
	Views  map[string][]float64
	// Layers holds every map the model has over this grid, the one in
	// Value first (see Layer for the names). The UI toggles between them
	// and traces each one's Levels(Kind) with Contours.
	Layers []Layer
	// Margins holds, for a multi-class surface, one field per class over
	// the grid, positive exactly where that class is predicted (see
	// classMargins): the borders of the class regions are their 0 levels.
	Margins [][]float64
	// Fast reports that the grid was computed by a fast path (see FastGrid)
	// rather than point by point.
	Fast bool
}

// Layer is one map over a surface's grid: W·H values, row-major, row 0 at
// the top (as Grid.Points).
//
// Names: "decision" (the model's decision value: an SVM-type decision,
// KindDecision; a twin SVM's |d₋| − |d₊| or a multi-class winner's score,
// KindScore; over a two-view surface, that view's own decision);
// "probability", "mean", "variance", "entropy" (GP models: P(class 1), the
// latent predictive mean m*, its variance v*, the entropy of P in bits);
// "pos", "neg" (TWSVM, WLTSVM) and "A+", "A-" / "B+", "B-" (MPWTSVM, MvTSVM:
// on the view's own surface) — a twin SVM's signed distances to its proximal
// surfaces, KindPlane; "score" (a tag surface's per-tag score: the joint
// SVM's max-marginal, KindScore, or an independent SVM's decision,
// KindDecision).
type Layer struct {
	Name   string
	Kind   Kind
	Values []float64
}

// Layer names (see Layer; planes are named by their key).
const (
	LayerDecision    = "decision"
	LayerProbability = "probability"
	LayerMean        = "mean"
	LayerVariance    = "variance"
	LayerEntropy     = "entropy"
	LayerScore       = "score"
)

// Layer returns the named layer, or nil.
func (s *Surface) Layer(name string) *Layer {
	for i := range s.Layers {
		if s.Layers[i].Name == name {
			return &s.Layers[i]
		}
	}
	return nil
}

// Float32 returns the layer's values as float32 (what a worker sends to the
// page: half the bytes, and more precision than a colour map or a contour at
// screen resolution can show).
func (l *Layer) Float32() []float32 {
	out := make([]float32, len(l.Values))
	for i, v := range l.Values {
		out[i] = float32(v)
	}
	return out
}

// ColourSpan returns the half-width m of a symmetric colour scale [-m, m]
// for a signed layer: the 95th percentile of |v|, so that a few extreme
// pixels far from the data do not wash out the colours near the boundary;
// at least 1 when the values reach ±1 (the margins stay inside the scale),
// and at least 1e-12. Non-finite values are ignored; 1 for an empty layer.
func ColourSpan(values []float64) float64 {
	a := make([]float64, 0, len(values))
	for _, x := range values {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			a = append(a, math.Abs(x))
		}
	}
	if len(a) == 0 {
		return 1
	}
	sort.Float64s(a)
	m := math.Max(a[int(0.95*float64(len(a)-1))], 1e-12)
	if m < 1 && a[len(a)-1] >= 1 {
		m = 1
	}
	return m
}

// decisionKind is the kind of a model's decision value: SVM-type
// expansions have margins at ±1, other scores do not.
func decisionKind(f model.Fitted) Kind {
	if c, ok := f.(*model.Classifier); ok && len(c.Models) == 1 && c.Strategy == "binary" {
		if _, ok := c.Models[0].(planeExpander); ok {
			return KindScore
		}
		if _, ok := c.Models[0].(viewExpander); ok {
			return KindDecision
		}
		if _, ok := c.Models[0].(kernel.Expander); ok {
			return KindDecision
		}
	}
	return KindScore
}

// pointwisePlanes evaluates a binary twin model's planes (twin.Planes) at
// the grid points, for the point-by-point path.
func pointwisePlanes(f model.Fitted, X, Z *mat.Dense) (map[string][]float64, error) {
	c, ok := f.(*model.Classifier)
	if !ok || len(c.Models) != 1 {
		return nil, nil
	}
	pm, ok := c.Models[0].(interface {
		PlaneValues(ds *data.Dataset) (map[string][]float64, error)
	})
	if !ok {
		return nil, nil
	}
	return pm.PlaneValues(&data.Dataset{X: X, Z: Z})
}

// Evaluate computes a model's maps over a grid: by the model's fast path
// when it has one (see FastGrid), else by predicting every pixel in chunks.
// Labels are the predicted classes; Value the decision (binary), the winning
// score (multi-class) or P(class 1) (probabilistic binary models); Layers
// every map the model has. Two-view models are evaluated by EvaluateViews.
func Evaluate(f model.Fitted, spec *model.Spec, g Grid, classes []string, tick func()) (*Surface, error) {
	if spec == nil || spec.Z != model.ZView {
		s, ok, err := evaluateFast(f, g, tick)
		if err != nil {
			return nil, err
		}
		if ok {
			s.Fast = true
			return s, checkFinite(s.Layers)
		}
	}
	pts := g.Points()
	var z *mat.Dense
	if spec != nil && spec.Z == model.ZView {
		z = pts
	}
	p, err := predictChunks(f, pts, z, classes, tick)
	if err != nil {
		return nil, err
	}
	s := &Surface{Grid: g, Labels: p.Labels, Views: p.Views}
	switch {
	case len(p.Prob) == len(p.Labels) && len(classes) == 2:
		s.Prob = true
		s.Value = make([]float64, len(p.Prob))
		for i, pr := range p.Prob {
			s.Value[i] = pr[1]
		}
		s.Layers = []Layer{{LayerProbability, KindProbability, s.Value}, {LayerDecision, decisionKind(f), p.Decision}}
	case len(p.Decision) == g.W*g.H:
		s.Value = p.Decision
		kind := decisionKind(f)
		if len(classes) > 2 {
			kind = KindScore
		}
		s.Layers = []Layer{{LayerDecision, kind, p.Decision}}
		if len(classes) > 2 {
			s.Margins = scoreMargins(len(classes), p.Scores, p.Labels)
		}
	default:
		return nil, fmt.Errorf("viz: model gave %d values for %d pixels", len(p.Decision), g.W*g.H)
	}
	if z == nil {
		planes, err := pointwisePlanes(f, pts, nil)
		if err != nil {
			return nil, err
		}
		for _, k := range []string{"pos", "neg"} {
			if v, ok := planes[k]; ok && len(v) == len(s.Value) {
				s.Layers = append(s.Layers, Layer{k, KindPlane, v})
			}
		}
	}
	return s, checkFinite(s.Layers)
}

// checkFinite refuses NaN in any layer.
func checkFinite(layers []Layer) error {
	for _, l := range layers {
		for _, v := range l.Values {
			if math.IsNaN(v) {
				return fmt.Errorf("viz: the model returned NaN on the grid (%s)", l.Name)
			}
		}
	}
	return nil
}

// EvaluateViews evaluates a two-view model: view A's surface over grid ga
// (its Value and "decision" layer are view A's own decision, its Labels
// that decision's sign, plus view A's planes for twin models) and view B's
// over gb. Both grids must have the same number of pixels (the point-by-
// point path pairs pixel i of ga with pixel i of gb; CombineViews applies
// the model's rule to such pairs).
func EvaluateViews(f model.Fitted, ga, gb Grid, classes []string, tick func()) (a, b *Surface, err error) {
	if ga.W*ga.H != gb.W*gb.H {
		return nil, nil, errors.New("viz: view grids differ in size")
	}
	a, b, ok, err := viewsFast(f, ga, gb, tick)
	if err != nil {
		return nil, nil, err
	}
	if ok {
		a.Fast, b.Fast = true, true
		return a, b, nil
	}
	pa, pb := ga.Points(), gb.Points()
	p, err := predictChunks(f, pa, pb, classes, tick)
	if err != nil {
		return nil, nil, err
	}
	a = &Surface{Grid: ga, Labels: p.Labels, Value: p.Decision}
	b = &Surface{Grid: gb, Labels: p.Labels, Value: p.Decision}
	if v, ok := p.Views["A"]; ok && len(v) == len(p.Labels) {
		a.Value = v
		a.Labels = signLabels(v)
	}
	if v, ok := p.Views["B"]; ok && len(v) == len(p.Labels) {
		b.Value = v
		b.Labels = signLabels(v)
	}
	kind := decisionKind(f)
	a.Layers = []Layer{{LayerDecision, kind, a.Value}}
	b.Layers = []Layer{{LayerDecision, kind, b.Value}}
	planes, err := pointwisePlanes(f, pa, pb)
	if err != nil {
		return nil, nil, err
	}
	for _, k := range []string{"A+", "A-"} {
		if v, ok := planes[k]; ok {
			a.Layers = append(a.Layers, Layer{k, KindPlane, v})
		}
	}
	for _, k := range []string{"B+", "B-"} {
		if v, ok := planes[k]; ok {
			b.Layers = append(b.Layers, Layer{k, KindPlane, v})
		}
	}
	if err := checkFinite(a.Layers); err != nil {
		return nil, nil, err
	}
	return a, b, checkFinite(b.Layers)
}

func signLabels(v []float64) []int {
	l := make([]int, len(v))
	for i, x := range v {
		if x > 0 {
			l[i] = 1
		}
	}
	return l
}

// EvaluateTags evaluates a multi-label model over a grid: one surface per
// tag, with Labels 1 where the tag is predicted and Value (and the "score"
// layer) the tag's continuous score, > 0 exactly where it is predicted: the
// joint SVM's max-marginal margin (see joint.Model.TagScoresOnGrid), an
// independent SVM's decision value; ±1 for a model without scores.
func EvaluateTags(f model.Fitted, g Grid, tags int, tick func()) ([]*Surface, error) {
	out, ok, err := tagsFast(f, g, tags, tick)
	if err != nil {
		return nil, err
	}
	if ok {
		for _, s := range out {
			s.Fast = true
			if err := checkFinite(s.Layers); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	p, err := predictChunks(f, g.Points(), nil, nil, tick)
	if err != nil {
		return nil, err
	}
	n := g.W * g.H
	if len(p.Tags) != n {
		return nil, fmt.Errorf("viz: model gave %d tag sets for %d pixels", len(p.Tags), n)
	}
	scored := len(p.Scores) == n
	out = make([]*Surface, tags)
	for t := range out {
		s := &Surface{Grid: g, Value: make([]float64, n), Labels: make([]int, n)}
		kind := KindScore
		for i, set := range p.Tags {
			on := t < len(set) && set[t]
			if on {
				s.Labels[i] = 1
			}
			switch {
			case scored && t < len(p.Scores[i]):
				s.Value[i] = p.Scores[i][t]
			case on:
				s.Value[i] = 1
			default:
				s.Value[i] = -1
			}
		}
		if _, ok := f.(tagExpander); ok {
			kind = KindDecision
		}
		s.Layers = []Layer{{LayerScore, kind, s.Value}}
		if err := checkFinite(s.Layers); err != nil {
			return nil, err
		}
		out[t] = s
	}
	return out, nil
}

// LikelihoodCurves returns, for each noise level s = exp(g), the probit
// likelihood Φ(f/√s) at the given latent values f (paper 002, eq 5 and
// Fig. 1: a large exp(g) flattens the likelihood of a hard sample).
func LikelihoodCurves(noise []float64, f []float64) [][]float64 {
	out := make([][]float64, len(noise))
	for k, s := range noise {
		out[k] = make([]float64, len(f))
		for i, x := range f {
			out[k][i] = 0.5 * math.Erfc(-x/math.Sqrt(2*s))
		}
	}
	return out
}
