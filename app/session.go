package app

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/datasets"
	"lupilab/models/spec"
	"lupilab/models/wire"
)

// session is the playground's state and what it does: the settings, the
// result on screen and the settings it was computed with, the running fit,
// and the components that show them. Components hold a pointer to it and
// are redrawn by refresh; the session never computes — it submits jobs to
// the compute workers.
//
// The result on screen is always labelled with what it was computed on: when
// the settings change, it is marked out of date (dimmed, with its settings
// in words) until the new fit lands; a failed or cancelled fit leaves it so.
type session struct {
	set Settings

	index    []datasets.IndexEntry
	indexErr string
	upload   *uploaded
	// uploadTags is set when the upload has tags rather than classes.
	uploadTags bool

	fit     fitJob
	shown   *shown
	preview *shown // the current data's points, before any fit on it
	message string // a notice (restored session, switched data, …)
	// linkNotes lists what the page's address asked for and did not get
	// (an unknown dataset, model or parameter, a value out of range), each
	// with what is used instead; shown in one notice until dismissed.
	linkNotes []Ignored

	// exportStatus and exportErr are the export bar's last message (kept
	// here so that a re-created bar still shows it).
	exportStatus, exportErr string

	computeReady bool
	computeErr   string
	views        []app.Composer
	// redraw lists the views refresh has yet to redraw, one a frame
	// (redrawNext).
	redraw    []app.Composer
	redrawing app.UI // the Shell the chain's next step waits on, nil when idle

	cmp  compareState
	tune tuneState

	// fieldErrs holds the form's refused values (field id → message): while
	// any is there, no fit starts.
	fieldErrs map[string]string

	in interaction // the canvas tools, zoom and tooltip

	tagShown  int    // the tag a multi-label map shows
	layerPick string // the map layer chosen (GP: probability, mean, variance)

	// embedded is set for a tour's canvas: its settings stay out of the
	// link and of the saved session.
	embedded bool

	debounce int
	// watching redraws the boundary while a model trains ("Watch it
	// learn"); refit makes the next startFit train even when the result
	// on screen is already for the current settings.
	watching, refit bool
	replay          replay // a watched fit's pace (trace.go)
	// live is on while the user drags a slider or a point on small data:
	// fits follow without the debounce, the latest settings winning.
	live bool
}

// uploaded is the user's file, parsed by a worker into canonical CSV.
type uploaded struct {
	name, csv, summary string
	rows, dim, zdim    int
	classes, tags      int // counts (0 when not known)
}

// fitJob is the running fit, if any.
type fitJob struct {
	job      *Job
	set      Settings
	key      string
	started  time.Time
	progress wire.Progress
	est      estimate // the cost model's prediction (est.Native == 0: none)
	// watch holds the latest snapshot's map of a watched fit, trace its
	// snapshots' measures so far.
	watch  *shown
	trace  []wire.Snapshot
	errMsg string // the last fit's error, for errKey's settings
	errKey string
	// next holds settings to fit once the running job has stopped (the
	// latest change wins; intermediate ones are dropped).
	next *Settings
}

// shown is a result on screen and the settings it was computed with.
type shown struct {
	seq    uint64 // identifies it in keys (an address can be reused once it is freed)
	set    Settings
	key    string
	res    *wire.FitResult
	maps   map[string]*mapView // by view: "A", "B"
	worker Affinity
	at     time.Time
	est    estimate        // what the fit was predicted to take (zero: no prediction)
	trace  []wire.Snapshot // the watched fit's snapshots, when it was watched
	// skipped: the user skipped the watched fit to its end (trace.go)
	skipped bool
}

// mapView is one decoded map.
type mapView struct {
	seq    uint64 // identifies it in keys
	g      *wire.GridResult
	layers map[string][]float64
	// of is the result a zoomed window's map was computed for: another
	// result (a new fit, other data) does not show it.
	of *shown
}

// seqNext numbers the results, maps and figures the page builds: keys that
// say "what is shown" use these numbers, not addresses, which Go reuses once
// an object is freed (a figure keyed by an address could then skip the
// repaint of a new model that landed where an old one was).
var seqNext uint64

