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

// The canvas is an instrument: hover (or tap) a point to read its numbers;
// zoom with the wheel (or pinch), pan by dragging the background, reset;
// on generated 2-D data, add, move and erase points and paint how hard the
// privileged features say a point is. Edits are settings like any other:
// they live in the link, and small data refits as the point is dragged.
//
// On a touch screen the plot behaves as map widgets do: one finger scrolls
// the page (the plot often fills a phone's width, and a thumb that scrolls
// must not get stuck in it) and taps read, add or erase points; two fingers
// pan and pinch-zoom the plot. The stylesheet lets the browser pan the page
// on the canvas (touch-action: pan-x pan-y) and the touchmove listener
// cancels that for two fingers. The drag tools (Move, Difficulty brush)
// take one finger too (touch-action: none while they are chosen). A mouse
// or a pen drags and pans as before.
//
// Pointer events come with their canvas position and pointer type; the
// handlers run on the UI goroutine (dispatched), except the touch
// listeners, which must decide within the event whether to cancel it.

// Tools.
const (
	toolLook  = "look"
	toolAdd   = "add"
	toolMove  = "move"
	toolErase = "erase"
	toolHard  = "hard"
)

// interaction is the session's canvas state.
type interaction struct {
	tool      string
	addClass  int
	hardValue float64
	redo      []wire.Edit
	// redoFor is the data (editsKey) the redo stack was made on: once the
	// data or its edits change otherwise (another dataset, a reset, a link),
	// the stack no longer applies and canRedo clears it.
	redoFor string
	// zoom holds a view's window when the user zoomed or panned it; zoomMap
	// the model's map over that window once a worker computed it.
	zoom    map[string]*[4]float64
	zoomMap map[string]*mapView
	zoomJob map[string]*Job
	zoomSeq int
	tip     *tooltip
	// hint is the view whose "use two fingers" note shows (after a
	// one-finger drag on it), hintAt when it was last shown.
	hint    string
	hintSeq int
	hintAt  time.Time
}

type tooltip struct {
	view  string
	x, y  float64 // CSS pixels in the canvas
	lines []string
}

func (in *interaction) init() {
	if in.zoom == nil {
		in.tool, in.hardValue = toolLook, 1
		in.zoom, in.zoomMap, in.zoomJob = map[string]*[4]float64{}, map[string]*mapView{}, map[string]*Job{}
	}
}

// editable reports whether the current data can be edited on the canvas.
func (s *session) editable() bool {
	return s.set.IsGenerated()
}

// addEdit appends an edit (a move of the row just moved replaces the last
// one, so a drag makes one edit) and refits.
func (s *session) addEdit(ctx app.Context, e wire.Edit, live bool) {
	n := len(s.set.Edits)
	if e.Op == "move" && n > 0 && s.set.Edits[n-1].Op == "move" && s.set.Edits[n-1].Index == e.Index {
		s.set.Edits[n-1] = e
	} else if e.Op == "hard" && n > 0 && s.set.Edits[n-1].Op == "hard" && s.set.Edits[n-1].Index == e.Index {
		s.set.Edits[n-1] = e
	} else {
		if n >= MaxEdits {
			s.message = fmt.Sprintf("At most %d edits: reset to the generated data to start again.", MaxEdits)
			s.refresh()
			return
		}
		s.set.Edits = append(s.set.Edits, e)
	}
	s.in.redo = nil
	s.live = live && s.liveAllowed()
	s.changed(ctx)
	s.live = false
}

// undo moves the last edit to the redo stack.
func (s *session) undo(ctx app.Context) {
	if !s.canRedo() {
		s.in.redo = nil
	}
	if moveLast(&s.set.Edits, &s.in.redo) {
		s.in.redoFor = s.editsKey()
		s.changed(ctx)
	}
}

// redoEdit moves the last undone edit back to the edits, if the data are
// still those it was undone from.
func (s *session) redoEdit(ctx app.Context) {
	if s.canRedo() && moveLast(&s.in.redo, &s.set.Edits) {
		s.in.redoFor = s.editsKey()
		s.changed(ctx)
	}
}

