package app

import (
	"fmt"
	"maps"
	"math"
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/spec"
	"lupilab/models/wire"
)

// tuneState is the Tune view: a grid over two parameters, each cell
// cross-validated on the training rows by a compute worker (cells spread
// over the pool; every cell draws its folds from the split seed, so the
// grid does not depend on the number of workers).
type tuneState struct {
	forModel string
	p1, p2   string
	steps    int
	folds    int

	jobBatch // the cells (running, stop)
	grid     *tuneGrid
	errMsg   string
}

type tuneGrid struct {
	model        string
	set          Settings
	p1, p2       string
	v1, v2       []string
	mean, sd     [][]float64
	errs         [][]string
	done, total  int
	metric       string
	seconds      float64
	bestI, bestJ int
	// l1, l2 are the parameters' labels as the model form shows them.
	l1, l2 string
	k      int // folds
	// optOff: the model's own hyper-parameter optimisation was on and the
	// grid ran with it off (see optimises).
	optOff bool
}

// TunePanel runs the grid and shows it as a heat map table.
type TunePanel struct {
	app.Compo
	S *session
}

// OnMount registers the panel.
func (t *TunePanel) OnMount(ctx app.Context) { t.S.register(t) }

// OnDismount unregisters it.
func (t *TunePanel) OnDismount() { t.S.unregister(t) }

// numericParams lists the tunable (numeric, not solver) parameters.
func numericParams(m *spec.Spec) []spec.Param {
	var out []spec.Param
	for _, p := range m.Params {
		if (p.Kind == spec.Float || p.Kind == spec.Int) && !p.Advanced {
			out = append(out, p)
		}
	}
	return out
}

func (t *TunePanel) defaults(m *spec.Spec) {
	st := &t.S.tune
	if st.forModel == m.ID {
		return
	}
	ps := numericParams(m)
	*st = tuneState{forModel: m.ID, steps: 5, folds: 5}
	if len(ps) > 0 {
		st.p1 = ps[0].Name
	}
	if len(ps) > 1 {
		st.p2 = ps[1].Name
		for _, q := range ps {
			if q.Name == "gamma" && ps[0].Name != "gamma" {
				st.p2 = "gamma"
			}
		}
	}
}

// spanValues spans a parameter's range: log-spaced for log parameters,
// linear otherwise (integers rounded, duplicates removed). The values are
// written as the model form writes them (sigText: "0.001" … "1000", not
// "1e+03"), and so read alike in the grid's headers, its tooltips, the best
// cell's line and the form once applied.
func spanValues(par *spec.Param, steps int) []string {
	lo, hi := par.Min, par.Max
	var out []string
	seen := map[string]bool{}
	add := func(v float64) {
		s := sigText(v)
		if par.Kind == spec.Int {
			s = strconv.FormatFloat(math.Round(v), 'f', 0, 64)
		}
		if !seen[s] && par.Validate(s) == nil {
			seen[s] = true
			out = append(out, s)
		}
	}
	if par.Log {
		lo, hi = math.Max(lo, 1e-3), math.Min(hi, 1e3) // a useful window
		a, b := math.Log10(lo), math.Log10(hi)
		for i := 0; i < steps; i++ {
			add(math.Pow(10, a+(b-a)*float64(i)/float64(max(steps-1, 1))))
		}
		return out
	}
	if lo == 0 && hi == 0 {
		d, _ := strconv.ParseFloat(par.Default, 64)
		lo, hi = d/4, d*4
	}
	for i := 0; i < steps; i++ {
		add(lo + (hi-lo)*float64(i)/float64(max(steps-1, 1)))
	}
	return out
}

// optimiseParam is the switch of the models that fit their own
// hyper-parameters (the Gaussian processes' type-II maximum likelihood).
const optimiseParam = "optimize"

// optimises reports whether the model, with these values, re-learns its
// hyper-parameters in every fit: a grid over them would then only move the
// optimiser's starting point, and every cell would score alike. Tune runs
// such a grid with the optimisation off (each cell uses its values as they
// are) and says so, and applying the best cell turns it off too, so that
// the fit shown is the cell chosen.
func optimises(m *spec.Spec, vals spec.Values) bool {
	p := m.Param(optimiseParam)
	if p == nil || p.Kind != spec.Bool {
		return false
	}
	v, ok := vals[optimiseParam]
	if !ok || v == "" {
		v = p.Default
	}
	on, err := strconv.ParseBool(v)
	return err == nil && on
}