func nextSeq() uint64 {
	seqNext++
	return seqNext
}

// id is the map's number (0 for none).
func (m *mapView) id() uint64 {
	if m == nil {
		return 0
	}
	return m.seq
}

// seqOf is the result's number (0 for none).
func seqOf(sh *shown) uint64 {
	if sh == nil {
		return 0
	}
	return sh.seq
}

func newSession() *session {
	return &session{set: DefaultSettings(), fieldErrs: map[string]string{}}
}

// register adds a component that shows the session.
func (s *session) register(c app.Composer) {
	for _, v := range s.views {
		if v == c {
			return
		}
	}
	s.views = append(s.views, c)
}

func (s *session) unregister(c app.Composer) {
	for i, v := range s.views {
		if v == c {
			s.views = append(s.views[:i], s.views[i+1:]...)
			return
		}
	}
}

// refresh redraws every component showing the session, one a frame
// (redrawNext), the progress lines first, then the figures, then the
// result table, then the rest. go-app renders every component marked for
// update in one frame, a browser task of its own: a fit's end redrew the
// status, figures, table, form, data panel and export bar in one task of
// 20–25 ms of CPU, which two busy workers on a 2-core machine stretched
// past 50 ms. Several refreshes before a view's turn redraw it once.
func (s *session) refresh() {
	for _, v := range s.views {
		if v.Mounted() && !slices.Contains(s.redraw, v) {
			s.redraw = append(s.redraw, v)
		}
	}
	slices.SortStableFunc(s.redraw, func(a, b app.Composer) int { return redrawRank(a) - redrawRank(b) })
	if s.redrawing == nil || !s.redrawing.Mounted() { // go-app drops a dispatch of an unmounted source
		s.redrawNext()
	}
}

// redrawRank orders the views refresh redraws: what a user looks at
// first comes first.
func redrawRank(v app.Composer) int {
	switch v.(type) {
	case progressView:
		return 0
	case *ResultView:
		return 1
	case *Metrics:
		return 2
	}
	return 3
}

// redrawNext marks the next view for go-app's next frame and, once that
// frame has rendered it (a deferred dispatch runs after the frame's
// renders), the one after. Without the page's Shell (before it mounts, or
// outside a browser) every view is marked at once.
func (s *session) redrawNext() {
	for len(s.redraw) > 0 {
		v := s.redraw[0]
		s.redraw = s.redraw[1:]
		if !v.Mounted() {
			continue
		}
		v.Update()
		if page == nil || !page.Src().Mounted() {
			continue
		}
		if s.redrawing == nil {
			setRedrawing(true)
		}
		s.redrawing = page.Src()
		page.Dispatcher().Dispatch(app.Dispatch{Mode: app.Defer, Source: page.Src(), Function: func(app.Context) { s.redrawNext() }})
		return
	}
	if s.redrawing != nil {
		setRedrawing(false)
	}
	s.redrawing = nil
}

// setRedrawing tells the page's scripts whether views wait for their
// redraw (window.lupiRedrawing): the loader worker's warm-up (web/warm.js)
// runs until a replayed fit is drawn, which takes a frame per view.
func setRedrawing(on bool) {
	if runtime.GOOS == "js" {
		app.Window().Set("lupiRedrawing", on)
	}
}

// progressView is a component that shows a running job's progress: only
// these are redrawn on a progress message (refreshProgress), not the
// figures and tables.
type progressView interface {
	app.Composer
	showsProgress()
}

// refreshProgress redraws the progress lines.
func (s *session) refreshProgress() {
	for _, v := range s.views {
		if pv, ok := v.(progressView); ok && pv.Mounted() {
			pv.Update()
		}
	}
}

// spec returns the current model's catalogue entry.
func (s *session) spec() *spec.Spec {
	m, err := spec.Lookup(s.set.Model)
	if err != nil {
		return nil
	}
	return m
}

// stale reports whether the result on screen was computed with other
// settings than the current ones.
func (s *session) stale() bool {
	return s.shown != nil && s.shown.key != s.set.FitKey()
}

