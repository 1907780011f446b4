package app

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/spec"
	"lupilab/models/wire"
)

// figModel is what one figure shows, laid out in data coordinates: built
// from the result on screen (buildFigure), drawn by drawFigure on a
// painter. It holds no numerics beyond choosing colours and ticks.
type figModel struct {
	title    string
	view     string // "A" or "B"
	frame    [4]float64
	mapFrame [4]float64 // the map's own window (it may differ while zooming)
	axes     [2]string
	layer    *wire.Layer
	values   []float64
	w, h     int
	scale    scale
	contours []contourStyle
	points   []pointGroup
	legend   []legendItem
	clipped  int
	preview  bool // a coarse map: a finer one follows
	hasMap   bool
	rgba     []byte // the map's colours, painted once
}

type contourStyle struct {
	paths  [][]float64
	colour string
	width  float64
	dash   []float64
	label  string
}

// pointGroup is points drawn in one style.
type pointGroup struct {
	shape  string // "circle", "square", "cross", "ring", "halo"
	xs, ys []float64
	rs     []float64
	fill   string
	stroke string
	width  float64
}

type legendItem struct {
	kind   string // "dot", "square", "cross", "ring", "halo", "line", "dash", "triangle"
	colour string
	text   string
}

// Layout of a figure in CSS pixels.
type figLayout struct {
	w, h                   float64 // whole canvas
	px, py, pw, ph         float64 // plot area
	barX, barY, barW, barH float64 // colour bar
	compact                bool
}

func layoutFor(width float64, compact bool) figLayout {
	if compact {
		return figLayout{w: width, h: width, px: 1, py: 1, pw: width - 2, ph: width - 2, compact: true}
	}
	l := figLayout{w: width}
	left, right, top, bottom := 54.0, 74.0, 12.0, 46.0
	l.px, l.py = left, top
	l.pw = math.Max(120, width-left-right)
	l.ph = l.pw
	l.h = top + l.ph + bottom
	l.barX, l.barY, l.barW, l.barH = l.px+l.pw+14, l.py+l.ph*0.1, 12, l.ph*0.8
	return l
}

// toPx maps data coordinates to the plot area.
func (l figLayout) toPx(fr [4]float64, x, y float64) (float64, float64) {
	return l.px + (x-fr[0])/(fr[1]-fr[0])*l.pw, l.py + (fr[3]-y)/(fr[3]-fr[2])*l.ph
}

// fromPx maps a pixel of the plot area to data coordinates.
func (l figLayout) fromPx(fr [4]float64, px, py float64) (float64, float64) {
	return fr[0] + (px-l.px)/l.pw*(fr[1]-fr[0]), fr[3] - (py-l.py)/l.ph*(fr[3]-fr[2])
}

// figureSources returns what the figures show: pts, the result whose
// points are drawn (the fit's, or the current data's before a fit on it),
// and maps, the fit whose maps lie under them (nil when the data changed
// to another source: its maps would mean nothing there). fitted reports
// that both are the same fit, so the points carry its diagnostics.
func (s *session) figureSources() (pts, maps *shown, fitted bool) {
	cur := s.set.DataKey()
	if w := s.fit.watch; w != nil && s.fit.job != nil && w.set.DataKey() == cur {
		// a watched fit: its latest iterate's map under the data's points
		switch {
		case s.shown != nil && s.shown.set.DataKey() == cur:
			return s.shown, w, false
		case s.preview != nil && s.preview.set.DataKey() == cur:
			return s.preview, w, false
		}
	}
	switch {
	case s.shown != nil && s.shown.set.DataKey() == cur:
		return s.shown, s.shown, true
	case s.preview != nil && s.preview.set.DataKey() == cur:
		if s.shown != nil && s.shown.set.Source == s.set.Source && !s.shown.res.Plot.Projected && !s.preview.res.Plot.Projected {
			return s.preview, s.shown, false
		}
		return s.preview, nil, false
	case s.shown != nil:
		return s.shown, s.shown, true
	case s.preview != nil:
		return s.preview, nil, false
	}
	return nil, nil, false
}

