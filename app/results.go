package app

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/spec"
	"lupilab/models/wire"
)

// ResultView shows the playground's result: a status line (progress with an
// estimate of the time left and Cancel, or why the result is out of date),
// the figures, the numbers and the exports.
type ResultView struct {
	app.Compo
	S *session
	// Compact is set in the tours: no exports.
	Compact bool
}

// OnMount registers the view.
func (r *ResultView) OnMount(ctx app.Context) { r.S.register(r) }

// OnDismount unregisters it.
func (r *ResultView) OnDismount() { r.S.unregister(r) }

// Render implements app.Composer.
func (r *ResultView) Render() app.UI {
	s := r.S
	sh, fitted := s.figureSource()
	var figs []app.UI
	figs = append(figs, &Figure{S: s, View: "A", Key: figureKey(s, "A"), Stale: s.stale()})
	if sh != nil && sh.res.Plot.TrainB != nil {
		figs = append(figs, &Figure{S: s, View: "B", Key: figureKey(s, "B"), Stale: s.stale()})
	}
	// data-state says what the result on screen is, for people's
	// stylesheets and the browser tests: "busy" (a fit runs), "stale" (the
	// settings changed since), "error", "fresh" or "empty".
	state := "empty"
	switch {
	case s.busy():
		state = "busy"
	case s.errorFor() != "":
		state = "error"
	case s.stale():
		state = "stale"
	case s.shown != nil:
		state = "fresh"
	}
	// Every child is always there (possibly empty): go-app matches children
	// by position, so a child that comes and goes would re-create the ones
	// after it.
	// data-touch says what one finger does on the plot: "scroll" the page
	// (the plot takes two), or "drag" a point or the difficulty brush
	// (the stylesheet's touch-action follows it).
	touch := "scroll"
	if s.in.init(); dragTool(s.in.tool) && s.editable() {
		touch = "drag"
	}
	// The status line, the map's controls and the figures are one block
	// (resultfig): on a phone the model's main settings come right under
	// it, before the numbers (the playground's stylesheet).
	return app.Div().ID("result").Class("resultview").DataSet("state", state).DataSet("touch", touch).Body(
		app.Div().ID("resultfig").Class("resultfig").Body(
			app.Div().Class("status-slot").Body(&Status{S: s}),
			app.Div().Class("mapcontrols-wrap").Body(r.controls(sh, fitted), r.tools(sh)),
			app.Div().Class("plots").Body(figs...),
		),
		&Metrics{S: s},
		app.If(!r.Compact, &ExportBar{S: s}),
	)
}

// Status is the line above the plot: how far the compute engine's loading
// is (before the first fit can start), a fit's progress with the time left
// and Cancel, the last fit's error, or why the result is out of date. It
// is the only part redrawn on progress messages.
type Status struct {
	app.Compo
	S *session

	stopLoad func()
}

func (st *Status) showsProgress() {}

// OnMount registers the line and follows the compute engine's loading.
func (st *Status) OnMount(ctx app.Context) {
	st.S.register(st)
	if !st.S.computeReady {
		st.stopLoad = OnComputeLoading(ctx, func(ctx app.Context) { st.S.refreshProgress() })
	}
}

// OnDismount unregisters it.
func (st *Status) OnDismount() {
	st.S.unregister(st)
	if st.stopLoad != nil {
		st.stopLoad()
		st.stopLoad = nil
	}
}

// loadStatus says how far the compute engine's loading is: the bar's
// fraction (−1: indeterminate) and the text. The interface's own loading
// (app.wasm) was go-app's loader's; this is the second half of a first
// visit, which that loader's "100 %" did not cover.
func loadStatus(l ComputeLoad) (frac float64, text string) {
	const mb = 1 << 20
	switch l.Phase {
	case "fetching":
		if l.Total > 0 {
			f := math.Min(1, l.Loaded/l.Total)
			return f, fmt.Sprintf("Loading the compute engine… %d %%", int(math.Floor(f*100)))
		}
		return -1, fmt.Sprintf("Loading the compute engine… %.1f MB", l.Loaded/mb)
	case "starting", "ready":
		return -1, "Starting the compute engine…"
	}
	return -1, "Loading the compute engine…"
}

