package app

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/spec"
)

// ModelPanel chooses the model and its parameters; the form is generated
// from the catalogue (package spec), so adding a model touches no UI code.
// Log-scale parameters have a slider and a number whose arrow keys step
// multiplicatively (1, 2, 5, 10, …); a value outside its range is refused
// with a message stating the range, and no fit starts while one is.
type ModelPanel struct {
	app.Compo
	S *session
	// keepNote says how keeping the sample datasets offline went.
	keepNote string
}

// OnMount registers the panel.
func (m *ModelPanel) OnMount(ctx app.Context) { m.S.register(m) }

// OnDismount unregisters it.
func (m *ModelPanel) OnDismount() { m.S.unregister(m) }

// Render implements app.Composer.
func (m *ModelPanel) Render() app.UI {
	s := m.S
	ms := s.spec()
	var groups []app.UI
	for _, f := range spec.Families {
		var opts []app.UI
		for _, c := range spec.All() {
			if c.Family != f.ID {
				continue
			}
			text := c.Name
			if short := s.needs(c); short != "" {
				text += " — " + short
			}
			opts = append(opts, app.Option().Value(c.ID).Selected(c.ID == s.set.Model).Text(text))
		}
		if len(opts) > 0 {
			groups = append(groups, app.OptGroup().Label(f.Label).Body(opts...))
		}
	}
	body := []app.UI{
		app.H2().Text("Model"),
		app.Div().Class("param").Body(
			app.Label().For("model").Text("Model"),
			app.Select().ID("model").OnChange(m.onModel).Body(groups...),
		),
	}
	if ms == nil {
		return app.Div().Class("panel modelpanel").Body(
			app.Div().Class("model-main").Body(append(body, app.P().Class("error").Text("Unknown model."))...),
			app.Div().Class("model-more"),
		)
	}
	vals := s.set.Values()
	var basic, advanced []spec.Param
	for _, p := range ms.Params {
		if p.Advanced {
			advanced = append(advanced, p)
		} else {
			basic = append(basic, p)
		}
	}
	body = append(body,
		m.trainRow(ms),
		app.Div().Body(app.If(s.compatible(ms) != "", app.P().ID("incompatible").Class("error").Text(s.compatible(ms)+"."))),
		m.form(ms, basic, vals),
	)
	// The model, its main parameters and Train come first (model-main); the
	// advanced settings, the paper and what the model is follow
	// (model-more). On a phone the stylesheet puts the first right under
	// the figure and the second after the results and the data.
	return app.Div().Class("panel modelpanel").Body(
		app.Div().Class("model-main").Body(body...),
		app.Div().Class("model-more").Body(
			app.Details().Class("advanced").Body(
				app.Summary().Text("Advanced settings"),
				m.form(ms, advanced, vals),
				m.workersField(),
				m.offlineField(),
			),
			app.P().Class("paper").Text(ms.Paper+" — "+ms.Equations),
			app.P().Class("help").Text(ms.About),
		),
	)
}