// figureSource returns the result whose points the figures draw, and
// whether it is the fitted result.
func (s *session) figureSource() (*shown, bool) {
	pts, _, fitted := s.figureSources()
	return pts, fitted
}

// buildFigure lays out one view of the result on screen.
func buildFigure(sh, maps *shown, fitted bool, view string, tag int, layerPick string, zoom *[4]float64, zoomMap *mapView, brush bool) *figModel {
	res := sh.res
	fm := &figModel{view: view, frame: res.Plot.Frame, axes: res.Plot.Axes}
	train, test := res.Plot.Train, res.Plot.Test
	if view == "B" {
		if res.Plot.TrainB == nil {
			return nil
		}
		fm.frame, fm.axes = res.Plot.FrameB, res.Plot.AxesB
		train, test = *res.Plot.TrainB, *res.Plot.TestB
	}
	if zoom != nil {
		fm.frame = *zoom
	}
	m, _ := spec.Lookup(res.Model)
	classes := res.Data.Classes
	multiLabel := len(res.Data.Tags) > 0
	nClasses := len(classes)
	if multiLabel {
		nClasses = 2
	}
	fm.title = figureTitle(m, res, view, multiLabel, tag)

	// the map
	if maps != nil {
		mv := maps.maps[view]
		if zoomMap != nil {
			mv = zoomMap
		}
		if mv != nil {
			pickLayer(fm, mv, multiLabel, tag, layerPick, nClasses, classes)
			fm.mapFrame = mv.g.Frame
		}
	}

	// points
	classOf := func(p wire.Points, i int) int {
		switch {
		case multiLabel && i < len(p.Tags):
			if p.Tags[i]&(1<<uint(tag)) != 0 {
				return 1
			}
			return 0
		case i < len(p.Class):
			return p.Class[i]
		}
		return 0
	}
	rep := res.Report
	diag := rep.Diagnostics
	n := len(train.X)
	const r = 4.0
	// halos: the per-sample difficulty a LUPI model reports (or, while the
	// difficulty brush is in hand, what the privileged features say)
	h, label := haloOf(m, diag, n)
	if !fitted {
		h, label = nil, ""
	}
	if brush && len(train.Difficulty) == n {
		h, label = train.Difficulty, "halo: how hard the privileged features say the point is (the difficulty brush paints it)"
	}
	if h != nil {
		if g, ok := haloGroup(h, train, r); ok {
			fm.points = append(fm.points, g)
			fm.legend = append(fm.legend, legendItem{kind: "halo", colour: "rgba(84,39,143,0.75)", text: label})
		}
	}
	// training points by class (dropped constraints grey)
	dropped := diag["dropped"]
	if view == "B" && diag["dropped_B"] != nil {
		dropped = diag["dropped_B"]
	} else if view == "A" && diag["dropped_A"] != nil {
		dropped = diag["dropped_A"]
	}
	byClass := map[int]*pointGroup{}
	var order []int
	anyDropped := false
	for i := 0; i < n; i++ {
		k := classOf(train, i)
		if fitted && i < len(dropped) && dropped[i] == 1 {
			k, anyDropped = -1, true
		}
		g := byClass[k]
		if g == nil {
			fill := "#9a9a9a"
			if k >= 0 {
				fill = classColour(k, nClasses).css()
			}
			g = &pointGroup{shape: "circle", fill: fill, stroke: "#1b1f24", width: 0.8}
			byClass[k] = g
			order = append(order, k)
		}
		g.xs, g.ys, g.rs = append(g.xs, train.X[i]), append(g.ys, train.Y[i]), append(g.rs, r)
	}
	sort.Ints(order)
	for _, k := range order {
		fm.points = append(fm.points, *byClass[k])
	}
	for k := 0; k < nClasses; k++ {
		name := className(classes, k)
		if multiLabel {
			t := tagName(res.Data.Tags, tag)
			name = "has tag " + t
			if k == 0 {
				name = "no tag " + t
			}
		}
		fm.legend = append(fm.legend, legendItem{kind: "dot", colour: classColour(k, nClasses).css(), text: name + " (training)"})
	}
	if anyDropped {
		fm.legend = append(fm.legend, legendItem{kind: "dot", colour: "#9a9a9a", text: "constraint dropped by the neighbour graph (fⱼ = 0)"})
	}
	// support vectors
	if fitted && m != nil && m.Support != "" && len(rep.Support) > 0 && len(rep.Support) < n {
		alpha := diag["alpha"]
		maxA := 0.0
		for _, a := range alpha {
			maxA = math.Max(maxA, a)
		}
		g := pointGroup{shape: "ring", stroke: "#1b1f24", width: 1.2}
		for _, i := range rep.Support {
			if i < 0 || i >= n {
				continue
			}
			rr := r + 3
			if maxA > 0 && i < len(alpha) {
				rr = r + 1.8 + 4*alpha[i]/maxA
			}
			g.xs, g.ys, g.rs = append(g.xs, train.X[i]), append(g.ys, train.Y[i]), append(g.rs, rr)
		}
		fm.points = append(fm.points, g)
		text := m.Support
		if alpha != nil {
			text += " (ring size ∝ α)"
		}
		fm.legend = append(fm.legend, legendItem{kind: "ring", colour: "#1b1f24", text: text})
	}
	// test points: hollow squares, crossed when misclassified
	byClass = map[int]*pointGroup{}
	order = nil
	wrong := pointGroup{shape: "cross", stroke: "#000", width: 1.6}
	for i := range test.X {
		k := classOf(test, i)
		g := byClass[k]
		if g == nil {
			g = &pointGroup{shape: "square", stroke: classColour(k, nClasses).css(), width: 1.8}
			byClass[k] = g
			order = append(order, k)
		}
		g.xs, g.ys, g.rs = append(g.xs, test.X[i]), append(g.ys, test.Y[i]), append(g.rs, r-0.5)
		if fitted && misclassified(test, i, multiLabel, tag) {
			wrong.xs, wrong.ys, wrong.rs = append(wrong.xs, test.X[i]), append(wrong.ys, test.Y[i]), append(wrong.rs, r+1)
		}
	}
	sort.Ints(order)
	for _, k := range order {
		fm.points = append(fm.points, *byClass[k])
	}
	if len(test.X) > 0 {
		fm.legend = append(fm.legend, legendItem{kind: "square", colour: "#5a6470", text: "test point (colour: true class)"})
	}
	if len(wrong.xs) > 0 {
		fm.points = append(fm.points, wrong)
		fm.legend = append(fm.legend, legendItem{kind: "cross", colour: "#000", text: "misclassified test point"})
	}
	// points outside the frame are drawn at its edge
	for _, g := range fm.points {
		for i := range g.xs {
			if g.xs[i] < fm.frame[0] || g.xs[i] > fm.frame[1] || g.ys[i] < fm.frame[2] || g.ys[i] > fm.frame[3] {
				fm.clipped++
			}
		}
	}
	if fm.clipped > 0 {
		fm.legend = append(fm.legend, legendItem{kind: "triangle", colour: "#1b1f24", text: "point outside the frame, drawn at its edge"})
	}
	for _, c := range fm.contours {
		if c.label != "" {
			kind := "line"
			if len(c.dash) > 0 {
				kind = "dash"
			}
			fm.legend = append(fm.legend, legendItem{kind: kind, colour: c.colour, text: c.label})
		}
	}
	return fm
}

