package ui

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/run"
)

// Playground is the main view: choose data and a model, train in the tab,
// see the decision surface and the numbers; compare models on one split;
// tune two parameters by cross-validation.
type Playground struct {
	app.Compo

	// data
	source    string // "gen:<name>", "ds:<name>" or "up:<file name>"
	n         int
	noise     float64
	seed      int64
	trainFrac float64
	index     []shippedInfo
	cache     map[string]*data.Dataset
	uploaded  *data.Dataset

	// model
	modelID string
	values  map[string]model.Values // per model, so switching back keeps settings

	view    string // "model", "compare" or "tune"
	pending int    // debounce counter
	ready   bool   // mounted: changes retrain
	tag     int    // selected tag (multi-label views)

	train   job
	out     *run.Outcome
	errMsg  string
	cmp     compareState
	tune    tuneState
	message string // non-error notices (e.g. restored session)
}

// OnInit sets defaults.
func (p *Playground) OnInit() {
	p.source, p.n, p.noise, p.seed, p.trainFrac = "gen:moons", 200, 0.2, 1, 0.7
	p.modelID, p.view = "svm", "model"
	p.values = map[string]model.Values{}
	p.cache = map[string]*data.Dataset{}
	p.cmp.selected = map[string]bool{"svm": true, "l2svm": true}
}

// OnNav restores the state from the URL (a shared link) or, without one, from
// the last session in local storage.
func (p *Playground) OnNav(ctx app.Context) {
	if !p.decodeState(ctx.Page().URL().Query()) {
		var saved string
		ctx.LocalStorage().Get(sessionKey, &saved)
		if q, err := url.ParseQuery(saved); err == nil && p.decodeState(q) {
			p.message = "Restored your last session."
		}
	}
	if strings.HasPrefix(p.source, "up:") {
		p.restoreUpload(ctx)
	}
}

// OnMount marks the page as live (the pre-rendered HTML looks the same but
// has no handlers; tests and the load-time budget wait for this mark), loads
// the dataset index and trains once so that a link shows its result.
func (p *Playground) OnMount(ctx app.Context) {
	app.Window().Get("document").Get("body").Call("setAttribute", "data-lupi-ready", "1")
	installDebugHooks()
	p.ready = true
	ctx.Async(func() {
		idx, err := loadIndex(staticBase(ctx))
		ctx.Dispatch(func(ctx app.Context) {
			if err != nil {
				p.errMsg = "Could not load the dataset list: " + err.Error()
				return
			}
			p.index = idx
			if strings.HasPrefix(p.source, "ds:") || ctx.Page().URL().Query().Get("data") != "" {
				p.startTrain(ctx)
			}
		})
	})
}

// OnDismount cancels running jobs.
func (p *Playground) OnDismount() {
	p.train.stop()
	p.cmp.job.stop()
	p.tune.job.stop()
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
	return app.Div().Class("playground").Body(
		app.Section().Class("controls").Aria("label", "Controls").Body(
			p.dataPanel(),
			p.modelPanel(),
		),
		app.Section().Class("results").Aria("label", "Results").Body(
			app.Div().Class("subtabs").Aria("role", "tablist").Body(
				p.subtab("model", "Model"),
				p.subtab("compare", "Compare"),
				p.subtab("tune", "Tune (CV grid)"),
			),
			app.If(p.message != "", app.P().Class("notice").Text(p.message)),
			app.If(p.errMsg != "", app.P().ID("error").Class("error").Aria("live", "polite").Text(p.errMsg)),
			p.resultView(),
		),
	)
}

func (p *Playground) subtab(id, label string) app.UI {
	return app.Button().ID("view-"+id).Class("subtab").Aria("role", "tab").Aria("selected", strconv.FormatBool(p.view == id)).
		Text(label).OnClick(func(ctx app.Context, e app.Event) {
		p.view = id
		p.saveState(ctx)
	})
}

func (p *Playground) resultView() app.UI {
	switch p.view {
	case "compare":
		return p.compareView()
	case "tune":
		return p.tuneView()
	}
	return app.Div().Body(
		&Plot{Out: p.out, Tag: p.tag},
		p.tagSelector(),
		p.renderMetrics(),
		p.exportBar(),
	)
}