// engineLoadUI is the compute engine's loading bar and line (ids
// compute-progress and compute-stage), for the playground's status line and
// the pages that wait for the engine elsewhere (EngineLoad).
func engineLoadUI() []app.UI {
	frac, text := loadStatus(ComputeLoading())
	bar := app.Progress().ID("compute-progress").Max(1).Aria("label", "Loading the compute engine")
	if frac >= 0 {
		bar = bar.Value(frac)
	}
	return []app.UI{bar, app.Span().ID("compute-stage").Class("stage").Text(text)}
}

// EngineLoad shows how far the compute engine's loading is (engineLoadUI),
// or why it failed, on a page that waits for the engine outside the
// playground's status line (the Papers tab).
type EngineLoad struct {
	app.Compo
	stop func()
}

// OnMount follows the loading.
func (e *EngineLoad) OnMount(ctx app.Context) {
	e.stop = OnComputeLoading(ctx, func(app.Context) { e.Update() })
}

// OnDismount stops following it.
func (e *EngineLoad) OnDismount() {
	if e.stop != nil {
		e.stop()
		e.stop = nil
	}
}

// Render implements app.Composer.
func (e *EngineLoad) Render() app.UI {
	if why := ComputeFailed(); why != "" {
		return app.P().ID("compute-error").Class("error").Text("The compute engine could not load: " + why)
	}
	return app.Div().Class("status").Body(engineLoadUI()...)
}

// Render implements app.Composer.
func (st *Status) Render() app.UI {
	s := st.S
	var body []app.UI
	switch {
	case !s.computeReady && s.computeErr == "" && ComputeFailed() != "":
		body = append(body, app.P().ID("compute-error").Class("error").Text("The compute engine could not load: "+ComputeFailed()))
	case !s.computeReady && s.computeErr == "":
		body = append(body, engineLoadUI()...)
	case s.busy():
		watched := s.watching || len(s.fit.trace) > 0
		frac, text := fitStatus(s.fit.progress, s.fit.est, time.Since(s.fit.started).Seconds(), watched)
		bar := app.Progress().ID("train-progress").Max(1).Aria("label", "Progress of the fit")
		if frac >= 0 {
			bar = bar.Value(frac)
		}
		body = append(body,
			bar,
			app.Span().ID("train-stage").Class("stage").Title(text).Text(text),
			app.Button().ID("train-cancel").Text("Cancel").OnClick(func(ctx app.Context, e app.Event) { s.cancelFit(); s.refresh() }),
		)
		// settings changed while it runs, and no fit of the new ones follows
		// (a fit that would wait for a click): say so now, not at its end
		if s.fit.next == nil && s.fit.key != s.set.FitKey() {
			body = append(body, app.Span().ID("train-outdated").Class("stale-note").Text(
				"The settings changed since this fit started: its result will be out of date (Cancel, then Train, to fit the new ones)."))
		}
		if watched {
			body = append(body, s.watchControls())
		}
		if len(s.fit.trace) > 0 {
			body = append(body, traceChart("trace", s.fit.trace, true, false))
		}
	case s.errorFor() != "":
		body = append(body, app.P().ID("error").Class("error").Aria("live", "polite").Text(s.errorFor()))
	}
	if !s.busy() && s.errorFor() == "" && s.shown != nil && len(s.shown.trace) > 0 && !s.stale() {
		body = append(body, traceChart("trace", s.shown.trace, false, s.shown.skipped))
	}
	if s.stale() && !s.busy() {
		why := "The settings changed since this result was computed."
		if sh := s.shown; sh != nil && sh.set.DataKey() != s.set.DataKey() {
			why = "The data changed since this result was computed."
		}
		if !s.autoTrain() {
			why += " Press Train to update it."
		}
		body = append(body, app.P().ID("stale").Class("stale-note").Text(why))
	}
	return app.Div().ID("status").Class("status").Aria("live", "polite").Body(body...)
}