// canRedo reports whether there is an undone edit to redo on the current
// data; a redo stack left from other data (or from edits since reset) is
// dropped.
func (s *session) canRedo() bool {
	if len(s.in.redo) > 0 && s.in.redoFor != s.editsKey() {
		s.in.redo, s.in.redoFor = nil, ""
	}
	return len(s.in.redo) > 0
}

// editsKey identifies the generated points and the edits made to them (not
// the split, which leaves the edits as they are).
func (s *session) editsKey() string {
	return fmt.Sprintf("%s|%d|%g|%d|%v", s.set.Source, s.set.N, s.set.Noise, s.set.Seed, s.set.Edits)
}

// moveLast moves the last edit of from to the end of to; false when from is
// empty.
func moveLast(from, to *[]wire.Edit) bool {
	n := len(*from)
	if n == 0 {
		return false
	}
	*to = append(*to, (*from)[n-1])
	*from = (*from)[:n-1]
	return true
}

// setZoom sets a view's window and asks for the map over it.
func (s *session) setZoom(ctx app.Context, view string, fr *[4]float64) {
	s.in.init()
	s.in.zoom[view] = fr
	s.in.zoomSeq++
	mine := s.in.zoomSeq
	s.refresh()
	if fr == nil {
		return
	}
	// Ask for the map once the wheel or the drag pauses.
	ctx.After(120*time.Millisecond, func(ctx app.Context) {
		if mine != s.in.zoomSeq {
			return
		}
		s.requestZoomMap(ctx, view, *fr)
	})
}

func (s *session) requestZoomMap(ctx app.Context, view string, fr [4]float64) {
	sh := s.shown
	if sh == nil || s.stale() || (sh.res.Handle == "" && sh.res.Saved == "") {
		return
	}
	if j := s.in.zoomJob[view]; j != nil {
		j.Cancel()
	}
	ref := sh.set.Data(s.csv())
	req := wire.GridRequest{Handle: sh.res.Handle, Saved: sh.res.Saved, Data: &ref, Split: sh.set.Split(), View: view, Frame: fr, Side: mapSide}
	var job *Job
	job = Submit(ctx, wire.KindGrid, req, nil, JobOptions{Priority: PriorityInteractive, Affinity: &sh.worker,
		OnEnd: func(ctx app.Context, m wire.Message, w Affinity) {
			if s.in.zoomJob[view] == job {
				delete(s.in.zoomJob, view)
			}
			var g wire.GridResult
			bin, _, err := decodeEnd(m, &g)
			if err != nil || bin == nil || s.shown != sh {
				return
			}
			mv, err := decodeMap(&g, bin)
			if err != nil {
				return
			}
			mv.of = sh
			s.in.zoomMap[view] = mv
			s.refresh()
		}})
	s.in.zoomJob[view] = job
}

// zoomMapFor returns the map over a zoomed window when one matches the
// window and the result whose map the figure shows (a map of the former
// fit stayed under a new fit's points until the view was reset).
func (s *session) zoomMapFor(view string) *mapView {
	s.in.init()
	z, mv := s.in.zoom[view], s.in.zoomMap[view]
	if z == nil || mv == nil || mv.g.Frame != *z {
		return nil
	}
	if _, maps, _ := s.figureSources(); maps == nil || mv.of != maps {
		return nil
	}
	return mv
}

// rezoom asks for the maps of the zoomed windows when a new result (not
// prev) came: until they come, the figure shows the result's own map.
func (s *session) rezoom(ctx app.Context, prev *shown) {
	if s.shown == prev || s.shown == nil {
		return
	}
	s.in.init()
	for _, view := range []string{"A", "B"} {
		if z := s.in.zoom[view]; z != nil {
			s.requestZoomMap(ctx, view, *z)
		}
	}
}

// resetZoom shows every view's whole data window again.
func (s *session) resetZoom() {
	s.in.init()
	for _, j := range s.in.zoomJob {
		j.Cancel()
	}
	s.in.zoom, s.in.zoomMap, s.in.zoomJob = map[string]*[4]float64{}, map[string]*mapView{}, map[string]*Job{}
	s.in.zoomSeq++
}

