package ui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/model"
	"lupilab/models/run"
)

type tuneState struct {
	job      job
	p1, p2   string
	steps    int
	folds    int
	result   *run.GridResult
	err      string
	forModel string
}

// numericParams lists the tunable (numeric) parameters of a spec.
func numericParams(spec *model.Spec) []model.Param {
	var out []model.Param
	for _, p := range spec.Params {
		if (p.Kind == model.Float || p.Kind == model.Int) && !advancedParams[p.Name] && !p.Advanced {
			out = append(out, p)
		}
	}
	return out
}

func (p *Playground) tuneDefaults(spec *model.Spec) {
	if p.tune.forModel == spec.ID {
		return
	}
	ps := numericParams(spec)
	p.tune = tuneState{forModel: spec.ID, steps: 5, folds: 5}
	if len(ps) > 0 {
		p.tune.p1 = ps[0].Name
	}
	if len(ps) > 1 {
		p.tune.p2 = ps[1].Name
		for _, q := range ps {
			if q.Name == "gamma" && ps[0].Name != "gamma" {
				p.tune.p2 = "gamma"
			}
		}
	}
}

// values spans a parameter's range: log-spaced for log parameters, linear
// otherwise (integers rounded, duplicates removed).
func spanValues(par *model.Param, steps int) []string {
	lo, hi := par.Min, par.Max
	if par.Log {
		// keep the grid to a useful window: 10⁻³…10³ within the range
		lo, hi = math.Max(lo, 1e-3), math.Min(hi, 1e3)
		return run.LogValues(lo, hi, steps)
	}
	if lo == 0 && hi == 0 {
		d, _ := strconv.ParseFloat(par.Default, 64)
		lo, hi = d/4, d*4
	}
	var out []string
	seen := map[string]bool{}
	for i := 0; i < steps; i++ {
		v := lo + (hi-lo)*float64(i)/float64(max(steps-1, 1))
		if par.Kind == model.Int {
			v = math.Round(v)
		}
		s := strconv.FormatFloat(v, 'g', 3, 64)
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func (p *Playground) tuneView() app.UI {
	spec := p.spec()
	if spec == nil {
		return nil
	}
	p.tuneDefaults(spec)
	ps := numericParams(spec)
	if len(ps) < 2 {
		return app.P().Class("help").Text(spec.Name + " has fewer than two numeric parameters to tune.")
	}
	sel := func(id, cur string, set func(string)) app.UI {
		return app.Select().ID(id).OnChange(func(ctx app.Context, e app.Event) { set(ctx.JSSrc().Get("value").String()) }).Body(
			app.Range(ps).Slice(func(i int) app.UI {
				return app.Option().Value(ps[i].Name).Selected(ps[i].Name == cur).Text(label(ps[i]))
			}),
		)
	}
	return app.Div().Class("tune").Body(
		app.P().Class("help").Text(fmt.Sprintf("k-fold cross-validation of %s on the training part of the current split, over a "+
			"grid of two parameters (log-spaced where the parameter is). The test part is not touched.", spec.Name)),
		app.Div().Class("genrow").Body(
			app.Div().Class("param small").Body(app.Label().For("tune-p1").Text("Rows"), sel("tune-p1", p.tune.p1, func(v string) { p.tune.p1 = v })),
			app.Div().Class("param small").Body(app.Label().For("tune-p2").Text("Columns"), sel("tune-p2", p.tune.p2, func(v string) { p.tune.p2 = v })),
			numField("tune-steps", "Values each", strconv.Itoa(p.tune.steps), 2, 9, 1, func(ctx app.Context, e app.Event) {
				if v, err := strconv.Atoi(ctx.JSSrc().Get("value").String()); err == nil && v >= 2 && v <= 9 {
					p.tune.steps = v
				}
			}),
			numField("tune-folds", "Folds", strconv.Itoa(p.tune.folds), 2, 10, 1, func(ctx app.Context, e app.Event) {
				if v, err := strconv.Atoi(ctx.JSSrc().Get("value").String()); err == nil && v >= 2 && v <= 10 {
					p.tune.folds = v
				}
			}),
		),
		app.Div().Class("actions").Body(
			app.Button().ID("tune-run").Class("primary").Text("Run the grid").Disabled(p.tune.job.busy).OnClick(p.onTune),
		),
		p.tune.job.view("tune"),
		app.If(p.tune.err != "", app.P().ID("tune-error").Class("error").Text(p.tune.err)),
		p.tuneResult(),
	)
}

func label(p model.Param) string {
	if p.Label != "" {
		return p.Label
	}
	return p.Name
}

func (p *Playground) onTune(ctx app.Context, e app.Event) {
	spec := p.spec()
	if spec == nil {
		return
	}
	par1, par2 := spec.Param(p.tune.p1), spec.Param(p.tune.p2)
	if par1 == nil || par2 == nil {
		p.tune.err = "Choose two parameters."
		return
	}
	v1, v2 := spanValues(par1, p.tune.steps), spanValues(par2, p.tune.steps)
	p.tune.err = ""
	p1, p2, folds := p.tune.p1, p.tune.p2, p.tune.folds
	p.tune.job.start(ctx, p, "cross-validating", func(jobCtx context.Context, progress func(model.Progress)) (any, error) {
		ds, err := p.dataset(ctx)
		if err != nil {
			return nil, err
		}
		return run.GridSearch(jobCtx, p.runConfig(ds), p1, v1, p2, v2, folds, progress)
	}, func(ctx app.Context, res any, err error) {
		switch {
		case errors.Is(err, context.Canceled):
			p.tune.err = "Grid search cancelled."
		case err != nil:
			p.tune.err = err.Error()
			if g, ok := res.(*run.GridResult); ok {
				p.tune.result = g
			}
		default:
			p.tune.result = res.(*run.GridResult)
		}
	})
}

func (p *Playground) tuneResult() app.UI {
	g := p.tune.result
	if g == nil || g.Model != p.modelID {
		return nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range g.Score {
		for _, v := range r {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	cell := func(i, j int) app.UI {
		v := g.Score[i][j]
		if math.IsNaN(v) {
			return app.Td().Class("cv-fail").Title(g.Errs[i][j]).Text("×")
		}
		t := 0.0
		if hi > lo {
			t = (v - lo) / (hi - lo)
		}
		// viridis-like ramp from dark blue to yellow (colour-blind safe)
		bg := fmt.Sprintf("rgb(%d,%d,%d)", int(68+185*t), int(1+230*t), int(84+(37-84)*t))
		fg := "#fff"
		if t > 0.6 {
			fg = "#000"
		}
		cls := "cv"
		if [2]int{i, j} == g.Best {
			cls = "cv best"
		}
		return app.Td().Class(cls).Style("background", bg).Style("color", fg).
			Title(fmt.Sprintf("%s=%s, %s=%s: %.3f ± %.3f", g.P1, g.V1[i], g.P2, g.V2[j], v, g.SD[i][j])).
			Text(fmt.Sprintf("%.3f", v))
	}
	b1, b2 := g.V1[g.Best[0]], g.V2[g.Best[1]]
	return app.Div().Body(
		app.Table().ID("cv-grid").Class("cv-grid").Body(
			app.Caption().Text(fmt.Sprintf("Mean %d-fold CV %s (%d fits, %.2f s); rows %s, columns %s",
				g.Folds, g.Metric, g.Fit, g.Seconds, g.P1, g.P2)),
			app.Tr().Body(
				app.Th().Text(g.P1+" \\ "+g.P2),
				app.Range(g.V2).Slice(func(j int) app.UI { return app.Th().Scope("col").Text(g.V2[j]) }),
			),
			app.Range(g.V1).Slice(func(i int) app.UI {
				return app.Tr().Body(
					app.Th().Scope("row").Text(g.V1[i]),
					app.Range(g.V2).Slice(func(j int) app.UI { return cell(i, j) }),
				)
			}),
		),
		app.P().ID("cv-best").Text(fmt.Sprintf("Best: %s = %s, %s = %s (%.3f).", g.P1, b1, g.P2, b2, g.Score[g.Best[0]][g.Best[1]])),
		app.Button().ID("cv-apply").Text("Apply the best cell and train").OnClick(func(ctx app.Context, e app.Event) {
			v := p.vals()
			v[g.P1], v[g.P2] = b1, b2
			p.view = "model"
			p.saveState(ctx)
			p.startTrain(ctx)
		}),
	)
}