// The stages a fit reports once its model is trained (models/run: the
// training and test points are predicted and scored; models/compute: the
// decision is mapped).
const (
	stageStarting   = "starting" // the page's own, until the worker reports
	stageWaiting    = "waiting for the compute engine"
	stagePredicting = "predicting"
	stageMapping    = "mapping the decision"
)

// fitStatus is what the status line says of a running fit: the bar's
// fraction (−1: indeterminate) and the text, from the fit's last progress
// p, the cost model's estimate of its training (est.Seconds 0: none; an
// upper bound when est.UpTo), the seconds since it started and whether it
// is watched. Solvers tell their progress poorly (SMO and EP cannot say
// how far they are; type-II ML's steps differ in cost): while the model
// trains, the time spent against the estimate carries the bar and the time
// left, the solver's own fraction (and its pace for the time left) only
// when ahead. The estimate is of the training alone: once the model is
// trained, the scoring of the points and the map are said for what they
// are, with no percentage and no time left (nothing predicts them), and a
// watched fit, slowed down to be seen, is not held to it either.
func fitStatus(p wire.Progress, e estimate, elapsed float64, watched bool) (frac float64, text string) {
	est := e.Seconds
	so := ""
	if elapsed >= 1 {
		so = " · " + duration(elapsed) + " so far"
	}
	switch p.Stage {
	case stagePredicting:
		return -1, "Trained; scoring the training and test points…" + so
	case stageMapping:
		return -1, "Trained and scored; drawing the decision map…" + so
	}
	frac = p.Fraction
	text = p.Stage
	if p.Message != "" {
		text += " — " + p.Message
	}
	left := etaAfter(p, elapsed)
	// the solver's own pace, when it tells one and is ahead of the
	// estimate (a fit of ten models on its last), says the time left
	ahead := left != "" && p.Fraction > elapsed/est
	if est > 0 && !watched && !ahead {
		frac = math.Max(frac, math.Min(0.95, elapsed/est))
		switch rest := est - elapsed; {
		case rest > 1 && e.UpTo:
			left = " · up to " + duration(rest) + " left (estimated)"
		case rest > 1:
			left = " · about " + duration(rest) + " left (estimated)"
		case rest < -1 && e.UpTo:
			left = " · taking longer than the " + duration(est) + " estimated at most"
		case rest < -1:
			left = " · taking longer than the " + duration(est) + " estimated"
		default:
			left = ""
		}
	}
	if watched {
		left = ""
	}
	return frac, text + left
}

// eta estimates the time left from the fraction done and the time spent.
func eta(p wire.Progress, started time.Time) string {
	return etaAfter(p, time.Since(started).Seconds())
}

// etaAfter is eta after elapsed seconds.
func etaAfter(p wire.Progress, elapsed float64) string {
	if p.Fraction <= 0.02 || p.Fraction >= 1 || elapsed < 1 {
		return ""
	}
	left := elapsed * (1 - p.Fraction) / p.Fraction
	return fmt.Sprintf(" · about %s left", duration(left))
}

// duration says a time span in words.
func duration(sec float64) string {
	switch {
	case sec < 1:
		return fmt.Sprintf("%.0f ms", sec*1000)
	case sec < 90:
		return fmt.Sprintf("%.0f s", math.Ceil(sec))
	case sec < 3600:
		return fmt.Sprintf("%.0f min", math.Ceil(sec/60))
	}
	return fmt.Sprintf("%.1f h", sec/3600)
}