// busy reports whether a fit runs.
func (s *session) busy() bool { return s.fit.job != nil }

// csv returns the uploaded data's CSV for the current source.
func (s *session) csv() string {
	if s.upload != nil && strings.HasPrefix(s.set.Source, "up:") {
		return s.upload.csv
	}
	return ""
}

// dataInfo describes the current data from the catalogue without loading it:
// rows, main and second-block features, classes (0 if unknown).
func (s *session) dataInfo() (rows, dim, zdim, classes int, kind datasets.Kind) {
	switch {
	case s.set.IsGenerated():
		g, _ := datasets.GeneratorByName(strings.TrimPrefix(s.set.Source, "gen:"))
		zd := 0
		switch g.Kind {
		case datasets.KindLUPI:
			zd = 3
		case datasets.KindTwoView:
			zd = 2
		}
		return s.set.N + len(s.set.Edits), 2, zd, g.Classes, g.Kind
	case strings.HasPrefix(s.set.Source, "ds:"):
		for _, e := range s.index {
			if e.Name == strings.TrimPrefix(s.set.Source, "ds:") {
				return e.Rows, e.XColumns, e.ZColumns, len(e.Classes), e.Kind
			}
		}
	case s.upload != nil:
		kind := datasets.KindPlain
		if s.uploadTags {
			kind = datasets.KindMultiLabel
		}
		return s.upload.rows, s.upload.dim, s.upload.zdim, s.upload.classes, kind
	}
	return 0, 0, 0, 0, ""
}

// tagCount is the number of tags of multi-label data (0 otherwise or when
// not known).
func (s *session) tagCount() int {
	switch {
	case strings.HasPrefix(s.set.Source, "ds:"):
		for _, e := range s.index {
			if e.Name == strings.TrimPrefix(s.set.Source, "ds:") {
				return len(e.Tags)
			}
		}
	case s.upload != nil && s.uploadTags:
		return s.upload.tags
	}
	return 0
}

// compatible says whether the current model can use the current data, from
// the catalogues alone ("" when it can or when it cannot be told).
func (s *session) compatible(m *spec.Spec) string {
	why, _ := s.mismatch(m)
	return why
}

// needs says, in a model list's few words, what data a model needs that
// the current data is not ("" when it suits it or cannot be told).
func (s *session) needs(m *spec.Spec) string {
	_, short := s.mismatch(m)
	return short
}

// mismatch is why model m cannot use the current data, as a sentence (why)
// and in a model list's few words (short); both "" when it can or when it
// cannot be told.
func (s *session) mismatch(m *spec.Spec) (why, short string) {
	rows, _, zdim, _, kind := s.dataInfo()
	if rows == 0 {
		return "", ""
	}
	switch {
	case m.Task == spec.MultiLabel && kind != datasets.KindMultiLabel && kind != "":
		return m.Name + " predicts tag sets: this data has no tags", "needs tagged data"
	case m.Task != spec.MultiLabel && kind == datasets.KindMultiLabel:
		return m.Name + " is a classifier: this data has tags, not classes", "needs classes, not tags"
	case m.Z != spec.ZNone && zdim == 0 && kind != "":
		short = "needs privileged features"
		if m.Z == spec.ZView {
			short = "needs two views"
		}
		return m.Name + " needs a second feature block (privileged features or view B): this data has none", short
	}
	return "", ""
}

// checkDataset replaces a shipped dataset that the index does not list (a
// mistyped link, or a dataset since removed) by generated data the model
// can use, and says so in the link's notice. Before the index has loaded,
// or when it failed to, nothing can be told.
func (s *session) checkDataset(ctx app.Context) {
	name, ok := strings.CutPrefix(s.set.Source, "ds:")
	if !ok || s.index == nil {
		return
	}
	for _, e := range s.index {
		if e.Name == name {
			return
		}
	}
	g := DefaultSettings().Source
	if m := s.spec(); m != nil {
		g = "gen:" + m.DefaultGenerator()
	}
	s.linkNotes = append([]Ignored{{Key: "data", Value: s.set.Source, // first, as DecodeSettings lists it
		Why: fmt.Sprintf("no such dataset; %s is used instead", generatorTitle(g))}}, s.linkNotes...)
	s.set.Source, s.set.Edits = g, nil
	if s.computeReady {
		s.changed(ctx)
		return
	}
	s.saveState(ctx) // the fit starts once a worker is ready
	s.refresh()
}

