package ui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/run"
)

// Playground is the main view: choose data and a model, train in the tab,
// see the decision surface and the numbers.
type Playground struct {
	app.Compo

	// data
	source    string // "gen:<name>" or "ds:<name>"
	n         int
	noise     float64
	seed      int64
	trainFrac float64
	index     []shippedInfo
	cache     map[string]*data.Dataset

	// model
	modelID string
	values  map[string]model.Values // per model, so switching back keeps settings

	// job
	busy     bool
	progress float64
	stage    string
	cancel   context.CancelFunc
	pending  int // debounce counter

	// result
	out    *run.Outcome
	errMsg string
}

// OnInit sets defaults.
func (p *Playground) OnInit() {
	p.source, p.n, p.noise, p.seed, p.trainFrac = "gen:moons", 200, 0.2, 1, 0.7
	p.modelID = "svm"
	p.values = map[string]model.Values{}
	p.cache = map[string]*data.Dataset{}
}

// OnMount marks the page as live (the pre-rendered HTML looks the same but
// has no handlers; tests and the load-time budget wait for this mark) and
// loads the dataset index in the background.
func (p *Playground) OnMount(ctx app.Context) {
	app.Window().Get("document").Get("body").Call("setAttribute", "data-lupi-ready", "1")
	ctx.Async(func() {
		idx, err := loadIndex(staticBase(ctx))
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				p.errMsg = "Could not load the dataset list: " + err.Error()
				return
			}
			p.index = idx
		})
	})
}

// OnDismount cancels a running job.
func (p *Playground) OnDismount() {
	if p.cancel != nil {
		p.cancel()
	}
}

func staticBase(ctx app.Context) string {
	// "/web/x" resolves to "<base>/web/x" under a sub-path (static export).
	r := ctx.ResolveStaticResource("/web/datasets/index.json")
	return strings.TrimSuffix(r, "/web/datasets/index.json")
}

func (p *Playground) spec() *model.Spec {
	s, err := model.Lookup(p.modelID)
	if err != nil {
		return nil
	}
	return s
}

func (p *Playground) vals() model.Values {
	s := p.spec()
	if s == nil {
		return model.Values{}
	}
	v, ok := p.values[s.ID]
	if !ok {
		v = s.Defaults()
		p.values[s.ID] = v
	}
	return v
}

// Render implements app.Composer.
func (p *Playground) Render() app.UI {
	specs := model.All()
	spec := p.spec()
	return app.Div().Class("playground").Body(
		app.Section().Class("controls").Aria("label", "Controls").Body(
			app.H2().Text("Data"),
			app.Div().Class("param").Body(
				app.Label().For("dataset").Text("Dataset"),
				app.Select().ID("dataset").OnChange(p.onSource).Body(
					app.OptGroup().Label("Synthetic (2-D)").Body(
						app.Range(generators).Slice(func(i int) app.UI {
							g := generators[i]
							return app.Option().Value("gen:" + g.id).Selected(p.source == "gen:"+g.id).Text(g.label)
						}),
					),
					app.If(len(p.index) > 0, app.OptGroup().Label("Real data").Body(
						app.Range(p.index).Slice(func(i int) app.UI {
							d := p.index[i]
							return app.Option().Value("ds:" + d.Name).Selected(p.source == "ds:"+d.Name).Text(d.Title)
						}),
					)),
				),
			),
			app.If(strings.HasPrefix(p.source, "gen:"),
				app.Div().Class("genrow").Body(
					numField("n", "Samples", strconv.Itoa(p.n), 10, 5000, 10, p.onNum(func(v float64) { p.n = int(v) })),
					numField("noise", "Noise", strconv.FormatFloat(p.noise, 'g', -1, 64), 0, 2, 0.05, p.onNum(func(v float64) { p.noise = v })),
					numField("seed", "Seed", strconv.FormatInt(p.seed, 10), 0, 1e9, 1, p.onNum(func(v float64) { p.seed = int64(v) })),
				),
			),
			numField("trainpct", "Train %", strconv.Itoa(int(p.trainFrac*100+0.5)), 10, 90, 5, p.onNum(func(v float64) { p.trainFrac = v / 100 })),
			app.P().Class("about-data").Text(p.sourceAbout()),
			app.H2().Text("Model"),
			app.Div().Class("param").Body(
				app.Label().For("model").Text("Model"),
				app.Select().ID("model").OnChange(p.onModel).Body(
					app.Range(specs).Slice(func(i int) app.UI {
						s := specs[i]
						return app.Option().Value(s.ID).Selected(s.ID == p.modelID).Text(s.Name)
					}),
				),
			),
			p.modelPanel(spec),
			app.Div().Class("actions").Body(
				app.Button().ID("train").Class("primary").Text("Train").Disabled(p.busy).OnClick(p.onTrain),
				app.If(p.busy, app.Button().ID("cancel").Text("Cancel").OnClick(p.onCancel)),
			),
			app.If(p.busy, app.Div().Class("progress").Body(
				app.Progress().ID("progress").Max(1).Value(p.progress).Aria("label", "Training progress"),
				app.Span().Class("stage").Text(p.stage),
			)),
		),
		app.Section().Class("results").Aria("label", "Results").Body(
			app.If(p.errMsg != "", app.P().ID("error").Class("error").Aria("live", "polite").Text(p.errMsg)),
			&Plot{Out: p.out},
			p.renderMetrics(),
		),
	)
}