// pickLayer chooses the map's layer and its contours.
func pickLayer(fm *figModel, mv *mapView, multiLabel bool, tag int, pick string, nClasses int, classes []string) {
	find := func(name string) *wire.Layer {
		for i := range mv.g.Layers {
			if mv.g.Layers[i].Name == name {
				return &mv.g.Layers[i]
			}
		}
		return nil
	}
	var l *wire.Layer
	switch {
	case multiLabel:
		l = find(fmt.Sprintf("tag:%d", tag))
	case pick != "" && find(pick) != nil:
		l = find(pick)
	default:
		for _, name := range []string{wire.LayerProb, wire.LayerClass, wire.LayerDecision} {
			if l = find(name); l != nil {
				break
			}
		}
	}
	if l == nil {
		return
	}
	fm.layer, fm.values, fm.w, fm.h, fm.hasMap, fm.preview = l, mv.layers[l.Name], mv.g.W, mv.g.H, true, mv.g.Preview
	switch l.Kind {
	case wire.LayerProb:
		fm.scale = scale{kind: "prob", lo: 0, hi: 1, label: "P(" + className(classes, 1) + ")"}
	case wire.LayerVar:
		fm.scale = scale{kind: "sequential", lo: 0, hi: l.Max, label: "predictive variance"}
	case wire.LayerEntropy:
		fm.scale = scale{kind: "sequential", lo: 0, hi: 1, label: "predictive entropy (bits)"}
	case wire.LayerClass:
		fm.scale = scale{kind: "classes", n: nClasses, label: "predicted class"}
	case wire.LayerTag:
		fm.scale = scale{kind: "diverging", lo: l.Min, hi: l.Max, label: "tag score"}
	default:
		lo, hi := robustSpan(mv.layers[l.Name])
		fm.scale = scale{kind: "diverging", lo: lo, hi: hi, label: "decision value f(x)"}
		switch l.Kind {
		case wire.LayerMean:
			fm.scale.label = "latent mean m(x)"
		case wire.LayerScore:
			fm.scale.label = "decision score (0 at the boundary)"
		}
	}
	for _, c := range l.Contours {
		cs := contourStyle{paths: c.Paths, colour: "#1b1f24", width: 2}
		switch c.Style {
		case "boundary":
			cs.label = "decision boundary"
			switch l.Kind {
			case wire.LayerProb:
				cs.label += " (p = 0.5)"
			case wire.LayerDecision:
				cs.label += " (f = 0)"
			case wire.LayerMean:
				cs.label += " (m = 0, p = 0.5)"
			}
		case "margin":
			cs.width, cs.dash = 1.2, []float64{6, 4}
			if c.Level == 1 {
				cs.label = "margins (f = ±1)"
			}
		case "level":
			cs.width, cs.dash, cs.colour = 1, []float64{2, 3}, "#444"
			if c.Level == 0.1 {
				cs.label = "p = 0.1 and 0.9"
			}
		}
		fm.contours = append(fm.contours, cs)
	}
	// twin SVMs: each class's proximal surface
	for _, pl := range mv.g.Layers {
		if pl.Kind != wire.LayerPlane {
			continue
		}
		pos := strings.HasSuffix(pl.Name, "pos") || strings.HasSuffix(pl.Name, "+")
		col := classColour(0, 2)
		k := 0
		if pos {
			col, k = classColour(1, 2), 1
		}
		for _, c := range pl.Contours {
			if c.Level != 0 {
				continue
			}
			fm.contours = append(fm.contours, contourStyle{paths: c.Paths, colour: col.css(), width: 1.6, dash: []float64{8, 3, 2, 3},
				label: "proximal surface of class " + className(classes, k)})
		}
	}
}