// tools is the canvas palette: look (hover, zoom, pan), add points of a
// class, move, erase, paint difficulty; undo, redo, reset the view.
func (r *ResultView) tools(sh *shown) app.UI {
	s := r.S
	if sh == nil || sh.res.Plot.Projected {
		return nil
	}
	s.in.init()
	in := &s.in
	type tool struct{ id, label, help string }
	tools := []tool{{toolLook, "Look", "Hover or tap a point to read it; wheel or pinch to zoom, drag to pan (two fingers on a touch screen: one scrolls the page)"}}
	editable := s.editable()
	if editable {
		classes := sh.res.Data.Classes
		if len(classes) == 0 {
			tools = append(tools, tool{toolAdd + ":0", "Add point", "Click to add a point; its tags come from the regions it falls in"})
		}
		for k, c := range classes {
			tools = append(tools, tool{fmt.Sprintf("%s:%d", toolAdd, k), "Add " + c, "Click to add a point of class " + c})
		}
		tools = append(tools, tool{toolMove, "Move", "Drag a point"}, tool{toolErase, "Erase", "Click a point to remove it"})
		if strings.HasPrefix(s.set.Source, "gen:lupi2d") {
			tools = append(tools, tool{toolHard, "Difficulty brush", "Paint over points: sets how hard their privileged features say they are"})
		}
	}
	cur := in.tool
	if cur == toolAdd {
		cur = fmt.Sprintf("%s:%d", toolAdd, in.addClass)
	}
	zoomed := in.zoom["A"] != nil || in.zoom["B"] != nil
	var note string
	switch {
	case !editable:
		note = "Editing points needs generated 2-D data."
	case strings.HasPrefix(s.set.Source, "gen:twoview2d"):
		note = "Edit in view A: an edited point's view B is the polar map of the latent point its view A position comes from (noise-free), so it moves in both views."
	case strings.HasPrefix(s.set.Source, "gen:lupi2d"):
		note = "An edited point's privileged features are the point itself (its clean latent position) and the difficulty you paint."
	}
	return app.Div().Class("toolbar").Body(
		app.Div().Class("tools").Role("radiogroup").Aria("label", "Canvas tool").Body(
			app.Range(tools).Slice(func(i int) app.UI {
				t := tools[i]
				id := "tool-" + strings.ReplaceAll(t.id, ":", "-")
				return app.Label().Class("tool").For(id).Title(t.help).Body(
					app.Input().Type("radio").Name("tool").ID(id).Value(t.id).Checked(cur == t.id).
						OnChange(func(ctx app.Context, e app.Event) {
							v := ctx.JSSrc().Get("value").String()
							in.tool = v
							if name, k, ok := strings.Cut(v, ":"); ok {
								in.tool = name
								in.addClass, _ = strconv.Atoi(k)
							}
							s.refresh()
						}),
					app.Text(" "+t.label),
				)
			}),
		),
		app.If(in.tool == toolHard, app.Label().Class("tool").For("hard-value").Body(
			app.Text("easy "),
			app.Input().Type("range").ID("hard-value").Min(0).Max(1).Step(0.05).Value(strconv.FormatFloat(in.hardValue, 'f', 2, 64)).
				OnInput(func(ctx app.Context, e app.Event) {
					if v, err := strconv.ParseFloat(ctx.JSSrc().Get("value").String(), 64); err == nil {
						in.hardValue = v
					}
				}),
			app.Text(" hard"),
		)),
		app.Div().Class("tools").Body(
			app.If(editable, app.Button().ID("undo").Text("Undo").Disabled(len(s.set.Edits) == 0).OnClick(func(ctx app.Context, e app.Event) { s.undo(ctx) })),
			app.If(editable, app.Button().ID("redo").Text("Redo").Disabled(!s.canRedo()).OnClick(func(ctx app.Context, e app.Event) { s.redoEdit(ctx) })),
			app.If(editable, app.Button().ID("reset-data").Text("Reset to generated").Disabled(len(s.set.Edits) == 0).OnClick(func(ctx app.Context, e app.Event) {
				s.set.Edits, in.redo = nil, nil
				s.changed(ctx)
			})),
			app.Button().ID("reset-view").Text("Reset view").Disabled(!zoomed).OnClick(func(ctx app.Context, e app.Event) {
				s.resetZoom()
				s.refresh()
			}),
		),
		app.If(note != "", app.P().Class("help tool-note").Text(note)),
	)
}

