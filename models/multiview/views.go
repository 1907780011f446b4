package multiview

import (
	"errors"
	"fmt"

	"lupilab/models/data"
	"lupilab/models/model"
)

// ViewAccuracy is the accuracy of each view's own decision rule of a
// fitted two-view model on labelled data: A uses view A alone (e.g.
// MPWTSVM's rule (33)), B view B alone (rule (34)), whatever rule the model
// was fitted to report. A view that gives way to the coupling of a coupled
// model (MPWTSVM at C > 0, see models/twin/RESULTS.md) shows here while the
// combined rule hides it.
type ViewAccuracy struct {
	A float64 `json:"accuracy_view_A"`
	B float64 `json:"accuracy_view_B"`
}

// PerViewAccuracy returns the per-view accuracy of f on ds (ds.X view A,
// ds.Z view B, ds.Y the classes). f must be a classifier of model.MultiView
// binary models (every two-view model registered here and MPWTSVM): with
// two classes each view's label is the sign of its decision; with more, the
// one-vs-rest or one-vs-one combination of every binary model's decisions
// of that view, as the classifier combines its models' decisions.
func PerViewAccuracy(f model.Fitted, ds *data.Dataset) (ViewAccuracy, error) {
	c, ok := f.(*model.Classifier)
	if !ok || len(c.Models) == 0 {
		return ViewAccuracy{}, errors.New("per-view accuracy needs a classifier of two-view binary models")
	}
	if ds == nil || ds.Y == nil {
		return ViewAccuracy{}, errors.New("per-view accuracy needs labelled data")
	}
	n := ds.Rows()
	dec := map[string][][]float64{"A": make([][]float64, len(c.Models)), "B": make([][]float64, len(c.Models))}
	for m, bm := range c.Models {
		mv, ok := bm.(model.MultiView)
		if !ok {
			return ViewAccuracy{}, fmt.Errorf("model %s has no per-view rules", c.ID)
		}
		v, err := mv.ViewDecisions(ds)
		if err != nil {
			return ViewAccuracy{}, err
		}
		for _, k := range []string{"A", "B"} {
			if len(v[k]) != n {
				return ViewAccuracy{}, fmt.Errorf("model %s: %d view-%s decisions for %d rows", c.ID, len(v[k]), k, n)
			}
			dec[k][m] = v[k]
		}
	}
	var acc [2]float64
	for i, k := range []string{"A", "B"} {
		labels := make([]int, n)
		if c.Strategy == "binary" {
			for j, d := range dec[k][0] {
				labels[j] = c.Neg[0]
				if d > 0 {
					labels[j] = c.Pos[0]
				}
			}
		} else {
			p, err := c.Combine(dec[k])
			if err != nil {
				return ViewAccuracy{}, err
			}
			labels = p.Labels
		}
		right := 0
		for j, y := range ds.Y {
			if labels[j] == y {
				right++
			}
		}
		acc[i] = float64(right) / float64(n)
	}
	return ViewAccuracy{A: acc[0], B: acc[1]}, nil
}