// robustSpan returns the colour range of a decision layer: symmetric, set
// by the 95th percentile of |f| (so a few far-away extremes do not wash the
// map out), at least the margins ±1.
func robustSpan(v []float64) (float64, float64) {
	if len(v) == 0 {
		return -1, 1
	}
	a := make([]float64, len(v))
	for i, x := range v {
		a[i] = math.Abs(x)
	}
	sort.Float64s(a)
	m := math.Max(a[int(0.95*float64(len(a)-1))], 1e-12)
	if m < 1 && a[len(a)-1] >= 1 {
		m = 1
	}
	return -m, m
}

// haloGroup sizes halos so that easy and hard points stand apart: no halo
// up to the median, then a radius growing to its largest at the 95th
// percentile (a merged blob of equal halos says nothing).
func haloGroup(h []float64, train wire.Points, r float64) (pointGroup, bool) {
	sorted := append([]float64(nil), h...)
	sort.Float64s(sorted)
	med := sorted[len(sorted)/2]
	hi := sorted[int(0.95*float64(len(sorted)-1))]
	if hi <= med {
		hi = sorted[len(sorted)-1]
	}
	g := pointGroup{shape: "halo", fill: "rgba(117,112,179,0.18)", stroke: "rgba(84,39,143,0.8)", width: 1}
	for i, v := range h {
		if hi <= med || v <= med || i >= len(train.X) {
			continue
		}
		t := math.Min(1, (v-med)/(hi-med))
		g.xs, g.ys = append(g.xs, train.X[i]), append(g.ys, train.Y[i])
		g.rs = append(g.rs, r+2+10*math.Sqrt(t))
	}
	return g, len(g.xs) > 0
}