// metricOf names what a cross-validated cell of model m measures (as the
// compute worker does: micro F1 on tag data, accuracy otherwise).
func metricOf(m *spec.Spec) string {
	if m.Task == spec.MultiLabel {
		return "micro F1"
	}
	return "accuracy"
}

func label(p spec.Param) string {
	if p.Label != "" {
		return p.Label
	}
	return p.Name
}

// Render implements app.Composer.
func (t *TunePanel) Render() app.UI {
	s := t.S
	m := s.spec()
	if m == nil {
		return app.Div()
	}
	t.defaults(m)
	st := &s.tune
	ps := numericParams(m)
	if len(ps) < 2 {
		return app.P().Class("help").Text(m.Name + " has fewer than two numeric parameters to tune.")
	}
	sel := func(id, cur string, set func(string)) app.UI {
		return app.Select().ID(id).OnChange(func(ctx app.Context, e app.Event) { set(ctx.JSSrc().Get("value").String()) }).Body(
			app.Range(ps).Slice(func(i int) app.UI {
				return app.Option().Value(ps[i].Name).Selected(ps[i].Name == cur).Text(label(ps[i]))
			}),
		)
	}
	intField := func(id, text string, v, lo, hi int, set func(int)) app.UI {
		errMsg := s.fieldErrs[id]
		return app.Div().Class("param small").Body(
			app.Label().For(id).Text(text),
			app.Input().Type("number").ID(id).Class("num").Value(strconv.Itoa(v)).Min(lo).Max(hi).Step(1).
				OnChange(func(ctx app.Context, e app.Event) {
					n, err := strconv.Atoi(ctx.JSSrc().Get("value").String())
					if err != nil || n < lo || n > hi {
						s.fieldErrs[id] = fmt.Sprintf("%s must be a whole number between %d and %d.", text, lo, hi)
					} else {
						delete(s.fieldErrs, id)
						set(n)
					}
					t.Update()
				}),
			app.If(errMsg != "", app.Small().Class("field-error").Text(errMsg)),
		)
	}
	invalid := t.formInvalid()
	runLabel, estNote := "Run the grid", ""
	if m1, m2 := m.Param(st.p1), m.Param(st.p2); !st.running() && !invalid && m1 != nil && m2 != nil && st.p1 != st.p2 { // (not shown while a grid runs)
		cells := gridCells(s.set.Values(), st.p1, st.p2, spanValues(m1, st.steps), spanValues(m2, st.steps), optimises(m, s.set.Values()))
		workers := PoolSize()
		if est, ok := s.gridEstimate(m, cells, st.folds, workers); ok && est.Seconds >= 1 {
			runLabel = "Run the grid (" + est.say() + ")"
			estNote = fmt.Sprintf("%d cells × %d folds = %d fits, estimated at %s in this browser on %s.",
				len(cells), st.folds, len(cells)*st.folds, est.say(), plural(workers, "compute worker", "compute workers"))
			if why := est.why(); why != "" {
				estNote += " " + upperFirst(why) + "."
			}
		}
	}
	return app.Div().Class("tune").Body(
		app.P().Class("help").Text(fmt.Sprintf("k-fold cross-validation of %s on the training part of the current split, over a "+
			"grid of two parameters (log-spaced where the parameter is). The test part is not touched. The cells run in parallel on the compute workers.", m.Name)),
		when(optimises(m, s.set.Values()), func() app.UI {
			opt := m.Param(optimiseParam)
			return app.P().ID("tune-optimise").Class("notice").Text(fmt.Sprintf("“%s” is on: every fit re-learns the kernel's "+
				"hyper-parameters from the data, so the values of a grid would only be the optimiser's starting point. The grid "+
				"therefore runs with “%s” off, each cell using its values as they are; applying the best cell turns it off too.",
				label(*opt), label(*opt)))
		}),
		app.Div().Class("genrow").Body(
			app.Div().Class("param small").Body(app.Label().For("tune-p1").Text("Rows"), sel("tune-p1", st.p1, func(v string) { st.p1 = v })),
			app.Div().Class("param small").Body(app.Label().For("tune-p2").Text("Columns"), sel("tune-p2", st.p2, func(v string) { st.p2 = v })),
			intField("tune-steps", "Values each", st.steps, 2, 9, func(v int) { st.steps = v }),
			intField("tune-folds", "Folds", st.folds, 2, 10, func(v int) { st.folds = v }),
		),
		app.Div().Class("actions").Body(
			app.Button().ID("tune-run").Class("primary").Text(runLabel).Disabled(st.running() || invalid).OnClick(t.onRun),
			app.If(st.running(), app.Button().ID("tune-cancel").Text("Cancel").OnClick(func(ctx app.Context, e app.Event) { st.stop() })),
			when(st.running() && st.grid != nil, func() app.UI {
				text := fmt.Sprintf("%d of %d cells done", st.grid.done, st.grid.total)
				if st.grid.done > 0 {
					text += etaAfter(wire.Progress{Fraction: float64(st.grid.done) / float64(st.grid.total)}, time.Since(st.started).Seconds())
				}
				return app.Span().ID("tune-progress").Class("stage").Aria("live", "polite").Text(text)
			}),
		),
		app.If(estNote != "", app.Small().ID("tune-estimate").Class("help").Text(estNote)),
		app.If(st.errMsg != "", app.P().ID("tune-error").Class("error").Text(st.errMsg)),
		t.result(),
	)
}