// pointer handling ---------------------------------------------------------

// pointerState follows one drag on a figure.
type pointerState struct {
	down    bool
	touch   bool // the pointer down is a finger
	startX  float64
	startY  float64
	lastX   float64
	lastY   float64
	frame   [4]float64
	dragRow int // the row being moved, −1 for a pan
	moved   bool
	// pinch holds the pointers down on the plot; with two of them,
	// pinchStart and pinchCentre are their distance and centre when the
	// second one came down (frame the window then).
	pinch       map[int][2]float64
	pinchStart  float64
	pinchCentre [2]float64
	// twoFingers is set by the touchstart listener while two or more
	// fingers are down on the plot: touchmove then keeps the page still.
	twoFingers bool
	pending    *wire.Edit
	raf        bool
}

// touchSlop is how far (CSS pixels) a finger may move and still tap.
const touchSlop = 8

// hintEvery is the least time between two "use two fingers" hints.
const hintEvery = 20 * time.Second

// dragTool reports whether a tool drags with one finger on a touch screen
// (the canvas then takes one-finger gestures: touch-action none).
func dragTool(tool string) bool { return tool == toolMove || tool == toolHard }

// attachPointer installs the canvas's pointer and wheel listeners.
func (f *Figure) attachPointer(ctx app.Context) {
	canvas := app.Window().GetElementByID(f.id())
	if !canvas.Truthy() {
		return
	}
	f.ptr = &pointerState{dragRow: -1, pinch: map[int][2]float64{}}
	listen := func(ev string, passive bool, fn func(e app.Value)) {
		cb := app.FuncOf(func(this app.Value, args []app.Value) any {
			if len(args) > 0 {
				fn(args[0])
			}
			return nil
		})
		opts := app.Window().Get("Object").New()
		opts.Set("passive", passive)
		canvas.Call("addEventListener", ev, cb, opts)
		f.release = append(f.release, func() { canvas.Call("removeEventListener", ev, cb, opts); cb.Release() })
	}
	pos := func(e app.Value) (float64, float64) {
		r := canvas.Call("getBoundingClientRect")
		return e.Get("clientX").Float() - r.Get("left").Float(), e.Get("clientY").Float() - r.Get("top").Float()
	}
	listen("pointerdown", true, func(e app.Value) {
		x, y := pos(e)
		id := e.Get("pointerId").Int()
		ptype := e.Get("pointerType").String()
		ctx.Dispatch(func(ctx app.Context) { f.onDown(ctx, id, x, y, ptype) })
		canvas.Call("setPointerCapture", id)
	})
	listen("pointermove", true, func(e app.Value) {
		x, y := pos(e)
		id := e.Get("pointerId").Int()
		ptype := e.Get("pointerType").String()
		ctx.Dispatch(func(ctx app.Context) { f.onMove(ctx, id, x, y, ptype) })
	})
	// A pen drags the plot as a mouse does, but browsers may pan the page
	// with a pen as with a finger: a pen that comes over the canvas (pens
	// report hovering) makes it take one-pointer gestures; a finger gives
	// it back to the stylesheet.
	listen("pointerover", true, func(e app.Value) {
		switch e.Get("pointerType").String() {
		case "pen":
			canvas.Get("style").Set("touchAction", "none")
		case "touch":
			canvas.Get("style").Set("touchAction", "")
		}
	})
	for _, ev := range []string{"pointerup", "pointercancel"} {
		cancel := ev == "pointercancel" // the browser took the gesture (a page scroll)
		listen(ev, true, func(e app.Value) {
			x, y := pos(e)
			id := e.Get("pointerId").Int()
			ctx.Dispatch(func(ctx app.Context) { f.onUp(ctx, id, x, y, cancel) })
		})
	}
	// Two fingers on the plot move the plot, not the page: the browser may
	// pan the page on the canvas (the stylesheet's touch-action), so their
	// touchmoves are cancelled. This runs in the event (not dispatched):
	// only a listener that runs before the event returns can cancel it.
	touches := func(e app.Value) {
		ts := e.Get("touches")
		n, in := ts.Length(), false
		for i := 0; i < n; i++ {
			in = in || f.plotHit(pos(ts.Index(i)))
		}
		f.ptr.twoFingers = n >= 2 && in
	}
	listen("touchstart", false, touches)
	listen("touchend", true, touches)
	listen("touchcancel", true, touches)
	listen("touchmove", false, func(e app.Value) {
		if f.ptr.twoFingers && e.Get("touches").Length() >= 2 && e.Get("cancelable").Bool() {
			e.Call("preventDefault")
		}
	})
	listen("pointerleave", true, func(e app.Value) {
		if e.Get("pointerType").String() == "touch" {
			return // a lifted finger leaves too: a tapped point's tip stays until the next tap
		}
		ctx.Dispatch(func(ctx app.Context) {
			if f.S.in.tip != nil && f.S.in.tip.view == f.View && !f.ptr.down {
				f.S.in.tip = nil
				f.Update()
			}
		})
	})
	listen("wheel", false, func(e app.Value) {
		if !f.plotHit(pos(e)) {
			return
		}
		e.Call("preventDefault")
		x, y := pos(e)
		dy := e.Get("deltaY").Float()
		ctx.Dispatch(func(ctx app.Context) { f.zoomAt(ctx, x, y, math.Exp(dy*0.0015)) })
	})
}

