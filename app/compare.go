package ui

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/model"
	"lupilab/models/run"
)

type compareState struct {
	job      job
	selected map[string]bool
	rows     []run.CompareRow
	err      string
}

func (p *Playground) compareView() app.UI {
	ds, dsErr := p.peekDataset()
	var boxes []app.UI
	for _, s := range model.All() {
		ok := dsErr == nil && run.Compatible(s, ds) == nil
		id := "cmp-" + s.ID
		s := s
		boxes = append(boxes, app.Label().Class("check").For(id).Body(
			app.Input().Type("checkbox").ID(id).Checked(ok && p.cmp.selected[s.ID]).Disabled(!ok).
				OnChange(func(ctx app.Context, e app.Event) { p.cmp.selected[s.ID] = ctx.JSSrc().Get("checked").Bool() }),
			app.Text(" "+s.Name),
		))
	}
	return app.Div().Class("compare").Body(
		app.P().Class("help").Text("Fit several models on the same split of the current data, each with its current settings "+
			"(the Model view's, or defaults). Models that cannot use this data are greyed out."),
		app.FieldSet().Body(app.Legend().Text("Models"), app.Div().Class("checks").Body(boxes...)),
		app.Div().Class("actions").Body(
			app.Button().ID("compare-run").Class("primary").Text("Compare").Disabled(p.cmp.job.busy).OnClick(p.onCompare),
		),
		p.cmp.job.view("compare"),
		app.If(p.cmp.err != "", app.P().ID("compare-error").Class("error").Text(p.cmp.err)),
		p.compareResults(),
	)
}

func (p *Playground) onCompare(ctx app.Context, e app.Event) {
	var ids []string
	for _, s := range model.All() {
		if p.cmp.selected[s.ID] {
			ids = append(ids, s.ID)
		}
	}
	p.cmp.err = ""
	params := map[string]model.Values{}
	for id, v := range p.values {
		params[id] = v.Clone()
	}
	p.cmp.job.start(ctx, p, "comparing", func(jobCtx context.Context, progress func(model.Progress)) (any, error) {
		ds, err := p.dataset(ctx)
		if err != nil {
			return nil, err
		}
		cfg := p.runConfig(ds)
		cfg.GridSize = 60
		return run.Compare(jobCtx, cfg, ids, params, progress)
	}, func(ctx app.Context, res any, err error) {
		switch {
		case errors.Is(err, context.Canceled):
			p.cmp.err = "Comparison cancelled."
		case err != nil:
			p.cmp.err = err.Error()
		default:
			p.cmp.rows = res.([]run.CompareRow)
		}
	})
}

func (p *Playground) compareResults() app.UI {
	rows := p.cmp.rows
	if len(rows) == 0 {
		return nil
	}
	best := 0.0
	for _, r := range rows {
		if r.Out != nil {
			best = maxf(best, score(r.Out))
		}
	}
	metric := "Test accuracy"
	if len(rows) > 0 && rows[0].Out != nil && rows[0].Out.TestTags != nil {
		metric = "Test micro F1"
	}
	return app.Div().Body(
		app.Table().ID("compare-table").Class("compare-table").Body(
			app.Tr().Body(app.Th().Text("Model"), app.Th().Text(metric), app.Th().Text("Train"),
				app.Th().Text("Fit time"), app.Th().Text("#SV"), app.Th().Text("Converged"), app.Th().Text(metric+" (bar)")),
			app.Range(rows).Slice(func(i int) app.UI {
				r := rows[i]
				spec, _ := model.Lookup(r.Model)
				name := r.Model
				if spec != nil {
					name = spec.Name
				}
				if r.Out == nil {
					return app.Tr().Body(app.Th().Scope("row").Text(name), app.Td().ColSpan(6).Class("error").Text(r.Err.Error()))
				}
				o := r.Out
				sc, tr := score(o), trainScore(o)
				conv := "yes"
				if !o.Report.Converged {
					conv = "no"
				}
				width := 0.0
				if best > 0 {
					width = 100 * sc / best
				}
				return app.Tr().Body(
					app.Th().Scope("row").Text(name),
					app.Td().Class("cmp-score").Text(pctOrF(o, sc)),
					app.Td().Text(pctOrF(o, tr)),
					app.Td().Text(fmt.Sprintf("%.3f s", o.FitSeconds)),
					app.Td().Text(strconv.Itoa(o.Report.NSupport)),
					app.Td().Text(conv),
					app.Td().Class("barcell").Body(app.Div().Class("bar").Style("width", fmt.Sprintf("%.1f%%", width)).
						Aria("label", pctOrF(o, sc))),
				)
			}),
		),
		app.Div().Class("thumbs").Body(
			app.Range(rows).Slice(func(i int) app.UI {
				r := rows[i]
				if r.Out == nil || (r.Out.Surface == nil && len(r.Out.TagSurfaces) == 0) {
					return nil
				}
				return &Thumb{Out: r.Out, ID: "thumb-" + r.Model}
			}),
		),
	)
}

func score(o *run.Outcome) float64 {
	if o.TestTags != nil {
		return o.TestTags.Micro.F1
	}
	return o.TestAcc
}

func trainScore(o *run.Outcome) float64 {
	if o.TrainTags != nil {
		return o.TrainTags.Micro.F1
	}
	return o.TrainAcc
}

func pctOrF(o *run.Outcome, x float64) string {
	if o.TestTags != nil {
		return f3(x)
	}
	return pct(x)
}

func maxf(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}

// Thumb is a small decision-surface picture of one compared model.
type Thumb struct {
	app.Compo
	Out *run.Outcome
	ID  string
}

const thumbSize = 160

// Render implements app.Composer.
func (t *Thumb) Render() app.UI {
	return app.Figure().Class("thumb").Body(
		app.Canvas().ID(t.ID).Width(thumbSize).Height(thumbSize).Aria("label", t.Out.Spec.Name+" decision surface"),
		app.FigCaption().Text(t.Out.Spec.Name),
	)
}

// OnMount draws the thumbnail.
func (t *Thumb) OnMount(ctx app.Context) { ctx.Defer(t.draw) }

// OnUpdate redraws it.
func (t *Thumb) OnUpdate(ctx app.Context) { ctx.Defer(t.draw) }

func (t *Thumb) draw(ctx app.Context) {
	o := t.Out
	s := o.Surface
	if s == nil && len(o.TagSurfaces) > 0 {
		s = o.TagSurfaces[0]
	}
	drawView(o, t.ID, thumbSize, s, o.TrainXY, o.TestXY, 0, false, "pos", "neg", "A+", "A-")
}