// tuneFields are the ids of the Tune form's number boxes.
var tuneFields = []string{"tune-steps", "tune-folds"}

// formInvalid tells whether a box of the Tune form holds a value it refused
// (the grid would otherwise run with the last valid one, not the one shown).
func (t *TunePanel) formInvalid() bool {
	for _, id := range tuneFields {
		if t.S.fieldErrs[id] != "" {
			return true
		}
	}
	return false
}

func (t *TunePanel) onRun(ctx app.Context, e app.Event) {
	s := t.S
	st := &s.tune
	m := s.spec()
	if m == nil || t.formInvalid() {
		return
	}
	par1, par2 := m.Param(st.p1), m.Param(st.p2)
	if par1 == nil || par2 == nil || st.p1 == st.p2 {
		st.errMsg = "Choose two different parameters."
		t.Update()
		return
	}
	if why := s.compatible(m); why != "" {
		st.errMsg = why + "."
		t.Update()
		return
	}
	v1, v2 := spanValues(par1, st.steps), spanValues(par2, st.steps)
	g := &tuneGrid{model: m.ID, set: s.set.Clone(), p1: st.p1, p2: st.p2, v1: v1, v2: v2, total: len(v1) * len(v2), bestI: -1,
		l1: label(*par1), l2: label(*par2), k: st.folds, metric: metricOf(m), optOff: optimises(m, s.set.Values())}
	g.mean, g.sd, g.errs = make([][]float64, len(v1)), make([][]float64, len(v1)), make([][]string, len(v1))
	for i := range v1 {
		g.mean[i], g.sd[i], g.errs[i] = make([]float64, len(v2)), make([]float64, len(v2)), make([]string, len(v2))
		for j := range v2 {
			g.mean[i][j], g.sd[i][j] = math.NaN(), math.NaN()
		}
	}
	st.grid, st.errMsg = g, ""
	st.start()
	folds := st.folds
	cells := gridCells(g.set.Values(), g.p1, g.p2, v1, v2, g.optOff)
	for i := range v1 {
		for j := range v2 {
			i, j := i, j
			vals := cells[i*len(v2)+j]
			req := wire.CVRequest{Data: g.set.Data(s.csv()), Split: g.set.Split(), Model: m.ID, Params: vals, Folds: folds}
			var r wire.CVResult
			st.submit(ctx, wire.KindCV, req, &r, JobOptions{Priority: PriorityBackground}, func(ctx app.Context, e jobEnd) {
				switch {
				case e.cancelled:
					g.errs[i][j] = "cancelled"
					st.errMsg = "Grid search cancelled."
				case e.err != nil:
					g.errs[i][j] = e.err.Error()
				default:
					g.mean[i][j], g.sd[i][j] = r.Mean, r.SD
					if r.Metric != "" {
						g.metric = r.Metric
					}
				}
				g.done++
				if e.last {
					g.seconds = e.seconds
					g.best()
					if g.bestI < 0 && st.errMsg == "" {
						st.errMsg = "Every cell of the grid failed: " + g.errs[0][0]
					}
				}
				t.Update()
			})
		}
	}
	t.Update()
}

// gridCells are the values of every cell of a grid over p1 (rows, v1) and
// p2 (columns, v2) from base, in reading order; optOff turns the kernel's
// own hyper-parameter search off in each.
func gridCells(base spec.Values, p1, p2 string, v1, v2 []string, optOff bool) []spec.Values {
	var cells []spec.Values
	for _, a := range v1 {
		for _, b := range v2 {
			vals := maps.Clone(base)
			vals[p1], vals[p2] = a, b
			if optOff {
				vals[optimiseParam] = "false"
			}
			cells = append(cells, vals)
		}
	}
	return cells
}