func (p *Playground) dataPanel() app.UI {
	return app.Div().Body(
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
				app.If(p.uploaded != nil, app.OptGroup().Label("Your data").Body(
					app.Option().Value(p.uploadSource()).Selected(strings.HasPrefix(p.source, "up:")).Text(p.uploadName()),
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
		app.If(!strings.HasPrefix(p.source, "gen:"),
			numField("seed", "Split seed", strconv.FormatInt(p.seed, 10), 0, 1e9, 1, p.onNum(func(v float64) { p.seed = int64(v) })),
		),
		numField("trainpct", "Train %", strconv.Itoa(int(p.trainFrac*100+0.5)), 10, 90, 5, p.onNum(func(v float64) { p.trainFrac = v / 100 })),
		app.P().ID("about-data").Class("about-data").Text(p.sourceAbout()),
		p.uploadPanel(),
	)
}

func (p *Playground) modelPanel() app.UI {
	spec := p.spec()
	groups := map[model.Family][]*model.Spec{}
	for _, s := range model.All() {
		groups[s.Family] = append(groups[s.Family], s)
	}
	var opts []app.UI
	for _, f := range families {
		ss := groups[f.id]
		if len(ss) == 0 {
			continue
		}
		opts = append(opts, app.OptGroup().Label(f.label).Body(
			app.Range(ss).Slice(func(i int) app.UI {
				s := ss[i]
				return app.Option().Value(s.ID).Selected(s.ID == p.modelID).Text(s.Name)
			}),
		))
	}
	var body []app.UI
	body = append(body,
		app.H2().Text("Model"),
		app.Div().Class("param").Body(
			app.Label().For("model").Text("Model"),
			app.Select().ID("model").OnChange(p.onModel).Body(opts...),
		),
	)
	if spec == nil {
		return app.Div().Body(append(body, app.P().Class("error").Text("No model is registered."))...)
	}
	basic, advanced := splitParams(spec)
	body = append(body,
		app.P().Class("paper").Text(spec.Paper+" — "+spec.Equations),
		app.Div().Class("actions").Body(
			app.Button().ID("train").Class("primary").Text("Train").Disabled(p.train.busy).OnClick(p.onTrain),
		),
		p.train.view("train"),
		paramForm(spec, basic, p.vals(), p.onParam),
		app.If(len(advanced) > 0, app.Details().Class("advanced").Body(
			app.Summary().Text("Advanced settings"),
			paramForm(spec, advanced, p.vals(), p.onParam),
		)),
		app.If(spec.About != "", app.P().Class("help").Text(spec.About)),
	)
	return app.Div().Body(body...)
}

var families = []struct {
	id    model.Family
	label string
}{
	{model.FamilySVM, "SVM and SVM+ (paper 000)"},
	{model.FamilyGP, "Gaussian processes (paper 002)"},
	{model.FamilyTwin, "Twin SVMs (paper 001)"},
	{model.FamilyMultiView, "Multi-view (paper 001)"},
	{model.FamilyTags, "Multi-label (paper 003)"},
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
				z := ""
				if x.ZColumns > 0 {
					z = fmt.Sprintf(", %d second-block features", x.ZColumns)
				}
				return fmt.Sprintf("%s (%d rows, %d features%s.) Source: %s. Licence: %s.",
					x.Description, x.Rows, x.XColumns, z, x.Source, x.Licence)
			}
		}
	}
	if p.uploaded != nil && strings.HasPrefix(p.source, "up:") {
		s := data.Describe(p.uploaded)
		return fmt.Sprintf("Your file %s: %d rows, %d main features, %d second-block features. It stays in this browser.",
			p.uploadName(), s.Rows, s.XColumns, s.ZColumns)
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
		p.changed(ctx)
	}
}

func (p *Playground) onSource(ctx app.Context, e app.Event) {
	p.source = ctx.JSSrc().Get("value").String()
	p.tag = 0
	p.changed(ctx)
}

func (p *Playground) onModel(ctx app.Context, e app.Event) {
	p.modelID = ctx.JSSrc().Get("value").String()
	// Pick data that suits the model when the current data cannot serve it.
	if spec := p.spec(); spec != nil {
		if ds, err := p.peekDataset(); err == nil && run.Compatible(spec, ds) != nil && strings.HasPrefix(p.source, "gen:") {
			p.source = "gen:" + run.DefaultGenerator(spec)
			p.message = "Switched to the " + run.DefaultGenerator(spec) + " data, which " + spec.Name + " can use."
		}
	}
	p.changed(ctx)
}

func (p *Playground) onParam(ctx app.Context, name, value string) {
	v := p.vals()
	v[name] = value
	p.changed(ctx)
}

// changed records the state (URL + local storage) and retrains after a
// short pause, so dragging a slider or typing does not start a fit per
// keystroke; the current plot stays until the new one is ready.
func (p *Playground) changed(ctx app.Context) {
	p.saveState(ctx)
	if !p.ready || p.view != "model" {
		return
	}
	p.pending++
	mine := p.pending
	ctx.After(350*time.Millisecond, func(ctx app.Context) {
		if mine == p.pending {
			p.startTrain(ctx)
		}
	})
}