// controls picks what the map shows: a tag of a multi-label model, or the
// layer of a GP (probability, latent mean, uncertainty).
func (r *ResultView) controls(sh *shown, fitted bool) app.UI {
	s := r.S
	_, maps, _ := s.figureSources()
	if sh == nil || maps == nil {
		return nil
	}
	if maps.res != nil { // (a watched fit's iterate has a map, not a result)
		sh = maps
	}
	var ui []app.UI
	if tags := sh.res.Data.Tags; len(tags) > 0 {
		ui = append(ui, app.Div().Class("param inline").Body(
			app.Label().For("tag").Text("Tag shown"),
			app.Select().ID("tag").OnChange(func(ctx app.Context, e app.Event) {
				if t, err := strconv.Atoi(ctx.JSSrc().Get("value").String()); err == nil {
					s.tagShown = t
					s.refresh()
				}
			}).Body(app.Range(tags).Slice(func(i int) app.UI {
				return app.Option().Value(strconv.Itoa(i)).Selected(i == s.tagShown).Text(tagName(tags, i))
			})),
		))
	}
	if mv := maps.maps["A"]; mv != nil {
		var opts []string
		for _, l := range mv.g.Layers {
			switch l.Kind {
			case wire.LayerProb, wire.LayerMean, wire.LayerVar, wire.LayerEntropy:
				opts = append(opts, l.Name)
			}
		}
		if len(opts) > 1 {
			label := map[string]string{wire.LayerProb: "probability", wire.LayerMean: "latent mean", wire.LayerVar: "uncertainty: latent variance",
				wire.LayerEntropy: "uncertainty: predictive entropy"}
			ui = append(ui, app.Div().Class("param inline").Body(
				app.Label().For("layer").Text("Map shows"),
				app.Select().ID("layer").OnChange(func(ctx app.Context, e app.Event) {
					s.layerPick = ctx.JSSrc().Get("value").String()
					s.refresh()
				}).Body(app.Range(opts).Slice(func(i int) app.UI {
					sel := opts[i] == s.layerPick || (s.layerPick == "" && i == 0)
					return app.Option().Value(opts[i]).Selected(sel).Text(label[opts[i]])
				})),
			))
		}
	}
	if len(ui) == 0 {
		return nil
	}
	return app.Div().Class("mapcontrols").Body(ui...)
}

// Metrics is the result table: what people compare first (accuracy or F1,
// support, time, convergence, objective), then the model's own quantities
// named in words from the catalogue, and the solver's internals folded
// under "Solver details".
type Metrics struct {
	app.Compo
	S *session
}

// OnMount registers the table.
func (m *Metrics) OnMount(ctx app.Context) { m.S.register(m) }

// OnDismount unregisters it.
func (m *Metrics) OnDismount() { m.S.unregister(m) }

type row struct{ id, label, value, help string }

