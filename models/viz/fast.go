package viz

import (
	"lupilab/models/kernel"
	"lupilab/models/model"
)

// expansions returns the kernel expansions of a classifier's binary models
// when every one of them is an expansion the grid can evaluate fast (see
// kernel.Expansion.OnGrid), and nil otherwise.
func expansions(f model.Fitted) []*kernel.Expansion {
	c, ok := f.(*model.Classifier)
	if !ok || len(c.Models) == 0 {
		return nil
	}
	out := make([]*kernel.Expansion, len(c.Models))
	for i, bm := range c.Models {
		if _, ok := bm.(model.Probabilistic); ok {
			return nil
		}
		if _, ok := bm.(model.MultiView); ok {
			return nil
		}
		ex, ok := bm.(kernel.Expander)
		if !ok {
			return nil
		}
		e := ex.Expansion()
		if e == nil || e.SV == nil {
			return nil
		}
		if _, d := e.SV.Dims(); d != 2 || (e.Kernel.Kind != kernel.RBF && e.Kernel.Kind != kernel.Linear) {
			return nil
		}
		out[i] = e
	}
	return out
}

// FastGrid reports whether Evaluate computes f's grid by the factorised
// kernel expansion (a few milliseconds for a 200×200 grid) rather than
// point by point, so callers need not budget the grid's resolution.
func FastGrid(f model.Fitted) bool { return expansions(f) != nil }

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

// predictFast predicts the grid from the binary models' expansions; ok is
// false when f has no fast form.
func predictFast(f model.Fitted, g Grid, tick func()) (p *model.Prediction, ok bool, err error) {
	exps := expansions(f)
	if exps == nil {
		return nil, false, nil
	}
	xs, ys := g.axes()
	dec := make([][]float64, len(exps))
	for m, e := range exps {
		v, ok := e.OnGrid(xs, ys, tick)
		if !ok {
			return nil, false, nil
		}
		dec[m] = v
		if tick != nil {
			tick()
		}
	}
	p, err = f.(*model.Classifier).Combine(dec)
	return p, true, err
}
