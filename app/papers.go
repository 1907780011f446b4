package ui

import (
	"context"
	"errors"
	"testing/fstest"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/data"
	"lupilab/models/experiment"
	"lupilab/models/model"
)

// Papers runs browser-sized versions of each paper's experiment — the same
// code as `lupi experiment NAME -quick` — and shows our tables beside the
// paper's numbers.
type Papers struct {
	app.Compo
	job     job
	running string
	results map[string]*experiment.Result
	errs    map[string]string
	fsys    fstest.MapFS
}

// OnInit prepares the maps.
func (p *Papers) OnInit() {
	p.results, p.errs = map[string]*experiment.Result{}, map[string]string{}
}

// OnMount marks the page live.
func (p *Papers) OnMount(ctx app.Context) {
	app.Window().Get("document").Get("body").Call("setAttribute", "data-lupi-ready", "1")
}

// OnDismount cancels a running experiment.
func (p *Papers) OnDismount() { p.job.stop() }

// Render implements app.Composer.
func (p *Papers) Render() app.UI {
	exps := experiment.All()
	return app.Div().Class("papers").Body(
		app.H1().Text("The papers' experiments"),
		app.P().Class("help").Text("Each button runs a browser-sized version (fewer repeats, smaller grids) of a paper's "+
			"experiment in this tab, with the same code as the CLI's `lupi experiment NAME -quick`; the full protocol is "+
			"`lupi experiment NAME`. Our numbers are printed beside the paper's."),
		p.job.view("exp"),
		app.Range(exps).Slice(func(i int) app.UI {
			e := exps[i]
			return app.Section().Class("experiment").ID("exp-"+e.Name).Body(
				app.H2().Text(e.Title),
				app.P().Class("paper").Text(e.Paper),
				app.Button().ID("exp-run-"+e.Name).Class("primary").Text("Run in the browser").
					Disabled(p.job.busy).OnClick(func(ctx app.Context, ev app.Event) { p.run(ctx, e) }),
				app.If(p.errs[e.Name] != "", app.P().ID("exp-"+e.Name+"-error").Class("error").Text(p.errs[e.Name])),
				resultTables(e.Name, p.results[e.Name]),
			)
		}),
	)
}

func (p *Papers) run(ctx app.Context, e *experiment.Experiment) {
	delete(p.errs, e.Name)
	p.running = e.Name
	base := staticBase(ctx)
	p.job.start(ctx, p, "loading data", func(jobCtx context.Context, progress func(model.Progress)) (any, error) {
		if p.fsys == nil {
			fsys, err := fetchDatasets(base)
			if err != nil {
				return nil, err
			}
			p.fsys = fsys
		}
		return e.Run(jobCtx, experiment.Config{Quick: true, Seed: 1, FS: p.fsys, Progress: progress})
	}, func(ctx app.Context, res any, err error) {
		switch {
		case errors.Is(err, context.Canceled):
			p.errs[e.Name] = "Cancelled."
		case err != nil:
			p.errs[e.Name] = err.Error()
		default:
			p.results[e.Name] = res.(*experiment.Result)
		}
	})
}

// fetchDatasets fetches the index and every shipped CSV into an in-memory
// file system (from the service worker's cache when offline).
func fetchDatasets(base string) (fstest.MapFS, error) {
	idxBytes, err := fetch(base+"/web/datasets/"+data.IndexFile, 1<<20)
	if err != nil {
		return nil, err
	}
	idx, err := data.ParseIndex(idxBytes)
	if err != nil {
		return nil, err
	}
	fsys := fstest.MapFS{data.IndexFile: {Data: idxBytes}}
	for _, e := range idx {
		b, err := fetch(base+"/web/datasets/"+e.File, 64<<20)
		if err != nil {
			return nil, err
		}
		fsys[e.File] = &fstest.MapFile{Data: b}
	}
	return fsys, nil
}

func resultTables(name string, r *experiment.Result) app.UI {
	if r == nil {
		return nil
	}
	var ts []app.UI
	for gi, group := range [][]experiment.Table{r.Tables, r.PaperTables} {
		for ti, t := range group {
			t := t
			id := "exp-" + name + "-table"
			if gi == 1 {
				id = "exp-" + name + "-paper"
			}
			if ti > 0 {
				id = ""
			}
			ts = append(ts, app.Table().ID(id).Class("exp-table").Body(
				app.Caption().Text(t.Title),
				app.Tr().Body(app.Range(t.Columns).Slice(func(j int) app.UI { return app.Th().Scope("col").Text(t.Columns[j]) })),
				app.Range(t.Rows).Slice(func(i int) app.UI {
					row := t.Rows[i]
					return app.Tr().Body(app.Range(row).Slice(func(j int) app.UI { return app.Td().Text(row[j]) }))
				}),
			))
			for _, n := range t.Notes {
				ts = append(ts, app.P().Class("help").Text(n))
			}
		}
	}
	return app.Div().Class("exp-results").Body(ts...)
}