func (p *Playground) modelPanel(spec *model.Spec) app.UI {
	if spec == nil {
		return app.P().Class("error").Text("No model is registered.")
	}
	return app.Div().Body(
		app.P().Class("paper").Text(spec.Paper+" — "+spec.Equations),
		app.If(spec.About != "", app.P().Class("help").Text(spec.About)),
		paramForm(spec, p.vals(), p.onParam),
	)
}

func numField(id, label, val string, min, max, step float64, on func(app.Context, app.Event)) app.UI {
	return app.Div().Class("param small").Body(
		app.Label().For(id).Text(label),
		app.Input().Type("number").ID(id).Class("num").Value(val).Min(min).Max(max).Step(step).OnChange(on),
	)
}

func (p *Playground) sourceAbout() string {
	if g, ok := strings.CutPrefix(p.source, "gen:"); ok {
		for _, x := range generators {
			if x.id == g {
				return x.about
			}
		}
	}
	if d, ok := strings.CutPrefix(p.source, "ds:"); ok {
		for _, x := range p.index {
			if x.Name == d {
				return fmt.Sprintf("%s (%d rows, %d features, %d-feature second block.) Source: %s. Licence: %s.",
					x.Description, x.Rows, x.XColumns, x.ZColumns, x.Source, x.Licence)
			}
		}
	}
	return ""
}

func (p *Playground) onNum(set func(float64)) func(app.Context, app.Event) {
	return func(ctx app.Context, e app.Event) {
		v, err := strconv.ParseFloat(ctx.JSSrc().Get("value").String(), 64)
		if err != nil {
			p.errMsg = "Not a number: " + ctx.JSSrc().Get("value").String()
			return
		}
		set(v)
		p.scheduleTrain(ctx)
	}
}

func (p *Playground) onSource(ctx app.Context, e app.Event) {
	p.source = ctx.JSSrc().Get("value").String()
	p.scheduleTrain(ctx)
}

func (p *Playground) onModel(ctx app.Context, e app.Event) {
	p.modelID = ctx.JSSrc().Get("value").String()
	p.scheduleTrain(ctx)
}

func (p *Playground) onParam(ctx app.Context, name, value string) {
	v := p.vals()
	v[name] = value
	p.scheduleTrain(ctx)
}

// scheduleTrain retrains after a short pause, so dragging a slider or
// typing does not start a fit per keystroke, and keeps the current plot.
func (p *Playground) scheduleTrain(ctx app.Context) {
	p.pending++
	mine := p.pending
	ctx.After(350*time.Millisecond, func(ctx app.Context) {
		if mine == p.pending {
			p.train(ctx)
		}
	})
}

func (p *Playground) onTrain(ctx app.Context, e app.Event) { p.train(ctx) }

func (p *Playground) onCancel(ctx app.Context, e app.Event) {
	if p.cancel != nil {
		p.cancel()
	}
}

// dataset returns the chosen dataset (generated, or fetched once and cached).
func (p *Playground) dataset(ctx app.Context) (*data.Dataset, error) {
	if g, ok := strings.CutPrefix(p.source, "gen:"); ok {
		return data.GenerateByName(g, p.n, p.noise, p.seed)
	}
	name := strings.TrimPrefix(p.source, "ds:")
	if ds, ok := p.cache[name]; ok {
		return ds, nil
	}
	for _, info := range p.index {
		if info.Name == name {
			ds, err := loadShipped(staticBase(ctx), info)
			if err != nil {
				return nil, err
			}
			p.cache[name] = ds
			return ds, nil
		}
	}
	return nil, fmt.Errorf("unknown dataset %q", name)
}

