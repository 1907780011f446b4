package viz

import (
	"errors"
	"fmt"
	"math"

	"lupilab/models/kernel"
	"lupilab/models/model"
)

// The grid fast paths. A model's outputs are computed on the grid's axes
// (len(xs) + len(ys) one-dimensional factors and matrix products, see
// kernel.Expansion.OnGrid) instead of point by point when its binary models
// expose one of these forms; the model packages implement them without
// importing viz.
type (
	// latentGrid: GPC and GPC+ (models/gp): latent predictive mean and
	// variance on a grid, and the probability they give.
	latentGrid interface {
		LatentOnGrid(xs, ys []float64, withVar bool, tick func()) (mean, variance []float64, ok bool, err error)
		ProbabilityOf(mean, variance []float64) []float64
	}
	// planeExpander: twin SVMs (TWSVM, WLTSVM: keys "pos", "neg"; MPWTSVM,
	// MvTSVM: "A+", "A-", "B+", "B-"): each proximal surface's signed
	// distance as a kernel expansion; a view's decision is |neg| − |pos|.
	planeExpander interface {
		PlaneExpansions() map[string]*kernel.Expansion
	}
	// viewExpander: two-view models with one expansion per view (SVM-2K,
	// PSVM-2V, MCPK).
	viewExpander interface {
		ViewExpansions() (a, b *kernel.Expansion)
	}
	// ruled: two-view models combining the views by rule "A", "B" or
	// "both" (½(A + B)).
	ruled interface {
		DecisionRule() string
	}
	// tagScorer: the joint SVM's per-tag max-marginal scores and winning
	// tags on a grid (models/joint).
	tagScorer interface {
		TagScoresOnGrid(xs, ys []float64, tick func()) (scores [][]float64, on [][]bool, ok bool, err error)
	}
	// tagExpander: independent per-tag SVMs.
	tagExpander interface {
		TagExpansions() []*kernel.Expansion
	}
)

// FastGrid reports whether the evaluators (Evaluate, EvaluateViews,
// EvaluateTags) compute f's maps by a grid fast path — a few to a few tens
// of milliseconds for a 200×200 grid — rather than point by point, so
// callers need not budget the grid's resolution. It tries the fast paths on
// a 2×2 grid.
func FastGrid(f model.Fitted) bool {
	g := Grid{XMin: -1, XMax: 1, YMin: -1, YMax: 1, W: 2, H: 2}
	if _, ok, err := tagsFast(f, g, 0, nil); ok && err == nil {
		return true
	}
	if _, _, ok, err := viewsFast(f, g, g, nil); ok && err == nil {
		return true
	}
	_, ok, err := evaluateFast(f, g, nil)
	return ok && err == nil
}

// axes returns the pixel centres of the grid's columns and rows (rows top
// first), exactly as Points lays them out.
func (g Grid) axes() (xs, ys []float64) {
	dx := (g.XMax - g.XMin) / float64(g.W)
	dy := (g.YMax - g.YMin) / float64(g.H)
	xs, ys = make([]float64, g.W), make([]float64, g.H)
	for i := range xs {
		xs[i] = g.XMin + (float64(i)+0.5)*dx
	}
	for j := range ys {
		ys[j] = g.YMax - (float64(j)+0.5)*dy
	}
	return xs, ys
}

// binGrid is one binary model's outputs on a grid.
type binGrid struct {
	dec    []float64 // the decision value Decision returns
	kind   Kind      // what dec is
	prob   []float64 // P(+1) for probabilistic models
	layers []Layer   // every layer it has (decision or probability first)
}

// binaryOnGrid evaluates one binary model on a grid; ok is false when it
// has no fast form. all asks for every layer (else the decision only).
func binaryOnGrid(bm model.BinaryModel, xs, ys []float64, all bool, tick func()) (*binGrid, bool, error) {
	if lg, ok := bm.(latentGrid); ok {
		mean, vr, ok, err := lg.LatentOnGrid(xs, ys, all, tick)
		if err != nil || !ok {
			return nil, false, err
		}
		bg := &binGrid{dec: mean, kind: KindScore}
		if all {
			bg.prob = lg.ProbabilityOf(mean, vr)
			if len(bg.prob) != len(mean) {
				return nil, false, errors.New("viz: the model gave no probabilities")
			}
			bg.layers = []Layer{{LayerProbability, KindProbability, bg.prob}, {LayerMean, KindScore, mean},
				{LayerVariance, KindVariance, vr}, {LayerEntropy, KindEntropy, entropy(bg.prob)}}
		}
		return bg, true, nil
	}
	if _, ok := bm.(model.Probabilistic); ok {
		return nil, false, nil // e.g. Platt-scaled SVMs: point by point
	}
	if _, ok := bm.(model.MultiView); ok {
		return nil, false, nil // two-view models: EvaluateViews
	}
	if pe, ok := bm.(planeExpander); ok {
		planes, ok := expansionsOnGrid(pe.PlaneExpansions(), xs, ys, tick)
		if !ok || planes["pos"] == nil || planes["neg"] == nil {
			return nil, false, nil
		}
		dec := twinDecision(planes["neg"], planes["pos"])
		bg := &binGrid{dec: dec, kind: KindScore}
		if all {
			bg.layers = []Layer{{LayerDecision, KindScore, dec}, {"pos", KindPlane, planes["pos"]}, {"neg", KindPlane, planes["neg"]}}
		}
		return bg, true, nil
	}
	if ex, ok := bm.(kernel.Expander); ok {
		v, ok := ex.Expansion().OnGrid(xs, ys, tick)
		if !ok {
			return nil, false, nil
		}
		bg := &binGrid{dec: v, kind: KindDecision}
		if all {
			bg.layers = []Layer{{LayerDecision, KindDecision, v}}
		}
		return bg, true, nil
	}
	return nil, false, nil
}