// trainRow is the Train button, labelled with the estimated time when the
// fit is too long to start by itself.
func (m *ModelPanel) trainRow(ms *spec.Spec) app.UI {
	s := m.S
	label := "Train"
	var note string
	if est, ok := s.estimate(); ok {
		if est.Seconds > autoTrainSeconds {
			label = "Train (" + est.say() + ")"
		}
		// while a fit runs, the line below says so, and "waits for a
		// click" would not be true of it
		if est.Seconds > autoTrainSeconds && !s.busy() {
			note = fmt.Sprintf("Estimated at %s in this browser, so it waits for a click.", est.say())
			if why := est.why(); why != "" {
				note = fmt.Sprintf("Estimated at %s in this browser, so it waits for a click: %s.", est.say(), why)
			}
		}
	}
	disabled := s.busy() || s.fitFormRefused() || s.compatible(ms) != ""
	return app.Div().Class("actions").Body(
		app.Button().ID("train").Class("primary").Text(label).Disabled(disabled).OnClick(func(ctx app.Context, e app.Event) {
			s.refit = s.watching // a click while watching trains again to be watched
			s.startFit(ctx)
			// on a phone the figure is just above the form: bring it into
			// view when it is scrolled off
			if r := app.Window().GetElementByID("resultfig"); r.Truthy() && app.Window().Get("innerWidth").Int() <= 820 {
				r.Call("scrollIntoView", map[string]any{"behavior": "smooth", "block": "nearest"})
			}
		}),
		app.Label().Class("watch").Title("Redraw the boundary while the model trains, beside a plot of what the solver measures (slower: each frame is shown for a moment)").Body(
			app.Input().Type("checkbox").ID("watch").Checked(s.watching).OnChange(func(ctx app.Context, e app.Event) {
				s.watching = ctx.JSSrc().Get("checked").Bool()
				if s.watching && !s.busy() && !s.fitFormRefused() && s.compatible(ms) == "" && s.autoTrain() {
					s.refit = true // watch the current settings learn
					s.startFit(ctx)
				}
				s.refresh()
			}, ms.ID),
			app.Text(" Watch it learn"),
		),
		app.If(note != "", app.Small().ID("train-estimate").Class("help").Text(note)),
		app.If(s.busy(), app.Small().ID("train-busy").Class("help").Body(
			app.Text("Training… (progress at the top of the plot) "),
			app.Button().ID("train-cancel-near").Text("Cancel").OnClick(func(ctx app.Context, e app.Event) { s.cancelFit(); s.refresh() }),
		)),
	)
}

func (m *ModelPanel) onModel(ctx app.Context, e app.Event) {
	s := m.S
	id := ctx.JSSrc().Get("value").String()
	c, err := spec.Lookup(id)
	if err != nil {
		return
	}
	s.set.Model = id
	s.message = ""
	for k := range s.fieldErrs {
		if strings.HasPrefix(k, "p-") {
			delete(s.fieldErrs, k)
		}
	}
	// Generated data that this model cannot use gives way to data it can.
	if why := s.compatible(c); why != "" && s.set.IsGenerated() {
		g := c.DefaultGenerator()
		s.set.Source, s.set.Edits = "gen:"+g, nil
		s.message = fmt.Sprintf("Switched to the %s data, which %s can use.", generatorTitle(s.set.Source), c.Name)
	}
	s.changed(ctx)
}

// form renders parameters whose ShowIf conditions hold.
func (m *ModelPanel) form(ms *spec.Spec, params []spec.Param, vals spec.Values) app.UI {
	var rows []app.UI
	for _, p := range params {
		if visible(p, vals) {
			rows = append(rows, m.param(ms, p, vals[p.Name]))
		}
	}
	return app.Div().Class("params").Body(rows...)
}