// plotHit reports whether a canvas position is inside the plot area.
func (f *Figure) plotHit(x, y float64) bool {
	l := f.layout
	return l.pw > 0 && x >= l.px && x <= l.px+l.pw && y >= l.py && y <= l.py+l.ph
}

// nearest finds the point drawn nearest to (x, y) within r CSS pixels: its
// set ("train" or "test") and index in it.
func (f *Figure) nearest(x, y, r float64) (string, int) {
	sh, _ := f.S.figureSource()
	if sh == nil || f.fm == nil {
		return "", -1
	}
	pts := []struct {
		name string
		p    *wire.Points
	}{{"train", &sh.res.Plot.Train}, {"test", &sh.res.Plot.Test}}
	if f.View == "B" && sh.res.Plot.TrainB != nil {
		pts[0].p, pts[1].p = sh.res.Plot.TrainB, sh.res.Plot.TestB
	}
	best, bestSet, bestI := r*r, "", -1
	for _, ps := range pts {
		for i := range ps.p.X {
			px, py := f.layout.toPx(f.fm.frame, ps.p.X[i], ps.p.Y[i])
			if d := (px-x)*(px-x) + (py-y)*(py-y); d <= best {
				best, bestSet, bestI = d, ps.name, i
			}
		}
	}
	return bestSet, bestI
}

func (f *Figure) onDown(ctx app.Context, id int, x, y float64, ptype string) {
	s := f.S
	st := f.ptr
	if st == nil || f.fm == nil || !f.plotHit(x, y) {
		return
	}
	st.pinch[id] = [2]float64{x, y}
	if len(st.pinch) == 2 {
		// a second finger: the gesture moves and zooms the window (a
		// point being dragged stays where it is)
		st.pinchStart, st.pinchCentre = pinchDist(st.pinch), pinchCentre(st.pinch)
		st.frame = f.fm.frame
		st.down, st.dragRow, st.pending = false, -1, nil
		return
	}
	if len(st.pinch) > 2 {
		return
	}
	st.down, st.moved, st.startX, st.startY, st.lastX, st.lastY = true, false, x, y, x, y
	st.frame, st.dragRow, st.touch = f.fm.frame, -1, ptype == "touch"
	s.in.init()
	set, i := f.nearest(x, y, 9)
	editing := s.editable() && f.View == "A"
	if st.touch && !(editing && dragTool(s.in.tool)) {
		// A finger that is not dragging a point may be scrolling the
		// page: it reads, adds or erases only once it lifts without
		// having moved (onUp).
		return
	}
	switch {
	case editing && s.in.tool == toolMove && i >= 0:
		st.dragRow = f.rowOf(set, i)
	case editing && s.in.tool == toolAdd:
		dx, dy := f.layout.fromPx(f.fm.frame, x, y)
		s.addEdit(ctx, wire.Edit{Op: "add", X: [2]float64{dx, dy}, Class: s.in.addClass}, false)
		st.down = false
	case editing && s.in.tool == toolErase && i >= 0:
		s.addEdit(ctx, wire.Edit{Op: "erase", Index: f.rowOf(set, i)}, false)
	case editing && s.in.tool == toolHard && i >= 0:
		s.addEdit(ctx, wire.Edit{Op: "hard", Index: f.rowOf(set, i), Value: s.in.hardValue}, false)
	}
}