func haloOf(m *spec.Spec, diag map[string][]float64, n int) ([]float64, string) {
	if m == nil || m.Z != spec.ZPrivileged {
		return nil, ""
	}
	if v := diag["exp_g_mean"]; len(v) == n {
		return v, "halo: noise exp(g) the privileged features give the sample — only the harder half, larger means harder"
	}
	if v := diag["slack"]; len(v) == n {
		return v, "halo: slack the correcting function predicts from the privileged features — only the harder half, larger means harder"
	}
	return nil, ""
}

func misclassified(p wire.Points, i int, multiLabel bool, tag int) bool {
	if multiLabel {
		if i < len(p.Tags) && i < len(p.PredTags) {
			return (p.Tags[i]>>uint(tag))&1 != (p.PredTags[i]>>uint(tag))&1
		}
		return false
	}
	return i < len(p.Class) && i < len(p.Pred) && p.Class[i] != p.Pred[i]
}

func className(classes []string, k int) string {
	if k >= 0 && k < len(classes) {
		return classes[k]
	}
	return strconv.Itoa(k)
}

func tagName(tags []string, t int) string {
	if t >= 0 && t < len(tags) {
		return tags[t]
	}
	return strconv.Itoa(t)
}

func figureTitle(m *spec.Spec, res *wire.FitResult, view string, multiLabel bool, tag int) string {
	name := res.Model
	if m != nil {
		name = m.Name
	}
	t := name
	if res.Plot.TrainB != nil {
		if view == "B" {
			t += " — view B"
		} else {
			t += " — view A"
		}
	}
	if multiLabel {
		t += " — tag " + tagName(res.Data.Tags, tag)
	}
	return t
}