// expansionsOnGrid evaluates named expansions on the grid; false when one
// has no fast form (or there are none).
func expansionsOnGrid(exps map[string]*kernel.Expansion, xs, ys []float64, tick func()) (map[string][]float64, bool) {
	if len(exps) == 0 {
		return nil, false
	}
	out := make(map[string][]float64, len(exps))
	for k, e := range exps {
		v, ok := e.OnGrid(xs, ys, tick)
		if !ok {
			return nil, false
		}
		out[k] = v
	}
	return out, true
}

// twinDecision is |neg| − |pos| (paper 001 eqs (33)-(34)).
func twinDecision(neg, pos []float64) []float64 {
	out := make([]float64, len(neg))
	for i := range out {
		out[i] = math.Abs(neg[i]) - math.Abs(pos[i])
	}
	return out
}

// entropy returns the binary entropy of each probability, in bits.
func entropy(p []float64) []float64 {
	out := make([]float64, len(p))
	for i, q := range p {
		for _, x := range []float64{q, 1 - q} {
			if x > 0 {
				out[i] -= x * math.Log2(x)
			}
		}
	}
	return out
}

// evaluateFast is Evaluate's fast path: every binary model of a classifier
// on the grid, combined as Predict combines them; ok is false when one of
// them has no fast form.
func evaluateFast(f model.Fitted, g Grid, tick func()) (*Surface, bool, error) {
	xs, ys := g.axes()
	s, ok, err := evaluateOnAxes(f, xs, ys, tick)
	if ok {
		s.Grid = g
	}
	return s, ok, err
}

// evaluateOnAxes is evaluateFast at the nodes (xs[i], ys[j]) of any
// rectangular lattice (the Surface's Grid is left unset).
func evaluateOnAxes(f model.Fitted, xs, ys []float64, tick func()) (*Surface, bool, error) {
	c, ok := f.(*model.Classifier)
	if !ok || len(c.Models) == 0 || len(c.Pos) < len(c.Models) || len(c.Neg) < len(c.Models) {
		return nil, false, nil
	}
	binary := c.Strategy == "binary" && len(c.Models) == 1
	grids := make([]*binGrid, len(c.Models))
	dec := make([][]float64, len(c.Models))
	for m, bm := range c.Models {
		bg, ok, err := binaryOnGrid(bm, xs, ys, binary, tick)
		if err != nil || !ok {
			return nil, false, err
		}
		grids[m], dec[m] = bg, bg.dec
		if tick != nil {
			tick()
		}
	}
	s := &Surface{}
	if binary && grids[0].prob != nil {
		// Predict's binary rule (model.Classifier): decision > 0 ⇒ Pos.
		s.Labels = make([]int, len(dec[0]))
		for i, d := range dec[0] {
			if math.IsNaN(d) {
				return nil, false, fmt.Errorf("model %s: the decision value is NaN", c.ID)
			}
			s.Labels[i] = c.Neg[0]
			if d > 0 {
				s.Labels[i] = c.Pos[0]
			}
		}
		s.Value, s.Prob, s.Layers = grids[0].prob, true, grids[0].layers
		return s, true, nil
	}
	p, err := c.Combine(dec)
	if err != nil {
		return nil, false, err
	}
	s.Labels, s.Value = p.Labels, p.Decision
	if binary {
		s.Layers = grids[0].layers
	} else {
		s.Layers = []Layer{{LayerDecision, KindScore, p.Decision}}
		s.Margins = classMargins(c, dec, p.Labels)
	}
	return s, true, nil
}

// viewsFast is EvaluateViews' fast path for a binary two-view model: view
// A's decision (and planes) over ga, view B's over gb.
func viewsFast(f model.Fitted, ga, gb Grid, tick func()) (a, b *Surface, ok bool, err error) {
	xa, ya := ga.axes()
	xb, yb := gb.axes()
	a, b, ok, err = viewsOnAxes(f, xa, ya, xb, yb, tick)
	if ok {
		a.Grid, b.Grid = ga, gb
	}
	return a, b, ok, err
}

