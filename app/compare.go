package app

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/datasets"
	"lupilab/models/spec"
	"lupilab/models/wire"
)

// compareState is the Compare view's selection, running jobs and results:
// one fit per model on the same split, spread over the pool (each fit is
// the same whichever worker runs it, so the table does not depend on the
// number of workers).
type compareState struct {
	selected map[string]bool // the user's ticks; nil until the first (then compareDefaults)
	jobBatch                 // the fits (running, stop)
	rows     []compareRow
	forKey   string // the data key the rows were computed on
	set      Settings
	done     int
	errMsg   string
	seconds  float64
}

type compareRow struct {
	model  string
	res    *wire.FitResult
	resSeq uint64 // numbers res (the thumbnail's key)
	mv     *mapView
	err    string
	done   bool
	parts  int // messages taken: the thumbnail redraws when it changes
}

// ticked is the models ticked: the user's choice once they have ticked
// one, else compareDefaults.
func (st *compareState) ticked(s *session) map[string]bool {
	if st.selected != nil {
		return st.selected
	}
	return s.compareDefaults()
}

// compareDefaults are the models Compare ticks until the user ticks one:
// the two SVM baselines, the Model view's model and the papers' models this
// data suits (SVM2+ and SVM1+ with privileged features, SVM-2K and MPWTSVM
// with two views, the joint SVM and independent SVMs with tags), so that a
// comparison on LUPI data compares LUPI models.
func (s *session) compareDefaults() map[string]bool {
	sel := map[string]bool{"svm": true, "l2svm": true, s.set.Model: true}
	_, _, zdim, _, kind := s.dataInfo()
	switch {
	case kind == datasets.KindMultiLabel:
		sel["indepsvm"], sel["jointsvm"] = true, true
	case kind == datasets.KindTwoView:
		sel["svm2k"], sel["mpwtsvm"] = true, true
	case zdim > 0: // privileged features (an upload's second block too)
		sel["svm2plus"], sel["svm1plus"] = true, true
	}
	return sel
}

// longestFirst orders models ids (by index) by their estimated fit time,
// longest first (the catalogue's order among equals and unknowns): on a
// pool of P workers the longest fit then starts at once and the short ones
// share the other workers, rather than the longest starting last and
// running alone (a GPC beside three SVMs took 2.7 s where 2.3 s would do).
func (s *session) longestFirst(ids []string) []int {
	secs := make([]float64, len(ids))
	order := make([]int, len(ids))
	for i, id := range ids {
		order[i] = i
		set := s.set.Clone()
		set.Model = id
		if m, err := spec.Lookup(id); err == nil {
			if e, ok := s.estimateOf(m, set.Values()); ok {
				secs[i] = e.Seconds
			}
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return secs[order[a]] > secs[order[b]] })
	return order
}

// ComparePanel fits several models on one split and shows them side by side.
type ComparePanel struct {
	app.Compo
	S *session
}

// OnMount registers the panel.
func (c *ComparePanel) OnMount(ctx app.Context) { c.S.register(c) }

// OnDismount unregisters it.
func (c *ComparePanel) OnDismount() { c.S.unregister(c) }

// Render implements app.Composer.
func (c *ComparePanel) Render() app.UI {
	s := c.S
	st := &s.cmp
	sel := st.ticked(s)
	var boxes []app.UI
	for _, m := range spec.All() {
		why := s.compatible(m)
		id := "cmp-" + m.ID
		m := m
		boxes = append(boxes, app.Label().Class("check").For(id).Title(why).Body(
			app.Input().Type("checkbox").ID(id).Checked(why == "" && sel[m.ID]).Disabled(why != "").
				OnChange(func(ctx app.Context, e app.Event) {
					if st.selected == nil {
						st.selected = st.ticked(s)
					}
					st.selected[m.ID] = ctx.JSSrc().Get("checked").Bool()
				}),
			app.Text(" "+m.Name),
		))
	}
	return app.Div().Class("compare").Body(
		app.P().Class("help").Text("Fit several models on the same split of the current data, each with its settings from the Model view "+
			"(or its defaults). The fits run in parallel on the compute workers. Models that cannot use this data are greyed out."),
		app.FieldSet().Body(app.Legend().Text("Models"), app.Div().Class("checks").Body(boxes...)),
		app.Div().Class("actions").Body(
			app.Button().ID("compare-run").Class("primary").Text("Compare").Disabled(st.running()).OnClick(c.onRun),
			app.If(st.running(), app.Button().ID("compare-cancel").Text("Cancel").OnClick(func(ctx app.Context, e app.Event) { st.stop() })),
			app.If(st.running(), app.Span().ID("compare-progress").Class("stage").Aria("live", "polite").
				Text(fmt.Sprintf("%d of %d models done", st.done, len(st.rows)))),
		),
		app.If(st.errMsg != "", app.P().ID("compare-error").Class("error").Text(st.errMsg)),
		c.results(),
	)
}

