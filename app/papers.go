package app

import (
	"fmt"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/wire"
)

// Papers runs browser-sized versions of each paper's experiment — the same
// code as `lupi experiment NAME -quick` — in a compute worker, and shows our
// tables beside the paper's numbers. Element ids: exp-<name> (section),
// exp-run-<name>, exp-cancel, exp-<name>-progress, exp-<name>-error,
// exp-<name>-table, exp-<name>-paper.
type Papers struct {
	app.Compo
	list    []wire.ExpInfo
	listErr string
	job     *Job
	running string
	started time.Time
	prog    wire.Progress
	results map[string]*wire.ExpResult
	errs    map[string]string
}

// OnInit prepares the maps.
func (p *Papers) OnInit() {
	p.results, p.errs = map[string]*wire.ExpResult{}, map[string]string{}
}

// OnMount starts the compute engine and asks it for the experiments.
func (p *Papers) OnMount(ctx app.Context) {
	markLive()
	StartCompute(ctx, poolSizeSetting(ctx))
	Submit(ctx, wire.KindExpList, struct{}{}, nil, JobOptions{Priority: PriorityInteractive,
		OnEnd: func(ctx app.Context, m wire.Message, w Affinity) {
			var list []wire.ExpInfo
			if _, _, err := decodeEnd(m, &list); err != nil {
				p.listErr = err.Error()
			}
			p.list = list
			p.Update()
		}})
}

// OnDismount cancels a running experiment.
func (p *Papers) OnDismount() { p.job.Cancel() }

// Render implements app.Composer.
func (p *Papers) Render() app.UI {
	return app.Div().Class("papers").Body(
		app.H1().Text("The papers' experiments"),
		app.P().Class("help").Text("Each button runs a browser-sized version (fewer repeats, smaller grids) of a paper's "+
			"experiment in a compute worker, with the same code as the CLI's `lupi experiment NAME -quick`; the full protocol is "+
			"`lupi experiment NAME`. Our numbers are printed beside the paper's."),
		app.If(p.listErr != "", app.P().Class("error").Text("The experiments could not be listed: "+p.listErr)),
		app.If(p.list == nil && p.listErr == "", app.P().Class("help").Text("Loading the compute engine…")),
		app.Range(p.list).Slice(func(i int) app.UI {
			e := p.list[i]
			busy := p.job != nil
			return app.Section().Class("experiment").ID("exp-"+e.Name).Aria("labelledby", "exp-title-"+e.Name).Body(
				app.H2().ID("exp-title-"+e.Name).Text(e.Title),
				app.P().Class("paper").Text(e.Paper),
				app.Div().Class("actions").Body(
					app.Button().ID("exp-run-"+e.Name).Class("primary").Text("Run in the browser").
						Disabled(busy).OnClick(func(ctx app.Context, ev app.Event) { p.run(ctx, e) }),
					app.If(busy && p.running == e.Name, app.Button().ID("exp-cancel").Text("Cancel").
						OnClick(func(ctx app.Context, ev app.Event) { p.job.Cancel() })),
				),
				app.If(busy && p.running == e.Name, p.progress(e)),
				app.If(p.errs[e.Name] != "", app.P().ID("exp-"+e.Name+"-error").Class("error").Text(p.errs[e.Name])),
				resultTables(e.Name, p.results[e.Name]),
			)
		}),
	)
}

func (p *Papers) progress(e wire.ExpInfo) app.UI {
	bar := app.Progress().ID("exp-"+e.Name+"-progress").Max(1).Aria("label", e.Title+": progress")
	if p.prog.Fraction >= 0 {
		bar = bar.Value(p.prog.Fraction)
	}
	return app.Div().Class("progress").Aria("live", "polite").Body(
		bar,
		app.Span().Class("stage").Text(e.Title+": "+p.prog.Stage+" "+p.prog.Message+eta(p.prog, p.started)),
	)
}

func (p *Papers) run(ctx app.Context, e wire.ExpInfo) {
	delete(p.errs, e.Name)
	p.running, p.started, p.prog = e.Name, time.Now(), wire.Progress{Fraction: 0, Stage: "starting"}
	var job *Job
	job = Submit(ctx, wire.KindExperiment, wire.ExpRequest{Name: e.Name, Quick: true, Seed: 1}, nil, JobOptions{
		Priority: PriorityBackground,
		OnProgress: func(ctx app.Context, pr wire.Progress) {
			if p.job == job {
				p.prog = pr
				p.Update()
			}
		},
		OnEnd: func(ctx app.Context, m wire.Message, w Affinity) {
			if p.job != job {
				return
			}
			p.job = nil
			var r wire.ExpResult
			_, cancelled, err := decodeEnd(m, &r)
			switch {
			case cancelled:
				p.errs[e.Name] = "Cancelled."
			case err != nil:
				p.errs[e.Name] = err.Error()
			default:
				p.results[e.Name] = &r
			}
			p.Update()
		}})
	p.job = job
	p.Update()
}

func resultTables(name string, r *wire.ExpResult) app.UI {
	if r == nil {
		return nil
	}
	var ts []app.UI
	ts = append(ts, app.P().Class("help").Text(fmt.Sprintf("Ran in %s.", seconds(r.Seconds))))
	for gi, group := range [][]wire.ExpTable{r.Tables, r.PaperTables} {
		for ti, t := range group {
			t := t
			id := "exp-" + name + "-table"
			if gi == 1 {
				id = "exp-" + name + "-paper"
			}
			if ti > 0 {
				id = fmt.Sprintf("%s-%d", id, ti)
			}
			ts = append(ts, app.Div().Class("scroll").Body(app.Table().ID(id).Class("exp-table").Body(
				app.Caption().Text(t.Title),
				app.THead().Body(app.Tr().Body(app.Range(t.Columns).Slice(func(j int) app.UI { return app.Th().Scope("col").Text(t.Columns[j]) }))),
				app.TBody().Body(app.Range(t.Rows).Slice(func(i int) app.UI {
					row := t.Rows[i]
					return app.Tr().Body(app.Range(row).Slice(func(j int) app.UI { return app.Td().Text(row[j]) }))
				})),
			)))
			for _, n := range t.Notes {
				ts = append(ts, app.P().Class("help").Text(n))
			}
		}
	}
	return app.Div().Class("exp-results").Body(ts...)
}