// drawFigure paints a figure.
func drawFigure(p painter, fm *figModel, l figLayout) {
	p.rect(0, 0, l.w, l.h, "#ffffff", "", 0)
	fr := fm.frame
	if !(fr[1] > fr[0]) || !(fr[3] > fr[2]) {
		return
	}
	p.clip(l.px, l.py, l.pw, l.ph)
	if fm.hasMap && len(fm.values) == fm.w*fm.h {
		if fm.rgba == nil {
			fm.rgba = fm.scale.rgbaImage(fm.values)
		}
		// the map over its own window (the figure's, or an older one while
		// a zoomed map is being computed)
		mf := fm.mapFrame
		if !(mf[1] > mf[0]) {
			mf = fr
		}
		x0, y0 := l.toPx(fr, mf[0], mf[3])
		x1, y1 := l.toPx(fr, mf[1], mf[2])
		p.image(fm.rgba, fm.w, fm.h, x0, y0, x1-x0, y1-y0)
	} else {
		p.rect(l.px, l.py, l.pw, l.ph, "#fafafa", "", 0)
	}
	for _, c := range fm.contours {
		for _, path := range c.paths {
			pts := make([]float64, len(path))
			for i := 0; i+1 < len(path); i += 2 {
				pts[i], pts[i+1] = l.toPx(fr, path[i], path[i+1])
			}
			closed := len(path) >= 6 && path[0] == path[len(path)-2] && path[1] == path[len(path)-1]
			p.path(pts, closed, c.colour, c.width, c.dash)
		}
	}
	p.unclip()
	// points (clipped ones at the edge)
	var tx, ty []float64
	for _, g := range fm.points {
		xs, ys := make([]float64, len(g.xs)), make([]float64, len(g.xs))
		for i := range g.xs {
			x, y := l.toPx(fr, g.xs[i], g.ys[i])
			cx, cy := math.Max(l.px, math.Min(l.px+l.pw, x)), math.Max(l.py, math.Min(l.py+l.ph, y))
			if (cx != x || cy != y) && g.shape != "halo" && g.shape != "ring" {
				tx, ty = append(tx, cx), append(ty, cy)
			}
			xs[i], ys[i] = cx, cy
		}
		rs := g.rs
		if l.compact {
			rs = make([]float64, len(g.rs))
			for i, r := range g.rs {
				rs[i] = math.Max(1.5, r*0.55)
			}
		}
		switch g.shape {
		case "cross":
			rr := 5.0
			if l.compact {
				rr = 3
			}
			p.crosses(xs, ys, rr, g.stroke, g.width)
		case "square":
			p.marks("square", xs, ys, rs, "rgba(255,255,255,0.85)", g.stroke, g.width)
		case "ring":
			p.marks("circle", xs, ys, rs, "", g.stroke, g.width)
		default:
			p.marks("circle", xs, ys, rs, g.fill, g.stroke, g.width)
		}
	}
	if len(tx) > 0 {
		for i := range tx {
			p.path(triangleAt(tx[i], ty[i], l), true, "#1b1f24", 1.2, nil)
		}
	}
	p.rect(l.px, l.py, l.pw, l.ph, "", "#5a6470", 1)
	if l.compact {
		return
	}
	drawAxes(p, fm, l)
	drawColourBar(p, fm, l)
}

// triangleAt is a small triangle at the frame's edge pointing outwards.
func triangleAt(x, y float64, l figLayout) []float64 {
	const s = 5.0
	switch {
	case x <= l.px:
		return []float64{x, y, x + s, y - s, x + s, y + s}
	case x >= l.px+l.pw:
		return []float64{x, y, x - s, y - s, x - s, y + s}
	case y <= l.py:
		return []float64{x, y, x - s, y + s, x + s, y + s}
	}
	return []float64{x, y, x - s, y - s, x + s, y - s}
}

// niceTicks returns about n round tick values covering [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		out = append(out, v)
	}
	return out
}