// changed records new settings: the link and local storage follow, the
// result on screen becomes out of date, and a cheap fit starts after a short
// pause (at once in live mode); an expensive one waits for Train.
func (s *session) changed(ctx app.Context) {
	s.saveState(ctx)
	if s.set.View != "model" {
		s.refresh()
		return
	}
	if s.preview != nil && s.preview.set.DataKey() != s.set.DataKey() {
		s.preview = nil
	}
	if s.shown == nil || s.shown.set.DataKey() != s.set.DataKey() {
		s.requestPreview(ctx)
	}
	if !s.autoTrain() {
		s.refresh()
		return
	}
	if s.live {
		s.startFit(ctx)
		return
	}
	s.debounce++
	mine := s.debounce
	s.refresh()
	ctx.After(300*time.Millisecond, func(ctx app.Context) {
		if mine == s.debounce {
			s.startFit(ctx)
		}
	})
}

// fitFormRefused says whether a box of the data or model form holds a
// value it refused: no fit starts then. Tune's own boxes (tune-…) hold up
// only its grid.
func (s *session) fitFormRefused() bool {
	for id := range s.fieldErrs {
		if !strings.HasPrefix(id, "tune-") {
			return true
		}
	}
	return false
}

// autoTrain says whether the current settings may train without a click:
// valid, compatible, and estimated to take about 2 s at most.
func (s *session) autoTrain() bool {
	m := s.spec()
	if m == nil || s.compatible(m) != "" || s.fitFormRefused() {
		return false
	}
	est, ok := s.estimate()
	return !ok || est.Seconds <= autoTrainSeconds
}

// autoTrainSeconds is the longest estimated fit that starts by itself.
const autoTrainSeconds = 2.0

// saveState writes the settings into the URL and local storage (and the
// header's Playground link, which returns to them).
func (s *session) saveState(ctx app.Context) {
	if s.embedded {
		return
	}
	q := s.set.Encode()
	u := *ctx.Page().URL()
	if tab := u.Query().Get("tab"); tab != "" {
		q.Set("tab", tab)
	}
	u.RawQuery = q.Encode()
	ctx.Page().ReplaceURL(&u)
	ctx.LocalStorage().Set(sessionKey, s.set.Encode().Encode())
	setPlayAddress(s.set.Encode().Encode())
}

// sessionKey is the local-storage key of the last session (the same query
// string the URL carries).
const sessionKey = "lupilab.session"

// mapSide is the number of map cells a side: one cell per 2 CSS pixels of
// the largest plot the page draws.
const (
	mapSide    = 260
	mapPreview = 50
)

// fitRequest is what the playground asks the pool to fit for set (csv: the
// uploaded data's text, for an uploaded source).
func fitRequest(set Settings, csv string, watch bool) wire.FitRequest {
	return wire.FitRequest{Data: set.Data(csv), Split: set.Split(), Model: set.Model, Params: set.Values(),
		AdaptWidths: true, Keep: true, Grid: &wire.GridSpec{Side: mapSide, Preview: mapPreview}, Watch: watch}
}

// pointsRequest asks for set's data points, shown before a fit ends.
func pointsRequest(set Settings, csv string) wire.PointsRequest {
	return wire.PointsRequest{Data: set.Data(csv), Split: set.Split(), Model: set.Model}
}

// FirstVisitRequests returns what the playground of a first visit asks the
// pool for, by the request's kind: its default data's points, the
// device's calibration and the fit of its default settings.
// scripts/warmfit records the compute engine's answers for the UI build's
// warm-up (web/warm.js), which replays them.
func FirstVisitRequests() (points wire.PointsRequest, calibration, fit wire.FitRequest) {
	set := DefaultSettings()
	return pointsRequest(set, ""), calibrationFit, fitRequest(set, "", false)
}

