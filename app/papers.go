package app

import (
	"encoding/json"
	"fmt"
	"strings"
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
	exp     *expRun
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
func (p *Papers) OnDismount() {
	if p.exp != nil {
		p.exp.cancel()
	}
}

// Render implements app.Composer.
func (p *Papers) Render() app.UI {
	return app.Div().Class("papers").Body(
		app.H1().Text("The papers' experiments"),
		app.P().Class("help").Body(
			app.Text("Each button runs a browser-sized version (fewer repeats, smaller grids) of a paper's experiment in a compute "+
				"worker, with the same code as LUPI Lab's command-line tool ("), app.Code().Text("lupi experiment NAME -quick"),
			app.Text("), which also runs the full protocol ("), app.Code().Text("lupi experiment NAME"),
			app.Text("). The paper's own numbers are printed with ours for reference, but our runs use smaller or other data sets "+
				"(the SVM2+ experiment, for instance, runs on wdbc and digits, the paper on Caltech101 and WebQueries), so the "+
				"two are not directly comparable: compare the trends, not the numbers one by one."),
		),
		app.If(p.listErr != "", app.P().Class("error").Text("The experiments could not be listed: "+p.listErr)),
		app.If(p.list == nil && p.listErr == "", &EngineLoad{}),
		app.Range(p.list).Slice(func(i int) app.UI {
			e := p.list[i]
			busy := p.exp != nil
			return app.Section().Class("experiment").ID("exp-"+e.Name).Aria("labelledby", "exp-title-"+e.Name).Body(
				app.H2().ID("exp-title-"+e.Name).Text(e.Title),
				app.P().Class("paper").Text(e.Paper),
				app.Div().Class("actions").Body(
					app.Button().ID("exp-run-"+e.Name).Class("primary").Text("Run in the browser").
						Disabled(busy).OnClick(func(ctx app.Context, ev app.Event) { p.run(ctx, e) }),
					app.If(busy && p.running == e.Name, app.Button().ID("exp-cancel").Text("Cancel").
						OnClick(func(ctx app.Context, ev app.Event) { p.fail(p.exp, "Cancelled.") })),
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

// run fans the experiment out over the pool: it asks a worker for the
// next stage of the plan, runs that stage's tasks on every worker, and asks
// again with the finished tasks until the plan is complete; then a worker
// reduces the tasks to the tables. Each task carries its own seed, so the
// tables do not depend on the number of workers.
func (p *Papers) run(ctx app.Context, e wire.ExpInfo) {
	delete(p.errs, e.Name)
	p.running, p.started, p.prog = e.Name, time.Now(), wire.Progress{Fraction: 0, Stage: "planning"}
	r := &expRun{name: e.Name}
	r.jobs.start()
	p.exp = r
	p.plan(ctx, r)
	p.Update()
}

// expRun is one fanned-out experiment run.
type expRun struct {
	name    string
	jobs    jobBatch
	done    []json.RawMessage
	pending int
	later   int
	failed  bool
}

func (r *expRun) cancel() { r.jobs.stop() }

func (p *Papers) request(r *expRun) wire.ExpPlanRequest {
	return wire.ExpPlanRequest{Name: r.name, Quick: true, Seed: 1, Done: r.done}
}

// live reports whether r is still the run on screen.
func (p *Papers) live(r *expRun) bool { return p.exp == r && !r.failed }

// fail ends the run with a message (or "Cancelled.").
func (p *Papers) fail(r *expRun, msg string) {
	r.failed = true
	r.cancel()
	p.exp = nil
	p.errs[r.name] = msg
	p.Update()
}

// submit starts one job of run r; when it succeeds while r is still the
// run on screen, its result is decoded into out and ok runs. A failed or
// cancelled job ends the run.
func (p *Papers) submit(ctx app.Context, r *expRun, kind string, req, out any, ok func(ctx app.Context)) {
	r.jobs.submit(ctx, kind, req, out, JobOptions{Priority: PriorityBackground}, func(ctx app.Context, e jobEnd) {
		switch {
		case !p.live(r):
		case e.cancelled:
			p.fail(r, "Cancelled.")
		case e.err != nil:
			p.fail(r, e.err.Error())
		default:
			ok(ctx)
		}
	})
}

func (p *Papers) plan(ctx app.Context, r *expRun) {
	var st wire.ExpStage
	p.submit(ctx, r, wire.KindExpPlan, p.request(r), &st, func(ctx app.Context) {
		if len(st.Tasks) == 0 {
			p.reduce(ctx, r)
			return
		}
		r.pending, r.later = len(st.Tasks), st.Later
		p.progressTo(r, "running")
		for _, t := range st.Tasks {
			p.task(ctx, r, t)
		}
	})
}

func (p *Papers) task(ctx app.Context, r *expRun, t json.RawMessage) {
	req := wire.ExpTaskRequest{Name: r.name, Quick: true, Seed: 1, Task: t}
	var out json.RawMessage
	p.submit(ctx, r, wire.KindExpTask, req, &out, func(ctx app.Context) {
		r.done = append(r.done, out)
		r.pending--
		if r.pending > 0 {
			p.progressTo(r, "running")
			return
		}
		p.progressTo(r, "planning")
		p.plan(ctx, r)
	})
}

func (p *Papers) reduce(ctx app.Context, r *expRun) {
	p.progressTo(r, "making the tables")
	res := &wire.ExpResult{}
	p.submit(ctx, r, wire.KindExpReduce, p.request(r), res, func(ctx app.Context) {
		res.Seconds = time.Since(p.started).Seconds()
		p.results[r.name] = res
		p.exp = nil
		p.Update()
	})
}

// progressTo shows the share of the tasks known so far that are finished.
func (p *Papers) progressTo(r *expRun, stage string) {
	total := len(r.done) + r.pending + r.later
	frac := 0.0
	if total > 0 {
		frac = float64(len(r.done)) / float64(total)
	}
	p.prog = wire.Progress{Fraction: frac, Stage: stage, Message: fmt.Sprintf("%d of about %d fits", len(r.done), total)}
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
					return app.Tr().Body(app.Range(row).Slice(func(j int) app.UI { return app.Td().Body(strongText(row[j])...) }))
				})),
			)))
			for _, n := range t.Notes {
				ts = append(ts, app.P().Class("help").Body(strongText(n)...))
			}
		}
	}
	return app.Div().Class("exp-results").Body(ts...)
}

// strongText renders the one piece of Markdown the experiments' tables use,
// **bold**, as <strong> (the rest as text; an unpaired "**" stays as it is).
func strongText(s string) []app.UI {
	var out []app.UI
	for {
		i := strings.Index(s, "**")
		if i < 0 {
			break
		}
		j := strings.Index(s[i+2:], "**")
		if j < 0 {
			break
		}
		if i > 0 {
			out = append(out, app.Text(s[:i]))
		}
		out = append(out, app.Strong().Text(s[i+2:i+2+j]))
		s = s[i+2+j+2:]
	}
	if s != "" || len(out) == 0 {
		out = append(out, app.Text(s))
	}
	return out
}