func visible(p spec.Param, vals spec.Values) bool {
	for k, allowed := range p.ShowIf {
		ok := false
		for _, a := range allowed {
			if vals[k] == a {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// param renders one parameter: a select for choices, a checkbox for
// booleans, a number (with a log slider for log-scale ones).
func (m *ModelPanel) param(ms *spec.Spec, p spec.Param, val string) app.UI {
	s := m.S
	id := "p-" + ms.ID + "-" + p.Name
	label := p.Label
	if label == "" {
		label = p.Name
	}
	set := func(ctx app.Context, v string) {
		delete(s.fieldErrs, id)
		s.set.SetParam(p.Name, v)
		s.changed(ctx)
	}
	var control app.UI
	errMsg := s.fieldErrs[id]
	switch p.Kind {
	case spec.Choice:
		control = app.Select().ID(id).OnChange(func(ctx app.Context, e app.Event) { set(ctx, ctx.JSSrc().Get("value").String()) }, id).Body(
			app.Range(p.Choices).Slice(func(i int) app.UI {
				c := p.Choices[i]
				return app.Option().Value(c).Selected(c == val).Text(c)
			}),
		)
	case spec.Bool:
		b, _ := strconv.ParseBool(val)
		control = app.Input().Type("checkbox").ID(id).Checked(b).OnChange(func(ctx app.Context, e app.Event) {
			set(ctx, strconv.FormatBool(ctx.JSSrc().Get("checked").Bool()))
		}, id)
	default:
		number := app.Input().Type("number").ID(id).Class("num").Value(val).Aria("describedby", id+"-err").
			OnChange(func(ctx app.Context, e app.Event) {
				text := strings.TrimSpace(ctx.JSSrc().Get("value").String())
				if err := p.Validate(text); err != nil {
					s.fieldErrs[id] = rangeMessage(p, text)
					s.refresh()
					return
				}
				set(ctx, text)
			}, id)
		if p.Kind == spec.Int {
			number = number.Step(1)
		} else {
			number = number.Attr("step", "any")
		}
		if p.Bounded() {
			number = number.Min(p.Min).Max(p.Max)
		}
		if errMsg != "" {
			number = number.Aria("invalid", "true")
		}
		f, _ := strconv.ParseFloat(val, 64)
		if p.Log && p.Min > 0 && p.Max > p.Min {
			number = number.OnKeyDown(func(ctx app.Context, e app.Event) {
				key := e.Get("key").String()
				if key != "ArrowUp" && key != "ArrowDown" {
					return
				}
				e.PreventDefault()
				cur, err := strconv.ParseFloat(ctx.JSSrc().Get("value").String(), 64)
				if err != nil || cur <= 0 {
					cur = f
				}
				next := stepLog(cur, key == "ArrowUp")
				next = math.Max(p.Min, math.Min(p.Max, next))
				text := sigText(next)
				ctx.JSSrc().Set("value", text)
				set(ctx, text)
			}, id)
			pos := 0.0
			if f > 0 {
				pos = math.Log10(f)
			}
			slider := app.Input().Type("range").Class("slider").ID(id+"-slider").
				Aria("label", label+" (log scale)").
				Min(math.Log10(p.Min)).Max(math.Log10(p.Max)).Step(0.01).
				Value(strconv.FormatFloat(pos, 'f', 3, 64)).
				OnInput(func(ctx app.Context, e app.Event) { m.slide(ctx, p, ctx.JSSrc().Get("value").String(), true) }, id).
				OnChange(func(ctx app.Context, e app.Event) { m.slide(ctx, p, ctx.JSSrc().Get("value").String(), false) }, id)
			control = app.Div().Class("logpair").Body(slider, number)
		} else {
			control = number
		}
	}
	return app.Div().Class("param").Body(
		app.Label().For(id).Text(label),
		control,
		app.If(errMsg != "", app.Small().ID(id+"-err").Class("field-error").Aria("live", "polite").Text(errMsg)),
		app.If(p.Help != "", app.Small().Class("help").Text(p.Help)),
	)
}

// slide applies a log slider's position: while dragging (input events) the
// fit follows live on small data; the final change settles it.
func (m *ModelPanel) slide(ctx app.Context, p spec.Param, pos string, dragging bool) {
	s := m.S
	l, err := strconv.ParseFloat(pos, 64)
	if err != nil {
		return
	}
	v := sigText(math.Pow(10, l))
	if p.Validate(v) != nil {
		return
	}
	if el := app.Window().GetElementByID("p-" + s.set.Model + "-" + p.Name); el.Truthy() {
		el.Set("value", v)
	}
	if dragging && !s.liveAllowed() {
		return // larger data: the final change retrains
	}
	s.live = dragging
	s.set.SetParam(p.Name, v)
	s.changed(ctx)
	s.live = false
}

// rangeMessage states the real range of a parameter.
func rangeMessage(p spec.Param, got string) string {
	label := p.Label
	if label == "" {
		label = p.Name
	}
	kind := "a number"
	if p.Kind == spec.Int {
		kind = "a whole number"
	}
	if p.Bounded() {
		return fmt.Sprintf("%s must be %s between %s and %s (%q was not used).", label, kind, humanNum(p.Min), humanNum(p.Max), got)
	}
	return fmt.Sprintf("%s must be %s (%q was not used).", label, kind, got)
}

// stepLog moves x to the next value of the 1-2-5 sequence up or down.
func stepLog(x float64, up bool) float64 {
	e := math.Floor(math.Log10(x))
	base := math.Pow(10, e)
	seq := []float64{1, 2, 5, 10, 20}
	if up {
		for _, m := range seq {
			if v := m * base; v > x*(1+1e-9) {
				return roundSig(v)
			}
		}
		return roundSig(10 * base)
	}
	for i := len(seq) - 1; i >= 0; i-- {
		if v := seq[i] * base / 10; v < x*(1-1e-9) {
			return roundSig(v)
		}
	}
	return roundSig(base / 10)
}

// sigText writes x as people write a parameter's value: three significant
// digits in plain notation ("0.001", "0.0316", "46.4", "1000"; exponents
// only below 0.0001 or from 10²¹). The log sliders, their arrow keys and
// Tune's grid write values with it. (roundSig's result, written as it is,
// could read "46.400000000000006".)
func sigText(x float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 3, 64), 64)
	return strconv.FormatFloat(r, 'g', -1, 64)
}

// roundSig rounds to three significant digits (slider values stay readable).
func roundSig(x float64) float64 {
	if x == 0 {
		return 0
	}
	e := math.Pow(10, math.Floor(math.Log10(math.Abs(x)))-2)
	return math.Round(x/e) * e
}

// workersField sets the size of the pool of compute workers.
func (m *ModelPanel) workersField() app.UI {
	n := PoolSize()
	return app.Div().Class("param").Body(
		app.Label().For("workers").Text("Compute workers"),
		app.Input().Type("number").ID("workers").Class("num").Value(strconv.Itoa(n)).Min(1).Max(16).Step(1).
			OnChange(func(ctx app.Context, e app.Event) {
				v, err := strconv.Atoi(ctx.JSSrc().Get("value").String())
				if err != nil || v < 1 || v > 16 {
					return
				}
				ctx.LocalStorage().Set(poolSizeKey, v)
				SetPoolSize(v)
			}),
		app.Small().Class("help").Text("Background threads that train, map and cross-validate (default: one per processor core, at most 4). Tune, Compare and the papers' experiments spread their work over them."),
	)
}

// offlineDataKey is the local-storage key web/pool.js reads at start: when
// it holds true, the service worker caches every sample dataset once the app
// is live. Otherwise a dataset is cached when it is first used.
const offlineDataKey = "lupilab.offlineData"

// offlineField lets people keep all sample datasets for offline use.
func (m *ModelPanel) offlineField() app.UI {
	var keep bool
	if runtime.GOOS == "js" {
		keep = app.Window().Get("localStorage").Call("getItem", offlineDataKey).String() == "true"
	}
	return app.Div().Class("param").Body(
		app.Label().For("offline-data").Body(
			app.Input().Type("checkbox").ID("offline-data").Checked(keep).OnChange(m.onOffline),
			app.Text(" Keep all sample datasets for offline use"),
		),
		app.Small().Class("help").ID("offline-note").Text(m.offlineNote(keep)),
	)
}

func (m *ModelPanel) offlineNote(keep bool) string {
	switch {
	case m.keepNote != "":
		return m.keepNote
	case keep:
		return "The sample datasets are kept in this browser, so they open without a network."
	}
	return "Downloads the sample datasets now (about 0.6 MB) so they open without a network. Otherwise a dataset is kept once it has been opened."
}

func (m *ModelPanel) onOffline(ctx app.Context, e app.Event) {
	keep := ctx.JSSrc().Get("checked").Bool()
	ls := app.Window().Get("localStorage")
	if !keep {
		ls.Call("setItem", offlineDataKey, "false")
		m.keepNote = ""
		return
	}
	ls.Call("setItem", offlineDataKey, "true")
	m.keepNote = "Downloading the sample datasets…"
	var then, fail app.Func
	done := func(note string) {
		then.Release()
		fail.Release()
		ctx.Dispatch(func(ctx app.Context) { m.keepNote = note })
	}
	then = app.FuncOf(func(this app.Value, args []app.Value) any {
		n := 0
		if len(args) > 0 && args[0].Type() == app.TypeNumber {
			n = args[0].Int()
		}
		done(fmt.Sprintf("%d sample datasets are kept in this browser: they open without a network.", n))
		return nil
	})
	fail = app.FuncOf(func(this app.Value, args []app.Value) any {
		msg := "unknown error"
		if len(args) > 0 {
			msg = args[0].Call("toString").String()
		}
		done("Could not keep the sample datasets offline: " + msg + ".")
		return nil
	})
	app.Window().Get("lupiPool").Call("keepDatasets").Call("then", then, fail)
}

// humanNum writes a range bound as people write it (10000, 0.0001, 1e-12).
func humanNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e9 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