func (c *ComparePanel) onRun(ctx app.Context, e app.Event) {
	s := c.S
	st := &s.cmp
	var ids []string
	sel := st.ticked(s)
	for _, m := range spec.All() {
		if sel[m.ID] && s.compatible(m) == "" {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) == 0 {
		st.errMsg = "Choose at least one model that can use this data."
		c.Update()
		return
	}
	st.errMsg, st.rows, st.done = "", nil, 0
	st.set, st.forKey = s.set.Clone(), s.set.DataKey()
	st.start()
	for _, id := range ids {
		st.rows = append(st.rows, compareRow{model: id})
	}
	for _, row := range s.longestFirst(ids) {
		id := ids[row]
		set := s.set.Clone()
		set.Model = id
		req := wire.FitRequest{Data: set.Data(s.csv()), Split: set.Split(), Model: id, Params: set.Values(),
			AdaptWidths: true, Grid: &wire.GridSpec{Side: 80}}
		opt := JobOptions{Priority: PriorityBackground + 1,
			OnPart: func(ctx app.Context, m wire.Message, w Affinity) {
				c.take(row, m)
				c.Update()
			}}
		st.submit(ctx, wire.KindFit, req, &wire.Part{}, opt, func(ctx app.Context, e jobEnd) {
			st.done++
			st.rows[row].done = true
			switch {
			case e.cancelled:
				st.rows[row].err = "cancelled"
				st.errMsg = "Comparison cancelled."
			case e.err != nil:
				st.rows[row].err = e.err.Error()
			default:
				c.take(row, e.msg)
			}
			if e.last {
				st.seconds = e.seconds
			}
			c.Update()
		})
	}
	c.Update()
}

func (c *ComparePanel) take(row int, m wire.Message) {
	st := &c.S.cmp
	var p wire.Part
	bin, err := m.Decode(&p)
	if err != nil {
		st.rows[row].err = err.Error()
		return
	}
	st.rows[row].parts++
	if p.Fit != nil {
		st.rows[row].res, st.rows[row].resSeq = p.Fit, nextSeq()
	}
	if p.Grid != nil && p.Grid.View != "B" {
		if mv, err := decodeMap(p.Grid, bin); err == nil {
			st.rows[row].mv = mv
		}
	}
}

func (c *ComparePanel) results() app.UI {
	s := c.S
	st := &s.cmp
	if len(st.rows) == 0 {
		return nil
	}
	metric, isTags := "Test accuracy", false
	for _, r := range st.rows {
		if r.res != nil && r.res.Scores.TestTags != nil {
			metric, isTags = "Test micro F1", true
		}
	}
	score := func(r *wire.FitResult) float64 {
		if isTags && r.Scores.TestTags != nil {
			return r.Scores.TestTags.Micro.F1
		}
		return r.Scores.TestAcc
	}
	fmtScore := func(x float64) string {
		if isTags {
			return f3(x)
		}
		return pct(x)
	}
	stale := st.forKey != s.set.DataKey()
	cls := "compare-results"
	if stale {
		cls += " stale"
	}
	return app.Div().Class(cls).Body(
		app.If(stale, app.P().Class("stale-note").Text("Out of date: computed on "+st.set.DataLabel()+". Press Compare to update.")),
		app.Div().Class("table-scroll").Body(app.Table().ID("compare-table").Class("compare-table").Body(
			app.Caption().Text(fmt.Sprintf("%d models on %s, one split (%d %% training rows)", len(st.rows), st.set.DataLabel(), st.set.TrainPct)),
			app.THead().Body(app.Tr().Body(
				app.Th().Scope("col").Text("Model"), app.Th().Scope("col").Text(metric),
				app.Th().Scope("col").Text(metric+" (bar: 0 to 100 %)"), app.Th().Scope("col").Text("Train"),
				app.Th().Scope("col").Text("Training time"), app.Th().Scope("col").Text("Support"), app.Th().Scope("col").Text("Converged"),
			)),
			app.TBody().Body(app.Range(st.rows).Slice(func(i int) app.UI {
				r := st.rows[i]
				name := r.model
				m, _ := spec.Lookup(r.model)
				if m != nil {
					name = m.Name
				}
				switch {
				case r.res == nil && r.err != "":
					return app.Tr().Body(app.Th().Scope("row").Text(name), app.Td().ColSpan(6).Class("error").Text(r.err))
				case r.res == nil:
					return app.Tr().Body(app.Th().Scope("row").Text(name), app.Td().ColSpan(6).Class("help").Text("running…"))
				}
				res := r.res
				sc := score(res)
				conv := "yes"
				if !res.Report.Converged {
					conv = "no"
				}
				support := "—"
				if m != nil && m.Support != "" {
					support = strconv.Itoa(res.Report.NSupport)
				}
				train := res.Scores.TrainAcc
				if isTags && res.Scores.TrainTags != nil {
					train = res.Scores.TrainTags.Micro.F1
				}
				return app.Tr().Body(
					app.Th().Scope("row").Text(name),
					app.Td().Class("cmp-score").Text(fmtScore(sc)),
					app.Td().Class("barcell").Body(
						app.Div().Class("bartrack").Body(app.Div().Class("bar").Style("width", fmt.Sprintf("%.1f%%", 100*sc))),
					),
					app.Td().Text(fmtScore(train)),
					app.Td().Text(seconds(res.Timing.Fit)),
					app.Td().Text(support),
					app.Td().Text(conv),
				)
			})),
		)),
		app.If(!st.running() && st.seconds > 0, app.P().Class("help").Text(fmt.Sprintf("Wall time %s on %d compute workers.", seconds(st.seconds), PoolSize()))),
		// One thumbnail per row, in the rows' order (the models' as listed),
		// from the start: a model still running has a placeholder, so a
		// slow model that finishes fills its own place and moves no other.
		app.Div().ID("compare-thumbs").Class("thumbs").Body(app.Range(st.rows).Slice(func(i int) app.UI {
			r := st.rows[i]
			return &Thumb{Row: &st.rows[i], ID: "thumb-" + r.model, Set: st.set, Ver: r.parts, Err: r.err, Done: r.done}
		})),
	)
}

// Thumb is a small picture of one compared model: its map when the data is
// 2-D, else its points on the principal components; a placeholder that
// says so while the model runs or when it failed.
type Thumb struct {
	app.Compo
	Row  *compareRow
	ID   string
	Set  Settings
	Ver  int    // the row's parts: a change redraws
	Err  string // the row's error ("cancelled" too)
	Done bool   // the row's fit ended
}

const thumbSize = 170

// thumbCaption is what a thumbnail's caption says of its row: the model's
// name, and why there is no picture yet (running, cancelled, failed) or
// what the picture shows when it is not a map.
func thumbCaption(r *compareRow) (caption, label string) {
	name := r.model
	if m, err := spec.Lookup(r.model); err == nil {
		name = m.Name
	}
	switch {
	case r.res != nil && r.res.Plot.Projected:
		note := " (points on 2 principal components; no map in " + strconv.Itoa(r.res.Data.Dim) + " dimensions)"
		return name + note, name + " decision map" + note
	case r.res != nil:
		return name, name + " decision map"
	case r.err == "cancelled":
		return name + " — cancelled", name + ": cancelled, no picture"
	case r.err != "":
		return name + " — failed", name + ": failed, no picture"
	}
	return name + " — running…", name + ": running, no picture yet"
}

// Render implements app.Composer.
func (t *Thumb) Render() app.UI {
	caption, label := thumbCaption(t.Row)
	cls := "thumb"
	if t.Row.res == nil {
		cls += " pending"
	}
	return app.Figure().Class(cls).DataSet("model", t.Row.model).Body(
		app.Canvas().ID(t.ID).Role("img").Aria("label", label),
		app.FigCaption().Text(caption),
	)
}

// OnMount draws the thumbnail.
func (t *Thumb) OnMount(ctx app.Context) { paintLater(ctx, t, t.draw) }

// OnUpdate redraws it when what it shows changed (in a task of its own).
func (t *Thumb) OnUpdate(ctx app.Context) { paintLater(ctx, t, t.draw) }

func (t *Thumb) draw(ctx app.Context) {
	canvas := app.Window().GetElementByID(t.ID)
	if !canvas.Truthy() {
		return
	}
	if t.Row.res == nil {
		// a placeholder: blank, also where an earlier comparison drew
		if canvas.Get("lupiDrawn").Truthy() {
			canvas.Set("lupiDrawn", "")
			canvas.Set("width", canvas.Get("width"))
		}
		return
	}
	// the canvas remembers what it shows: a page update that changed
	// nothing of it draws nothing
	key := fmt.Sprintf("%d|%d|%v", t.Row.resSeq, t.Row.mv.id(), app.Window().Get("devicePixelRatio").Float())
	if canvas.Get("lupiDrawn").String() == key {
		return
	}
	canvas.Set("lupiDrawn", key)
	sh := &shown{set: t.Set, res: t.Row.res, maps: map[string]*mapView{}}
	if t.Row.mv != nil {
		sh.maps["A"] = t.Row.mv
	}
	fm := buildFigure(sh, sh, true, "A", 0, "", nil, nil, false)
	if fm == nil {
		return
	}
	ratio := app.Window().Get("devicePixelRatio").Float()
	if ratio <= 0 {
		ratio = 1
	}
	l := layoutFor(thumbSize, true)
	canvas.Get("style").Set("width", fmt.Sprintf("%dpx", thumbSize))
	canvas.Get("style").Set("height", fmt.Sprintf("%dpx", thumbSize))
	drawFigure(newCanvasPainter(canvas, l.w, l.h, ratio), fm, l)
}