// onTap is a finger lifted where it came down: it reads the point under
// it (Look), or adds or erases one.
func (f *Figure) onTap(ctx app.Context, x, y float64) {
	s := f.S
	set, i := f.nearest(x, y, 12)
	editing := s.editable() && f.View == "A"
	switch {
	case editing && s.in.tool == toolAdd:
		dx, dy := f.layout.fromPx(f.fm.frame, x, y)
		s.addEdit(ctx, wire.Edit{Op: "add", X: [2]float64{dx, dy}, Class: s.in.addClass}, false)
	case editing && s.in.tool == toolErase && i >= 0:
		s.addEdit(ctx, wire.Edit{Op: "erase", Index: f.rowOf(set, i)}, false)
	case i >= 0:
		f.showTip(set, i, x, y)
	case s.in.tip != nil:
		s.in.tip = nil
		f.Update()
	}
}

// showHint says, for a moment, how to move the plot on a touch screen (at
// most once every hintEvery).
func (f *Figure) showHint(ctx app.Context) {
	in := &f.S.in
	if in.hint != "" || (!in.hintAt.IsZero() && time.Since(in.hintAt) < hintEvery) {
		return
	}
	in.hint, in.hintAt = f.View, time.Now()
	in.hintSeq++
	mine := in.hintSeq
	f.Update()
	ctx.After(2500*time.Millisecond, func(ctx app.Context) {
		if in.hintSeq == mine {
			in.hint = ""
			f.Update()
		}
	})
}

func (f *Figure) onMove(ctx app.Context, id int, x, y float64, ptype string) {
	s := f.S
	st := f.ptr
	if st == nil || f.fm == nil {
		return
	}
	if _, ok := st.pinch[id]; ok {
		st.pinch[id] = [2]float64{x, y}
	}
	if len(st.pinch) == 2 && st.pinchStart > 0 {
		if nf, ok := f.layout.gestureFrame(st.frame, st.pinchCentre, pinchCentre(st.pinch), st.pinchStart, pinchDist(st.pinch)); ok {
			f.S.setZoom(ctx, f.View, &nf)
		}
		return
	}
	if !st.down {
		if ptype != "touch" && (s.in.tool == toolLook || s.in.tool == "") {
			set, i := f.nearest(x, y, 9)
			if i >= 0 {
				f.showTip(set, i, x, y)
			} else if s.in.tip != nil {
				s.in.tip = nil
				f.Update()
			}
		}
		return
	}
	slop := 3.0
	if st.touch {
		slop = touchSlop
	}
	if math.Hypot(x-st.startX, y-st.startY) > slop {
		st.moved = true
	}
	switch {
	case st.touch && st.dragRow < 0 && !(dragTool(s.in.tool) && s.editable() && f.View == "A"):
		// one finger scrolls the page, not the plot
		if st.moved && s.in.tool == toolLook {
			f.showHint(ctx)
		}
	case st.dragRow >= 0:
		dx, dy := f.layout.fromPx(f.fm.frame, math.Max(f.layout.px, math.Min(f.layout.px+f.layout.pw, x)), math.Max(f.layout.py, math.Min(f.layout.py+f.layout.ph, y)))
		e := wire.Edit{Op: "move", Index: st.dragRow, X: [2]float64{round4(dx), round4(dy)}}
		f.throttled(ctx, e)
	case s.in.tool == toolHard && s.editable() && f.View == "A":
		if set, i := f.nearest(x, y, 12); i >= 0 {
			f.throttled(ctx, wire.Edit{Op: "hard", Index: f.rowOf(set, i), Value: s.in.hardValue})
		}
	case s.in.tool == toolLook && st.moved:
		// pan: the window follows the pointer
		fr := st.frame
		sx := (fr[1] - fr[0]) / f.layout.pw
		sy := (fr[3] - fr[2]) / f.layout.ph
		ddx, ddy := (x-st.startX)*sx, (y-st.startY)*sy
		nf := [4]float64{fr[0] - ddx, fr[1] - ddx, fr[2] + ddy, fr[3] + ddy}
		s.setZoom(ctx, f.View, &nf)
	}
	st.lastX, st.lastY = x, y
}