// startFit fits the current settings unless the result on screen or the
// running fit is already theirs. A running fit for other settings is
// cancelled: the latest settings win.
func (s *session) startFit(ctx app.Context) {
	key := s.set.FitKey()
	if s.fit.job != nil {
		if s.fit.key == key {
			return
		}
		next := s.set.Clone()
		s.fit.next = &next
		s.fit.job.Cancel()
		return
	}
	if s.shown != nil && s.shown.key == key && s.fit.errKey != key && !s.refit {
		return
	}
	m := s.spec()
	if m == nil {
		return
	}
	if why := s.compatible(m); why != "" {
		s.fit.errMsg, s.fit.errKey = why+".", key
		s.refresh()
		return
	}
	set := s.set.Clone()
	req := fitRequest(set, s.csv(), s.watching)
	if s.watching {
		req.WatchSpeed = s.replay.current()
	}
	s.refit = false
	first := stageStarting
	if !s.computeReady {
		first = stageWaiting
	}
	s.fit = fitJob{set: set, key: key, started: time.Now(), progress: wire.Progress{Fraction: 0, Stage: first}}
	est, _ := s.estimate()
	s.fit.est = est
	var job *Job
	job = Submit(ctx, wire.KindFit, req, nil, JobOptions{
		Priority: PriorityInteractive,
		OnProgress: func(ctx app.Context, p wire.Progress) {
			if s.fit.job == job {
				s.fit.progress = p
				s.refreshProgress()
			}
		},
		OnPart: func(ctx app.Context, m wire.Message, w Affinity) {
			if s.fit.job == job {
				prev := s.shown
				s.takePart(m, set, key, w)
				s.rezoom(ctx, prev)
				s.refresh()
			}
		},
		OnEnd: func(ctx app.Context, m wire.Message, w Affinity) {
			if s.fit.job != job {
				return
			}
			next, trace := s.fit.next, s.fit.trace
			s.fit.job, s.fit.next, s.fit.watch, s.fit.trace = nil, nil, nil, nil
			var p wire.Part
			_, cancelled, err := decodeEnd(m, &p)
			switch {
			case cancelled:
				if next == nil {
					s.fit.errMsg, s.fit.errKey = "Training cancelled.", key
				}
			case err != nil:
				s.fit.errMsg, s.fit.errKey = err.Error(), key
			default:
				s.fit.errMsg, s.fit.errKey = "", ""
				prev := s.shown
				s.takePart(m, set, key, w)
				s.rezoom(ctx, prev)
				if s.shown != nil && s.shown.key == key && s.shown.res != nil {
					s.shown.est, s.shown.trace = est, trace
					s.shown.skipped = s.replay.skipped == job
					if est.Penalty <= 1.5 { // a large penalty's ratio measures the data, not the device
						deviceSpeed.add(set.Model, est.Native, s.shown.res.Timing.Fit)
						deviceSpeed.save(ctx)
					}
				}
			}
			if next != nil && next.FitKey() == s.set.FitKey() {
				s.startFit(ctx)
			}
			s.refresh()
		},
	})
	s.fit.job = job
	s.refresh()
}

// takePart adds a fit's part (its result or a map) to the screen.
func (s *session) takePart(m wire.Message, set Settings, key string, w Affinity) {
	var p wire.Part
	bin, err := m.Decode(&p)
	if err != nil {
		s.fit.errMsg, s.fit.errKey = err.Error(), key
		return
	}
	s.takeDecoded(&p, bin, set, key, w)
}