func (p *Playground) saveState(ctx app.Context) {
	q := p.encodeState()
	u := *ctx.Page().URL()
	all := u.Query()
	tab := all.Get("tab")
	if tab != "" {
		q.Set("tab", tab)
	}
	u.RawQuery = q.Encode()
	ctx.Page().ReplaceURL(&u)
	ctx.LocalStorage().Set(sessionKey, q.Encode())
}

func (p *Playground) onTrain(ctx app.Context, e app.Event) {
	p.saveState(ctx)
	p.startTrain(ctx)
}

// peekDataset returns the current dataset if it is at hand without
// fetching (generated, cached or uploaded).
func (p *Playground) peekDataset() (*data.Dataset, error) {
	if g, ok := strings.CutPrefix(p.source, "gen:"); ok {
		return data.GenerateByName(g, p.n, p.noise, p.seed)
	}
	if strings.HasPrefix(p.source, "up:") {
		if p.uploaded == nil {
			return nil, errors.New("this link refers to a file uploaded in another browser: upload it here to reproduce the result")
		}
		return p.uploaded, nil
	}
	if ds, ok := p.cache[strings.TrimPrefix(p.source, "ds:")]; ok {
		return ds, nil
	}
	return nil, errors.New("not loaded")
}

// dataset returns the chosen dataset (generated, uploaded, or fetched once and cached).
func (p *Playground) dataset(ctx app.Context) (*data.Dataset, error) {
	if ds, err := p.peekDataset(); err == nil || !strings.HasPrefix(p.source, "ds:") {
		return ds, err
	}
	name := strings.TrimPrefix(p.source, "ds:")
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

func (p *Playground) runConfig(ds *data.Dataset) run.Config {
	return run.Config{Dataset: ds, TrainFrac: p.trainFrac, Seed: p.seed, Scale: "standard",
		Model: p.modelID, Params: p.vals().Clone(), GridSize: 200}
}

// adaptWidths sets RBF widths still at their default (1) to 1/d for data
// with d ≠ 2 features (LIBSVM's default γ = 1/d): γ = 1 on 64 standardised
// pixels makes every kernel value vanish. It reports what it changed.
func adaptWidths(spec *model.Spec, v model.Values, ds *data.Dataset) (model.Values, string) {
	var notes []string
	for _, w := range []struct {
		name string
		dim  int
	}{{"gamma", ds.Dim()}, {"zgamma", ds.ZDim()}} {
		par := spec.Param(w.name)
		if par == nil || w.dim <= 2 || v[w.name] != par.Default || par.Default != "1" {
			continue
		}
		g := strconv.FormatFloat(roundSig(1/float64(w.dim)), 'g', -1, 64)
		if par.Validate(g) != nil {
			continue
		}
		v[w.name] = g
		notes = append(notes, fmt.Sprintf("%s = 1/%d", w.name, w.dim))
	}
	if len(notes) == 0 {
		return v, ""
	}
	return v, "Kernel width set for this data's dimension: " + strings.Join(notes, ", ") + " (LIBSVM's default)."
}

func (p *Playground) startTrain(ctx app.Context) {
	p.errMsg = ""
	id := p.modelID
	var adapted model.Values
	var note string
	p.train.start(ctx, p, "preparing", func(jobCtx context.Context, progress func(model.Progress)) (any, error) {
		ds, err := p.dataset(ctx)
		if err != nil {
			return nil, err
		}
		cfg := p.runConfig(ds)
		if spec := p.spec(); spec != nil {
			cfg.Params, note = adaptWidths(spec, cfg.Params, ds)
			adapted = cfg.Params
		}
		return run.Do(jobCtx, cfg, progress)
	}, func(ctx app.Context, res any, err error) {
		if note != "" && p.modelID == id {
			p.values[id] = adapted
			p.message = note
			p.saveState(ctx)
		}
		switch {
		case errors.Is(err, context.Canceled):
			p.errMsg = "Training cancelled."
		case err != nil:
			p.errMsg = err.Error()
		default:
			p.out = res.(*run.Outcome)
			if p.tag >= p.out.Train.NumTags() {
				p.tag = 0
			}
		}
	})
}

func (p *Playground) tagSelector() app.UI {
	o := p.out
	if o == nil || o.Train.NumTags() == 0 {
		return nil
	}
	names := o.Train.TagNames
	return app.Div().Class("param inline").Body(
		app.Label().For("tag").Text("Tag shown"),
		app.Select().ID("tag").OnChange(func(ctx app.Context, e app.Event) {
			if t, err := strconv.Atoi(ctx.JSSrc().Get("value").String()); err == nil {
				p.tag = t
			}
		}).Body(
			app.Range(names).Slice(func(i int) app.UI {
				return app.Option().Value(strconv.Itoa(i)).Selected(i == p.tag).Text(names[i])
			}),
		),
	)
}

func pct(x float64) string { return fmt.Sprintf("%.1f %%", 100*x) }