// viewsOnAxes is viewsFast on view A's lattice (xa, ya) and view B's (xb,
// yb) (the Surfaces' Grids are left unset).
func viewsOnAxes(f model.Fitted, xa, ya, xb, yb []float64, tick func()) (a, b *Surface, ok bool, err error) {
	c, isC := f.(*model.Classifier)
	if !isC || len(c.Models) != 1 || c.Strategy != "binary" {
		return nil, nil, false, nil
	}
	bm := c.Models[0]
	if _, ok := bm.(ruled); !ok {
		return nil, nil, false, nil
	}
	var va, vb []float64
	var la, lb []Layer
	kind := KindDecision
	switch m := bm.(type) {
	case viewExpander:
		ea, eb := m.ViewExpansions()
		if ea == nil || eb == nil {
			return nil, nil, false, nil
		}
		var okA, okB bool
		va, okA = ea.OnGrid(xa, ya, tick)
		vb, okB = eb.OnGrid(xb, yb, tick)
		if !okA || !okB {
			return nil, nil, false, nil
		}
	case planeExpander:
		exps := m.PlaneExpansions()
		if exps["A+"] == nil || exps["A-"] == nil || exps["B+"] == nil || exps["B-"] == nil {
			return nil, nil, false, nil
		}
		pa, okA := expansionsOnGrid(map[string]*kernel.Expansion{"A+": exps["A+"], "A-": exps["A-"]}, xa, ya, tick)
		pb, okB := expansionsOnGrid(map[string]*kernel.Expansion{"B+": exps["B+"], "B-": exps["B-"]}, xb, yb, tick)
		if !okA || !okB {
			return nil, nil, false, nil
		}
		kind = KindScore
		va, vb = twinDecision(pa["A-"], pa["A+"]), twinDecision(pb["B-"], pb["B+"])
		la = []Layer{{"A+", KindPlane, pa["A+"]}, {"A-", KindPlane, pa["A-"]}}
		lb = []Layer{{"B+", KindPlane, pb["B+"]}, {"B-", KindPlane, pb["B-"]}}
	default:
		return nil, nil, false, nil
	}
	for _, v := range [][]float64{va, vb} {
		for _, x := range v {
			if math.IsNaN(x) {
				return nil, nil, false, errors.New("viz: the model returned NaN on the grid")
			}
		}
	}
	a = &Surface{Value: va, Labels: signLabels(va), Layers: append([]Layer{{LayerDecision, kind, va}}, la...)}
	b = &Surface{Value: vb, Labels: signLabels(vb), Layers: append([]Layer{{LayerDecision, kind, vb}}, lb...)}
	return a, b, true, nil
}

// CombineViews applies a two-view model's decision rule to view values on
// paired points (view A's value at point i with view B's at point i), as
// its Decision does: "A", "B", or ½(A + B). ok is false when f is not a
// binary two-view model with a rule.
func CombineViews(f model.Fitted, va, vb []float64) ([]float64, bool) {
	c, isC := f.(*model.Classifier)
	if !isC || len(c.Models) != 1 || len(va) != len(vb) {
		return nil, false
	}
	r, ok := c.Models[0].(ruled)
	if !ok {
		return nil, false
	}
	out := make([]float64, len(va))
	for i := range out {
		switch r.DecisionRule() {
		case "A":
			out[i] = va[i]
		case "B":
			out[i] = vb[i]
		default:
			out[i] = 0.5 * (va[i] + vb[i])
		}
	}
	return out, true
}

// tagsFast is EvaluateTags' fast path.
func tagsFast(f model.Fitted, g Grid, tags int, tick func()) ([]*Surface, bool, error) {
	xs, ys := g.axes()
	out, ok, err := tagsOnAxes(f, xs, ys, tags, tick)
	for _, s := range out {
		s.Grid = g
	}
	return out, ok, err
}

// tagsOnAxes is tagsFast on any rectangular lattice.
func tagsOnAxes(f model.Fitted, xs, ys []float64, tags int, tick func()) ([]*Surface, bool, error) {
	n := len(xs) * len(ys)
	switch m := f.(type) {
	case tagScorer:
		scores, on, ok, err := m.TagScoresOnGrid(xs, ys, tick)
		if err != nil || !ok || (tags > 0 && len(scores) != tags) {
			return nil, false, err
		}
		out := make([]*Surface, len(scores))
		for t := range scores {
			s := &Surface{Value: scores[t], Labels: make([]int, n), Layers: []Layer{{LayerScore, KindScore, scores[t]}}}
			for i, b := range on[t] {
				if b {
					s.Labels[i] = 1
				}
			}
			out[t] = s
		}
		return out, true, nil
	case tagExpander:
		exps := m.TagExpansions()
		if len(exps) == 0 || (tags > 0 && len(exps) != tags) {
			return nil, false, nil
		}
		out := make([]*Surface, len(exps))
		for t, e := range exps {
			v, ok := e.OnGrid(xs, ys, tick)
			if !ok {
				return nil, false, nil
			}
			out[t] = &Surface{Value: v, Labels: signLabels(v), Layers: []Layer{{LayerScore, KindDecision, v}}}
		}
		return out, true, nil
	}
	return nil, false, nil
}
