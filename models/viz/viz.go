// Package viz computes what the app draws: decision values over a grid,
// their rendering as an RGBA heatmap with contour lines, and 2-D projections
// of data with more than two features. It is numerics, so it lives under
// models; the app only copies the bytes into a canvas.
package viz

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
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
}

// Evaluate predicts every grid pixel. For models that need a second view at
// test time, view B of the grid is given by zOf (nil ⇒ the same grid points).
func Evaluate(f model.Fitted, spec *model.Spec, g Grid, classes []string, tick func()) (*Surface, error) {
	var p *model.Prediction
	var err error
	fast := false
	if spec == nil || spec.Z != model.ZView {
		p, fast, err = predictFast(f, g, tick)
	}
	if !fast && err == nil {
		pts := g.Points()
		var z *mat.Dense
		if spec != nil && spec.Z == model.ZView {
			z = pts
		}
		p, err = predictChunks(f, pts, z, classes, tick)
	}
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
	case len(p.Decision) == g.W*g.H:
		s.Value = p.Decision
	default:
		return nil, fmt.Errorf("viz: model gave %d values for %d pixels", len(p.Decision), g.W*g.H)
	}
	for _, v := range s.Value {
		if math.IsNaN(v) {
			return nil, errors.New("viz: the model returned NaN on the grid")
		}
	}
	return s, nil
}

// EvaluateViews evaluates a two-view model: view A's surface over grid ga
// (the combined rule's labels and the view-A decision) and view B's surface
// over gb. Both grids must have the same number of pixels.
func EvaluateViews(f model.Fitted, ga, gb Grid, classes []string, tick func()) (a, b *Surface, err error) {
	if ga.W*ga.H != gb.W*gb.H {
		return nil, nil, errors.New("viz: view grids differ in size")
	}
	p, err := predictChunks(f, ga.Points(), gb.Points(), classes, tick)
	if err != nil {
		return nil, nil, err
	}
	a = &Surface{Grid: ga, Labels: p.Labels, Value: p.Decision}
	b = &Surface{Grid: gb, Labels: p.Labels, Value: p.Decision}
	if v, ok := p.Views["A"]; ok && len(v) == len(p.Labels) {
		a.Value = v
	}
	if v, ok := p.Views["B"]; ok && len(v) == len(p.Labels) {
		b.Value = v
		b.Labels = signLabels(v)
	}
	if v, ok := p.Views["A"]; ok && len(v) == len(p.Labels) {
		a.Labels = signLabels(v)
	}
	return a, b, nil
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
// tag, with Value +1 where the tag is predicted and −1 where it is not (or
// the tag's score when the model gives one).
func EvaluateTags(f model.Fitted, g Grid, tags int, tick func()) ([]*Surface, error) {
	p, err := predictChunks(f, g.Points(), nil, nil, tick)
	if err != nil {
		return nil, err
	}
	n := g.W * g.H
	if len(p.Tags) != n {
		return nil, fmt.Errorf("viz: model gave %d tag sets for %d pixels", len(p.Tags), n)
	}
	out := make([]*Surface, tags)
	for t := range out {
		s := &Surface{Grid: g, Value: make([]float64, n), Labels: make([]int, n)}
		for i, set := range p.Tags {
			if t < len(set) && set[t] {
				s.Value[i], s.Labels[i] = 1, 1
			} else {
				s.Value[i] = -1
			}
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