func (p *Playground) train(ctx app.Context) {
	if p.cancel != nil {
		p.cancel()
	}
	jobCtx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	p.busy, p.progress, p.stage, p.errMsg = true, 0, "preparing", ""
	seed, frac, modelID := p.seed, p.trainFrac, p.modelID
	params := p.vals().Clone()
	ctx.Async(func() {
		ds, err := p.dataset(ctx)
		var out *run.Outcome
		if err == nil {
			last := time.Now()
			progress := func(pr model.Progress) {
				if time.Since(last) < 15*time.Millisecond {
					return
				}
				last = time.Now()
				ctx.Dispatch(func(ctx app.Context) {
					if jobCtx.Err() == nil {
						p.progress, p.stage = pr.Fraction, pr.Stage
					}
				})
				// Go's wasm is single-threaded: sleeping hands the event
				// loop back to the browser so the page stays responsive.
				time.Sleep(time.Millisecond)
			}
			out, err = run.Do(jobCtx, run.Config{Dataset: ds, TrainFrac: frac, Seed: seed, Scale: "standard",
				Model: modelID, Params: params, GridSize: 200}, progress)
		}
		ctx.Dispatch(func(ctx app.Context) {
			if p.cancel != nil && jobCtx.Err() != nil && err == nil {
				return // superseded by a newer job
			}
			p.busy = false
			cancel()
			switch {
			case errors.Is(err, context.Canceled):
				p.errMsg = "Training cancelled."
			case err != nil:
				p.errMsg = err.Error()
			default:
				p.out = out
			}
		})
	})
}

func (p *Playground) renderMetrics() app.UI {
	o := p.out
	if o == nil {
		return app.P().Class("hint").Text("Press Train to fit the model in your browser.")
	}
	r := o.Report
	conv := "yes"
	if !r.Converged {
		conv = "no"
	}
	rows := [][2]string{
		{"Model", o.Spec.Name},
		{"Train accuracy", pct(o.TrainAcc)},
		{"Test accuracy", pct(o.TestAcc)},
		{"Support vectors", strconv.Itoa(r.NSupport)},
		{"Training time", fmt.Sprintf("%.3f s", o.FitSeconds)},
		{"Converged", conv},
		{"Iterations", strconv.Itoa(r.Iterations)},
		{"Objective", strconv.FormatFloat(r.Objective, 'g', 8, 64)},
	}
	if lml, ok := r.Extras["log_marginal_likelihood"]; ok {
		rows = append(rows, [2]string{"log marginal likelihood", strconv.FormatFloat(lml, 'g', 8, 64)})
	}
	ids := []string{"m-model", "m-train-acc", "m-test-acc", "m-nsv", "m-time", "m-converged", "m-iter", "m-obj", "m-lml"}
	return app.Div().Class("metrics").Body(
		app.Table().ID("metrics").Body(
			app.Range(rows).Slice(func(i int) app.UI {
				return app.Tr().Body(app.Th().Scope("row").Text(rows[i][0]), app.Td().ID(ids[i]).Text(rows[i][1]))
			}),
		),
		app.If(len(r.Warnings) > 0, app.Ul().Class("warnings").Body(
			app.Range(r.Warnings).Slice(func(i int) app.UI { return app.Li().Text(r.Warnings[i]) }),
		)),
		confusionTable(o),
	)
}

func confusionTable(o *run.Outcome) app.UI {
	if o.Confusion == nil {
		return nil
	}
	cls := o.Train.Classes
	return app.Table().Class("confusion").Body(
		app.Caption().Text("Test confusion matrix (rows: true class, columns: predicted)"),
		app.Tr().Body(
			app.Th().Text(""),
			app.Range(cls).Slice(func(j int) app.UI { return app.Th().Scope("col").Text(cls[j]) }),
		),
		app.Range(o.Confusion).Slice(func(i int) app.UI {
			return app.Tr().Body(
				app.Th().Scope("row").Text(cls[i]),
				app.Range(o.Confusion[i]).Slice(func(j int) app.UI {
					return app.Td().Text(strconv.Itoa(o.Confusion[i][j]))
				}),
			)
		}),
	)
}

func pct(x float64) string { return fmt.Sprintf("%.1f %%", 100*x) }