// best picks the best cell (ties: the first in reading order).
func (g *tuneGrid) best() {
	b := math.Inf(-1)
	for i := range g.mean {
		for j, v := range g.mean[i] {
			if !math.IsNaN(v) && v > b {
				b, g.bestI, g.bestJ = v, i, j
			}
		}
	}
}

func (t *TunePanel) result() app.UI {
	s := t.S
	g := s.tune.grid
	if g == nil || g.model != s.set.Model {
		return nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range g.mean {
		for _, v := range r {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	cell := func(i, j int) app.UI {
		v := g.mean[i][j]
		if math.IsNaN(v) {
			switch g.errs[i][j] {
			case "":
			case "cancelled":
				return app.Td().Class("cv-cancelled").Text("cancelled")
			default:
				return app.Td().Class("cv-fail").Title(g.errs[i][j]).Text("failed")
			}
			return app.Td().Class("cv").Text("…")
		}
		tt := 0.0
		if hi > lo {
			tt = (v - lo) / (hi - lo)
		}
		c := sequential(tt)
		fg := "#000"
		if tt > 0.55 {
			fg = "#fff"
		}
		cls := "cv"
		if i == g.bestI && j == g.bestJ && !s.tune.running() {
			cls = "cv best"
		}
		return app.Td().Class(cls).Style("background", c.css()).Style("color", fg).
			Title(fmt.Sprintf("%s = %s, %s = %s: %.3f ± %.3f (mean ± sd over the folds)", g.l1, g.v1[i], g.l2, g.v2[j], v, g.sd[i][j])).
			Text(fmt.Sprintf("%.3f ± %.3f", v, g.sd[i][j]))
	}
	stale := g.set.DataKey() != s.set.DataKey()
	cls := "cv-result"
	if stale {
		cls += " stale"
	}
	var best app.UI
	if g.bestI >= 0 && !s.tune.running() {
		b1, b2 := g.v1[g.bestI], g.v2[g.bestJ]
		off := ""
		if g.optOff {
			off = ", with the hyper-parameter optimisation off"
		}
		best = app.Div().Body(
			app.P().ID("cv-best").Text(fmt.Sprintf("Best: %s = %s, %s = %s (mean %s %.3f ± %.3f over %d folds%s).", g.l1, b1, g.l2, b2,
				g.metric, g.mean[g.bestI][g.bestJ], g.sd[g.bestI][g.bestJ], g.k, off)),
			app.Button().ID("cv-apply").Text("Apply the best cell and train").OnClick(func(ctx app.Context, e app.Event) {
				s.set.Model = g.model
				s.set.SetParam(g.p1, b1)
				s.set.SetParam(g.p2, b2)
				if g.optOff {
					s.set.SetParam(optimiseParam, "false")
				}
				s.set.View = "model"
				s.changed(ctx)
				s.startFit(ctx)
				s.refresh()
			}, fmt.Sprintf("%p-%d-%d", g, g.bestI, g.bestJ)),
		)
	}
	return app.Div().Class(cls).Body(
		app.If(stale, app.P().Class("stale-note").Text("Out of date: computed on "+g.set.DataLabel()+".")),
		app.Div().Class("scroll").Body(app.Table().ID("cv-grid").Class("cv-grid").Body(
			app.Caption().Text(fmt.Sprintf("Mean ± sd of the %d-fold cross-validated %s; rows %s, columns %s%s%s", g.k, g.metric, g.l1, g.l2,
				func() string {
					if g.optOff {
						return "; hyper-parameter optimisation off"
					}
					return ""
				}(),
				func() string {
					if g.seconds > 0 {
						return fmt.Sprintf(" (%d cells, %s on %d workers)", g.total, seconds(g.seconds), PoolSize())
					}
					return ""
				}())),
			app.THead().Body(app.Tr().Body(
				app.Th().Scope("col").Text(g.l1+" \\ "+g.l2),
				app.Range(g.v2).Slice(func(j int) app.UI { return app.Th().Scope("col").Text(g.v2[j]) }),
			)),
			app.TBody().Body(app.Range(g.v1).Slice(func(i int) app.UI {
				return app.Tr().Body(
					app.Th().Scope("row").Text(g.v1[i]),
					app.Range(g.v2).Slice(func(j int) app.UI { return cell(i, j) }),
				)
			})),
		)),
		best,
	)
}