// takeDecoded is takePart for a part already decoded (p, with its binary
// parts bin).
func (s *session) takeDecoded(p *wire.Part, bin *wire.Bin, set Settings, key string, w Affinity) {
	if p.Snapshot != nil {
		// a watched fit's iterate: its measure, and its map under the
		// points until the result comes
		s.fit.trace = append(s.fit.trace, *p.Snapshot)
		if s.fit.progress.Stage == stageStarting || s.fit.progress.Stage == stageWaiting {
			s.fit.progress.Stage = "training" // a watched fit's first iterate came before any progress
		}
		if p.Grid != nil {
			if mv, err := decodeMap(p.Grid, bin); err == nil {
				s.fit.watch = &shown{seq: nextSeq(), set: set, key: key, maps: map[string]*mapView{p.Grid.View: mv}, at: time.Now()}
			}
		}
		return
	}
	if p.Fit != nil {
		s.shown = &shown{seq: nextSeq(), set: set, key: key, res: p.Fit, maps: map[string]*mapView{}, worker: w, at: time.Now()}
		exposeResult(p.Fit, set)
	}
	if p.Grid != nil && s.shown != nil && s.shown.key == key {
		mv, err := decodeMap(p.Grid, bin)
		if err != nil {
			s.fit.errMsg, s.fit.errKey = err.Error(), key
			return
		}
		if old := s.shown.maps[p.Grid.View]; old == nil || !p.Grid.Preview || old.g.Preview {
			s.shown.maps[p.Grid.View] = mv
		}
	}
}

func decodeMap(g *wire.GridResult, bin *wire.Bin) (*mapView, error) {
	mv := &mapView{seq: nextSeq(), g: g, layers: map[string][]float64{}}
	for _, l := range g.Layers {
		v, err := bin.Floats(l.Values)
		if err != nil {
			return nil, err
		}
		if len(v) != g.W*g.H {
			return nil, fmt.Errorf("map layer %s: %d values for %d×%d cells", l.Name, len(v), g.W, g.H)
		}
		mv.layers[l.Name] = v
	}
	return mv, nil
}

// cancelFit stops the running fit.
func (s *session) cancelFit() {
	if s.fit.job != nil {
		s.fit.next = nil
		s.fit.job.Cancel()
	}
}

// requestPreview asks a worker for the current data's points, so that the
// data is on screen before (or without) a fit.
func (s *session) requestPreview(ctx app.Context) {
	if !s.computeReady {
		return
	}
	set := s.set.Clone()
	req := pointsRequest(set, s.csv())
	Submit(ctx, wire.KindPoints, req, nil, JobOptions{Priority: PriorityInteractive + 1,
		OnEnd: func(ctx app.Context, m wire.Message, w Affinity) {
			var res wire.FitResult
			if _, _, err := decodeEnd(m, &res); err != nil || res.Plot.Train.X == nil {
				return
			}
			if set.DataKey() == s.set.DataKey() {
				s.preview = &shown{seq: nextSeq(), set: set, key: "", res: &res, at: time.Now()}
				s.refresh()
			}
		}})
}

// errorFor returns the last fit's error when it is about the current
// settings.
func (s *session) errorFor() string {
	if s.fit.errKey == s.set.FitKey() {
		return s.fit.errMsg
	}
	return ""
}

// exposeResult makes window.__lupiResult read {model, params, ...} (the
// parameters the result on screen used, data-dependent widths included, and
// the point edits it was trained on): a hook for the browser tests, which
// compare with the CLI and wait for the result of their own edit. It is a
// getter (web/boot.js's lupiExpose) that builds the object when read:
// building it for every result cost the page's main thread tens of
// milliseconds on a few thousand points, for a hook nobody reads.
func exposeResult(r *wire.FitResult, set Settings) {
	if runtime.GOOS != "js" {
		return
	}
	exposed.r, exposed.edits = r, EncodeEdits(set.Edits)
	if exposed.get != nil {
		return
	}
	if !app.Window().Get("lupiExpose").Truthy() { // the loader worker's warm-up: no hook there
		return
	}
	exposed.get = app.FuncOf(func(app.Value, []app.Value) any {
		r := exposed.r
		b, _ := json.Marshal(map[string]any{"model": r.Model, "params": r.Params, "objective": r.Report.Objective, "edits": exposed.edits,
			"train": map[string]any{"x": r.Plot.Train.X, "y": r.Plot.Train.Y, "row": r.Plot.Train.Row, "difficulty": r.Plot.Train.Difficulty}})
		return string(b)
	})
	app.Window().Call("lupiExpose", "__lupiResult", exposed.get)
}

// exposed is what window.__lupiResult reads (exposeResult).
var exposed struct {
	r     *wire.FitResult
	edits string
	get   app.Func
}