// throttled applies a drag's edit at most once a frame; the latest wins.
func (f *Figure) throttled(ctx app.Context, e wire.Edit) {
	st := f.ptr
	st.pending = &e
	if st.raf {
		return
	}
	st.raf = true
	var cb app.Func
	cb = app.FuncOf(func(this app.Value, args []app.Value) any {
		cb.Release()
		ctx.Dispatch(func(ctx app.Context) {
			st.raf = false
			if st.pending != nil {
				e := *st.pending
				st.pending = nil
				f.S.addEdit(ctx, e, true)
			}
		})
		return nil
	})
	app.Window().Call("requestAnimationFrame", cb)
}

func (f *Figure) onUp(ctx app.Context, id int, x, y float64, cancelled bool) {
	st := f.ptr
	if st == nil {
		return
	}
	delete(st.pinch, id)
	if len(st.pinch) < 2 {
		st.pinchStart = 0
	}
	if !st.down {
		return
	}
	st.down = false
	if st.touch && cancelled && st.dragRow < 0 && f.S.in.tool == toolLook {
		f.showHint(ctx) // the browser took the finger to scroll the page
	}
	if st.touch && !cancelled && !st.moved && st.dragRow < 0 && f.fm != nil {
		f.onTap(ctx, x, y)
	}
	if st.dragRow >= 0 && st.moved {
		dx, dy := f.layout.fromPx(f.fm.frame, math.Max(f.layout.px, math.Min(f.layout.px+f.layout.pw, x)), math.Max(f.layout.py, math.Min(f.layout.py+f.layout.ph, y)))
		st.pending = nil
		f.S.addEdit(ctx, wire.Edit{Op: "move", Index: st.dragRow, X: [2]float64{round4(dx), round4(dy)}}, false)
	}
	st.dragRow = -1
}

func round4(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	return v
}

func pinchDist(p map[int][2]float64) float64 {
	var a [][2]float64
	for _, v := range p {
		a = append(a, v)
	}
	if len(a) < 2 {
		return 0
	}
	return math.Hypot(a[0][0]-a[1][0], a[0][1]-a[1][1])
}

func pinchCentre(p map[int][2]float64) [2]float64 {
	var c [2]float64
	for _, v := range p {
		c[0], c[1] = c[0]+v[0]/float64(len(p)), c[1]+v[1]/float64(len(p))
	}
	return c
}

// gestureFrame is the window after a two-finger gesture that began over
// window fr with the fingers d0 apart around c0 (canvas pixels) and now has
// them d1 apart around c1: the data point that was under c0 is under c1,
// and the window is scaled by d0/d1 (fingers apart zoom in). ok is false
// for a degenerate gesture or window.
func (l figLayout) gestureFrame(fr [4]float64, c0, c1 [2]float64, d0, d1 float64) (nf [4]float64, ok bool) {
	if !(d0 > 0) || !(d1 > 0) || !(l.pw > 0) || !(l.ph > 0) {
		return fr, false
	}
	k := math.Max(0.05, math.Min(20, d0/d1))
	w, h := (fr[1]-fr[0])*k, (fr[3]-fr[2])*k
	ax, ay := l.fromPx(fr, c0[0], c0[1])
	nf[0] = ax - (c1[0]-l.px)/l.pw*w
	nf[1] = nf[0] + w
	nf[3] = ay + (c1[1]-l.py)/l.ph*h
	nf[2] = nf[3] - h
	for _, v := range nf {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fr, false
		}
	}
	return nf, w > 1e-9 && h > 1e-9
}