// Render implements app.Composer.
func (m *Metrics) Render() app.UI {
	s := m.S
	sh := s.shown
	if sh == nil {
		return app.Div().ID("metrics-block")
	}
	res := sh.res
	ms, _ := spec.Lookup(res.Model)
	rep := res.Report
	var rows []row
	if t := res.Scores.TestTags; t != nil {
		rows = append(rows,
			row{"m-test-f1", "Test micro F1", f3(t.Micro.F1), "F1 over all (sample, tag) pairs of the test rows"},
			row{"m-test-macro-f1", "Test macro F1", f3(t.MacroF1), "mean of the per-tag F1"},
			row{"m-test-hamming", "Test Hamming loss", f3(t.Hamming), "share of wrong (sample, tag) entries"},
			row{"m-test-subset", "Test subset accuracy", pct(t.SubsetAccuracy), "share of test rows whose whole tag set is right"},
			row{"m-train-f1", "Train micro F1", f3(res.Scores.TrainTags.Micro.F1), ""},
		)
	} else {
		rows = append(rows,
			row{"m-test-acc", "Test accuracy", pct(res.Scores.TestAcc), fmt.Sprintf("share of the %d test rows classified right", res.Data.NTest)},
			row{"m-train-acc", "Train accuracy", pct(res.Scores.TrainAcc), fmt.Sprintf("on the %d training rows", res.Data.NTrain)},
		)
		for _, v := range []string{"A", "B"} {
			if a, ok := res.Scores.Views[v]; ok {
				rows = append(rows, row{"m-view-" + strings.ToLower(v), "Test accuracy, view " + v + " alone", pct(a[0]),
					"the model's own view-" + v + " rule on the test rows (train: " + pct(a[1]) + ")"})
			}
		}
	}
	if ms != nil && ms.Support != "" {
		if res.Imported {
			// the model's own training rows, which the file does not
			// name: not a count of this data's rows
			rows = append(rows, row{"m-nsv", upperFirst(ms.Support), fmt.Sprintf("%d, of the rows it was trained on", rep.NSupport),
				"training samples of the model's own training data that its decision depends on (saved in the model file)"})
		} else {
			rows = append(rows, row{"m-nsv", upperFirst(ms.Support), fmt.Sprintf("%d of %d", rep.NSupport, res.Data.NTrain), "training samples the decision depends on"})
		}
	}
	if res.Imported {
		rows = append(rows, row{"m-time", "Training time", "— (imported, not trained here)", ""})
	} else {
		t, help := seconds(res.Timing.Fit), "time the fit took in the compute worker"
		if sh.est.Native > 0 {
			t += " (estimated " + sh.est.say() + ")"
			help += "; the estimate is the cost model's, corrected by this browser's speed on earlier fits"
		}
		rows = append(rows, row{"m-time", "Training time", t, help})
		// scoring every row can take longer than training (many tags, many
		// support vectors): the wait is the sum of the two
		rows = append(rows, row{"m-predict-time", "Scoring time", seconds(res.Timing.Predict),
			"time the compute worker took to predict the training and test rows after training (the maps are timed under Solver details)"})
	}
	conv := "yes"
	if !rep.Converged {
		conv = "no — see the warnings"
	}
	convLabel, objLabel := "Converged", "Objective"
	if ms != nil && ms.Objective != "" {
		objLabel = ms.Objective
	}
	if res.Imported {
		convLabel, objLabel = convLabel+" (when it was trained)", objLabel+" (when it was trained)"
	}
	rows = append(rows, row{"m-converged", convLabel, conv, "whether the solver met its stopping tolerance"})
	rows = append(rows, row{"m-obj", objLabel, strconv.FormatFloat(rep.Objective, 'g', 8, 64), ""})
	var solverRows []row
	solverRows = append(solverRows, row{"m-iter", "Iterations", strconv.Itoa(rep.Iterations), "solver iterations (summed over sub-problems)"})
	for _, k := range sortedExtras(rep.Extras) {
		var out *spec.Output
		if ms != nil {
			out = ms.Output(k)
		}
		label, help, solver := k, "", true
		if out != nil {
			label, help, solver = out.Label, out.Help, out.Solver
			if strings.HasSuffix(out.Key, "*") {
				label += " " + strings.TrimPrefix(k, strings.TrimSuffix(out.Key, "*"))
			}
		}
		v := formatOutput(rep.Extras[k], out)
		r := row{"m-x-" + k, label, v, help}
		if solver {
			solverRows = append(solverRows, r)
		} else {
			rows = append(rows, r)
		}
	}
	if mv := sh.maps["A"]; mv != nil {
		solverRows = append(solverRows, row{"m-grid-time", "Map time", seconds(mv.g.Seconds), fmt.Sprintf("computing the %d×%d map", mv.g.W, mv.g.H)})
	}
	for _, n := range res.Notes {
		solverRows = append(solverRows, row{"m-note-" + n.Param, "Set for this data", n.Text, ""})
	}
	warnings := append(append([]string(nil), rep.Warnings...), res.Warnings...)
	cls := "metrics"
	if s.stale() {
		cls += " stale"
	}
	return app.Div().ID("metrics-block").Class(cls).Body(
		app.If(s.stale(), app.P().ID("metrics-stale").Class("stale-note").Text("Out of date: these numbers are for "+sh.set.Describe()+".")),
		app.Div().Body(
			table("metrics", "Result of "+sh.set.Describe(), rows),
			app.If(len(res.Notes) > 0, app.Ul().ID("notes").Class("notes").Body(
				app.Range(res.Notes).Slice(func(i int) app.UI { return app.Li().Text(res.Notes[i].Text) }),
			)),
			app.If(len(warnings) > 0, app.Ul().ID("warnings").Class("warnings").Body(
				app.Range(warnings).Slice(func(i int) app.UI { return app.Li().Text(warnings[i]) }),
			)),
			app.Details().Class("solver").Body(
				app.Summary().Text("Solver details"),
				table("solver-details", "Solver details", solverRows),
			),
		),
		confusionTable(res),
		tagTable(res),
	)
}