func tickLabel(v float64) string {
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	if a >= 1e4 || a < 1e-3 {
		return strconv.FormatFloat(v, 'g', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 10, 64) // 10 digits: 6 × 0.1 reads "0.6"
}

func drawAxes(p painter, fm *figModel, l figLayout) {
	fr := fm.frame
	const ink, size = "#1b1f24", 11.0
	for _, v := range niceTicks(fr[0], fr[1], 5) {
		x, _ := l.toPx(fr, v, fr[2])
		p.path([]float64{x, l.py + l.ph, x, l.py + l.ph + 5}, false, ink, 1, nil)
		p.text(x, l.py+l.ph+8, tickLabel(v), size, ink, "center", "top", false)
	}
	for _, v := range niceTicks(fr[2], fr[3], 5) {
		_, y := l.toPx(fr, fr[0], v)
		p.path([]float64{l.px - 5, y, l.px, y}, false, ink, 1, nil)
		p.text(l.px-8, y, tickLabel(v), size, ink, "right", "middle", false)
	}
	p.text(l.px+l.pw/2, l.py+l.ph+28, fm.axes[0], 12, ink, "center", "top", false)
	p.vtext(14, l.py+l.ph/2, fm.axes[1], 12, ink)
}

func drawColourBar(p painter, fm *figModel, l figLayout) {
	if !fm.hasMap || fm.scale.kind == "classes" {
		return
	}
	const steps = 64
	rgba := make([]byte, 4*steps)
	sc := fm.scale
	lo, hi := sc.lo, sc.hi
	for i := 0; i < steps; i++ {
		v := hi - (hi-lo)*float64(i)/float64(steps-1)
		c := sc.colour(v)
		rgba[4*i], rgba[4*i+1], rgba[4*i+2], rgba[4*i+3] = c.r, c.g, c.b, 255
	}
	p.image(rgba, 1, steps, l.barX, l.barY, l.barW, l.barH)
	p.rect(l.barX, l.barY, l.barW, l.barH, "", "#5a6470", 1)
	const ink = "#1b1f24"
	for _, v := range niceTicks(lo, hi, 4) {
		y := l.barY + (hi-v)/(hi-lo)*l.barH
		p.path([]float64{l.barX + l.barW, y, l.barX + l.barW + 4, y}, false, ink, 1, nil)
		p.text(l.barX+l.barW+6, y, tickLabel(v), 10, ink, "left", "middle", false)
	}
	p.vtext(l.barX-6, l.barY+l.barH/2, sc.label, 10.5, ink)
}

// drawLegend paints the legend under a figure (exports; the page shows it
// as HTML) and returns its height.
func drawLegend(p painter, items []legendItem, x, y, w float64) float64 {
	const lh, size = 16.0, 11.0
	cx, cy := x, y+lh/2
	for _, it := range items {
		tw := float64(len([]rune(it.text)))*size*0.52 + 26
		if cx+tw > x+w && cx > x {
			cx, cy = x, cy+lh
		}
		drawSwatch(p, it, cx+6, cy)
		p.text(cx+16, cy, it.text, size, "#1b1f24", "left", "middle", false)
		cx += tw
	}
	return cy - y + lh/2
}

func drawSwatch(p painter, it legendItem, x, y float64) {
	switch it.kind {
	case "dot":
		p.marks("circle", []float64{x}, []float64{y}, []float64{4}, it.colour, "#1b1f24", 0.8)
	case "square":
		p.marks("square", []float64{x}, []float64{y}, []float64{3.5}, "#ffffff", it.colour, 1.8)
	case "cross":
		p.crosses([]float64{x}, []float64{y}, 4, it.colour, 1.6)
	case "ring":
		p.marks("circle", []float64{x}, []float64{y}, []float64{5.5}, "", it.colour, 1.2)
	case "halo":
		p.marks("circle", []float64{x}, []float64{y}, []float64{6}, "rgba(117,112,179,0.16)", it.colour, 1)
	case "line":
		p.path([]float64{x - 6, y, x + 6, y}, false, it.colour, 2, nil)
	case "dash":
		p.path([]float64{x - 6, y, x + 6, y}, false, it.colour, 1.4, []float64{3, 2})
	case "triangle":
		p.path([]float64{x - 4, y - 4, x + 4, y - 4, x, y + 3}, true, it.colour, 1.2, nil)
	}
}

// legendHTML renders the legend for the page.
func legendHTML(items []legendItem) app.UI {
	if len(items) == 0 {
		return nil
	}
	return app.Ul().Class("legend").Body(
		app.Range(items).Slice(func(i int) app.UI {
			it := items[i]
			return app.Li().Body(
				app.Span().Class("swatch swatch-"+it.kind).Style("--c", it.colour).Aria("hidden", "true"),
				app.Span().Text(it.text),
			)
		}),
	)
}