// zoomAt zooms the current window by factor around a canvas position.
func (f *Figure) zoomAt(ctx app.Context, x, y, factor float64) {
	if f.fm == nil {
		return
	}
	f.zoomFrom(ctx, f.fm.frame, x, y, factor)
}

func (f *Figure) zoomFrom(ctx app.Context, fr [4]float64, x, y, factor float64) {
	cx, cy := f.layout.fromPx(fr, x, y)
	factor = math.Max(0.05, math.Min(20, factor))
	nf := [4]float64{cx - (cx-fr[0])*factor, cx + (fr[1]-cx)*factor, cy - (cy-fr[2])*factor, cy + (fr[3]-cy)*factor}
	if w := nf[1] - nf[0]; !(w > 1e-9) || math.IsInf(w, 0) {
		return
	}
	f.S.setZoom(ctx, f.View, &nf)
}

// rowOf returns the data row (stable id) of a plotted point.
func (f *Figure) rowOf(set string, i int) int {
	sh, _ := f.S.figureSource()
	p := sh.res.Plot.Train
	if set == "test" {
		p = sh.res.Plot.Test
	}
	if i < len(p.Row) {
		return p.Row[i]
	}
	return -1
}

// showTip reads a point's numbers into the tooltip.
func (f *Figure) showTip(set string, i int, x, y float64) {
	s := f.S
	sh, fitted := s.figureSource()
	if sh == nil {
		return
	}
	res := sh.res
	p := res.Plot.Train
	if set == "test" {
		p = res.Plot.Test
	}
	var lines []string
	// numbered as the results CSV numbers them (1-based within the
	// split), with the row of the data it comes from (1-based)
	head := "Training point " + strconv.Itoa(i+1)
	if set == "test" {
		head = "Test point " + strconv.Itoa(i+1)
	}
	if i < len(p.Row) {
		head += " · data row " + strconv.Itoa(p.Row[i]+1)
	}
	lines = append(lines, head)
	switch {
	case i < len(p.Class):
		l := "class " + className(res.Data.Classes, p.Class[i])
		if fitted && i < len(p.Pred) {
			l += " · predicted " + className(res.Data.Classes, p.Pred[i])
		}
		lines = append(lines, l)
	case i < len(p.Tags):
		var on []string
		for t := range res.Data.Tags {
			if p.Tags[i]&(1<<uint(t)) != 0 {
				on = append(on, tagName(res.Data.Tags, t))
			}
		}
		lines = append(lines, "tags: "+strings.Join(on, ", "))
	}
	fx, fy := p.X[i], p.Y[i]
	lines = append(lines, fmt.Sprintf("at (%s, %s)", strconv.FormatFloat(fx, 'g', 4, 64), strconv.FormatFloat(fy, 'g', 4, 64)))
	if fitted {
		if i < len(p.Decision) {
			lines = append(lines, "decision f(x) = "+strconv.FormatFloat(p.Decision[i], 'g', 4, 64))
		}
		if i < len(p.Prob) {
			lines = append(lines, "P("+className(res.Data.Classes, 1)+") = "+strconv.FormatFloat(p.Prob[i], 'f', 3, 64))
		}
		for _, v := range []string{"A", "B"} {
			if d := p.Views[v]; i < len(d) {
				lines = append(lines, "view "+v+" decision = "+strconv.FormatFloat(d[i], 'g', 4, 64))
			}
		}
		if set == "train" {
			m, _ := spec.Lookup(res.Model)
			for _, k := range sortedDiagKeys(res.Report.Diagnostics) {
				d := res.Report.Diagnostics[k]
				if i >= len(d) {
					continue
				}
				label := k
				if m != nil {
					if o := m.Output(k); o != nil {
						label = o.Label
					}
				}
				lines = append(lines, label+" = "+strconv.FormatFloat(d[i], 'g', 4, 64))
			}
		}
	}
	if i < len(p.Difficulty) {
		lines = append(lines, fmt.Sprintf("difficulty (privileged noise): %.2f", p.Difficulty[i]))
	}
	s.in.tip = &tooltip{view: f.View, x: x, y: y, lines: lines}
	f.Update()
}

func sortedDiagKeys(m map[string][]float64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