func table(id, caption string, rows []row) app.UI {
	return app.Table().ID(id).Body(
		app.Caption().Class("sr-only").Text(caption),
		app.TBody().Body(app.Range(rows).Slice(func(i int) app.UI {
			r := rows[i]
			th := app.Th().Scope("row").Text(r.label)
			if r.help != "" {
				th = th.Title(r.help)
			}
			return app.Tr().Body(th, app.Td().ID(r.id).Text(r.value))
		})),
	)
}

func sortedExtras(m map[string]float64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func formatOutput(v float64, o *spec.Output) string {
	if o == nil {
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	switch {
	case o.Integer:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case o.Unit == "fraction":
		return pct(v)
	case o.Unit == "s":
		return seconds(v)
	case o.Unit == "bytes":
		return byteSize(int(v))
	case o.Unit != "":
		return strconv.FormatFloat(v, 'g', 6, 64) + " " + o.Unit
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

func seconds(s float64) string {
	switch {
	case s < 0.001:
		return fmt.Sprintf("%.2f ms", s*1000)
	case s < 1:
		return fmt.Sprintf("%.0f ms", s*1000)
	}
	return fmt.Sprintf("%.2f s", s)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func pct(x float64) string { return fmt.Sprintf("%.1f %%", 100*x) }

func f3(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

func confusionTable(res *wire.FitResult) app.UI {
	c := res.Scores.Confusion
	cls := res.Data.Classes
	if c == nil || len(c) != len(cls) {
		return nil
	}
	// The caption is a short title on one line; the axes are named by
	// headers of their own ("predicted" over the columns, "true" beside
	// the rows), not in the caption, which the table's narrow width
	// squeezed into a column of single words.
	return app.Table().ID("confusion").Class("confusion").Body(
		app.Caption().Text("Test confusion matrix"),
		app.THead().Body(
			app.Tr().Body(
				app.Td().ColSpan(2).Aria("hidden", "true"),
				app.Th().Scope("colgroup").ColSpan(len(cls)).Class("axis").Text("predicted"),
			),
			app.Tr().Body(
				app.Td().ColSpan(2).Aria("hidden", "true"),
				app.Range(cls).Slice(func(j int) app.UI { return app.Th().Scope("col").Text(cls[j]) }),
			),
		),
		app.TBody().Body(app.Range(c).Slice(func(i int) app.UI {
			return app.Tr().Body(
				app.If(i == 0, app.Th().Scope("rowgroup").Rowspan(len(cls)).Class("axis").Text("true")),
				app.Th().Scope("row").Text(cls[i]),
				app.Range(c[i]).Slice(func(j int) app.UI {
					cl := ""
					if i == j {
						cl = "diag"
					}
					return app.Td().Class(cl).Text(strconv.Itoa(c[i][j]))
				}),
			)
		})),
	)
}

func tagTable(res *wire.FitResult) app.UI {
	t := res.Scores.TestTags
	if t == nil {
		return nil
	}
	names := res.Data.Tags
	return app.Table().ID("per-tag").Class("confusion").Body(
		app.Caption().Text("Per tag on the test rows"),
		app.THead().Body(app.Tr().Body(app.Th().Scope("col").Text("tag"), app.Th().Scope("col").Text("precision"),
			app.Th().Scope("col").Text("recall"), app.Th().Scope("col").Text("F1"))),
		app.TBody().Body(app.Range(t.PerTag).Slice(func(i int) app.UI {
			pr := t.PerTag[i]
			return app.Tr().Body(app.Th().Scope("row").Text(tagName(names, i)), app.Td().Text(f3(pr.Precision)),
				app.Td().Text(f3(pr.Recall)), app.Td().Text(f3(pr.F1)))
		})),
	)
}

// plural writes a count with its noun: "1 edit", "3 edits".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
