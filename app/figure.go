package app

import (
	"math"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

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
	// margins are a multi-class map's per-class margins (the class layer
	// is then painted from them, finer than its cells: classImage)
	margins [][]float64
	rgba    []byte // the map's colours, painted once
	iw, ih  int    // rgba's size (the cells', or finer)
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

// barGap is the room between the plot and the colour bar (CSS pixels),
// where the bar's name is written upright, centred: wide enough to leave
// some 5 px clear either side of its letters (it was 14, and the name
// touched the bar in the exported PNG).
const barGap = 22.0

func layoutFor(width float64, compact bool) figLayout {
	if compact {
		return figLayout{w: width, h: width, px: 1, py: 1, pw: width - 2, ph: width - 2, compact: true}
	}
	l := figLayout{w: width}
	left, right, top, bottom := 54.0, 60.0+barGap, 12.0, 46.0
	l.px, l.py = left, top
	l.pw = math.Max(120, width-left-right)
	l.ph = l.pw
	l.h = top + l.ph + bottom
	l.barX, l.barY, l.barW, l.barH = l.px+l.pw+barGap, l.py+l.ph*0.1, 12, l.ph*0.8
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

// drawFigure paints a figure: the map and its contours clipped to the plot
// area, the points over them (those outside the frame at its edge, marked
// by a triangle), the frame, and at full size the axes and colour bar.
func drawFigure(p painter, fm *figModel, l figLayout) {
	drawFigureBack(p, fm, l)
	drawFigureFront(p, fm, l)
}

// drawFigureBack paints what lies under the points: the white ground, the
// map and its contours.
func drawFigureBack(p painter, fm *figModel, l figLayout) {
	p.rect(0, 0, l.w, l.h, "#ffffff", "", 0)
	if !fm.framed() {
		return
	}
	p.clip(l.px, l.py, l.pw, l.ph)
	drawMap(p, fm, l)
	drawContours(p, fm, l)
	p.unclip()
}

// drawFigureFront paints the rest over drawFigureBack's, on a transparent
// ground: the points, the plot's border, the axes and the colour bar.
func drawFigureFront(p painter, fm *figModel, l figLayout) {
	if !fm.framed() {
		return
	}
	drawPoints(p, fm, l)
	p.rect(l.px, l.py, l.pw, l.ph, "", "#5a6470", 1)
	if l.compact {
		return
	}
	drawAxes(p, fm, l)
	drawColourBar(p, fm, l)
}

// framed reports whether the figure has a data window to draw in.
func (fm *figModel) framed() bool {
	fr := fm.frame
	return fr[1] > fr[0] && fr[3] > fr[2]
}

// drawMap paints the map over its own window (the figure's, or an older
// one while a zoomed map is being computed), or a blank plot area.
func drawMap(p painter, fm *figModel, l figLayout) {
	if !fm.hasMap || len(fm.values) != fm.w*fm.h {
		p.rect(l.px, l.py, l.pw, l.ph, "#fafafa", "", 0)
		return
	}
	if fm.rgba == nil {
		if len(fm.margins) > 0 {
			fm.rgba, fm.iw, fm.ih = fm.scale.classImage(fm.margins, fm.values, fm.w, fm.h)
		} else {
			fm.rgba, fm.iw, fm.ih = fm.scale.rgbaImage(fm.values), fm.w, fm.h
		}
	}
	fr, mf := fm.frame, fm.mapFrame
	if !(mf[1] > mf[0]) {
		mf = fr
	}
	x0, y0 := l.toPx(fr, mf[0], mf[3])
	x1, y1 := l.toPx(fr, mf[1], mf[2])
	p.image(fm.rgba, fm.iw, fm.ih, x0, y0, x1-x0, y1-y0)
}

func drawContours(p painter, fm *figModel, l figLayout) {
	for _, c := range fm.contours {
		for _, path := range c.paths {
			pts := make([]float64, len(path))
			for i := 0; i+1 < len(path); i += 2 {
				pts[i], pts[i+1] = l.toPx(fm.frame, path[i], path[i+1])
			}
			closed := len(path) >= 6 && path[0] == path[len(path)-2] && path[1] == path[len(path)-1]
			p.path(pts, closed, c.colour, c.width, c.dash)
		}
	}
}

// edgeInset is how far inside the frame a point outside it is drawn (CSS
// pixels): a point's dot stays whole within the frame.
const edgeInset = pointRadius + 1

// drawPoints paints the point groups clipped to the plot area, so that no
// mark runs over the axes' labels or the colour bar's (a zoomed plot has
// many points at its edges). A point outside the frame is drawn just
// inside its edge (edgeInset), and the points of a group other than halos
// and rings that fell outside get a triangle on the edge.
func drawPoints(p painter, fm *figModel, l figLayout) {
	var tx, ty []float64
	p.clip(l.px, l.py, l.pw, l.ph)
	for _, g := range fm.points {
		xs, ys := make([]float64, len(g.xs)), make([]float64, len(g.xs))
		marksEdge := g.shape != "halo" && g.shape != "ring"
		for i := range g.xs {
			x, y := l.toPx(fm.frame, g.xs[i], g.ys[i])
			ex, ey := math.Max(l.px, math.Min(l.px+l.pw, x)), math.Max(l.py, math.Min(l.py+l.ph, y))
			if ex != x || ey != y {
				if marksEdge {
					tx, ty = append(tx, ex), append(ty, ey)
				}
				x = math.Max(l.px+edgeInset, math.Min(l.px+l.pw-edgeInset, x))
				y = math.Max(l.py+edgeInset, math.Min(l.py+l.ph-edgeInset, y))
			}
			xs[i], ys[i] = x, y
		}
		drawGroup(p, g, xs, ys, l.compact)
	}
	for i := range tx {
		p.path(triangleAt(tx[i], ty[i], l), true, "#1b1f24", 1.2, nil)
	}
	p.unclip()
}

// drawGroup paints a group's marks at the pixel positions xs, ys (smaller
// in a thumbnail).
func drawGroup(p painter, g pointGroup, xs, ys []float64, compact bool) {
	rs := g.rs
	if compact {
		rs = make([]float64, len(g.rs))
		for i, r := range g.rs {
			rs[i] = math.Max(1.5, r*0.55)
		}
	}
	switch g.shape {
	case "cross":
		rr := 5.0
		if compact {
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

// Font sizes of figure text (px).
const (
	axisFontSize  = 11.0 // tick labels
	axisTitleSize = 12.0 // axis names
	barFontSize   = 10.0 // colour bar ticks
	barTitleSize  = 10.5 // colour bar name
)

func drawAxes(p painter, fm *figModel, l figLayout) {
	fr := fm.frame
	const ink, size = "#1b1f24", axisFontSize
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
	p.text(l.px+l.pw/2, l.py+l.ph+28, fm.axes[0], axisTitleSize, ink, "center", "top", false)
	p.vtext(14, l.py+l.ph/2, fm.axes[1], axisTitleSize, ink)
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
		p.text(l.barX+l.barW+6, y, tickLabel(v), barFontSize, ink, "left", "middle", false)
	}
	p.vtext(l.barX-barGap/2, l.barY+l.barH/2, sc.label, barTitleSize, ink)
}

// drawLegend paints the legend under a figure (exports; the page shows it
// as HTML) and returns its height.
func drawLegend(p painter, items []legendItem, x, y, w float64) float64 {
	const lh, size, em = 16.0, 11.0, 0.52
	cx, cy := x, y+lh/2
	for _, it := range items {
		// an entry wider than the line is broken at its spaces, the
		// continuation lines indented under its text
		lines := wrapText(it.text, size, em, w-26)
		tw := textWidth(lines[0], size, em) + 26
		if cx+tw > x+w && cx > x {
			cx, cy = x, cy+lh
		}
		if p != nil {
			drawSwatch(p, it, cx+6, cy)
		}
		for i, l := range lines {
			if i > 0 {
				cx, cy = x, cy+lh
			}
			if p != nil {
				p.text(cx+16, cy, l, size, "#1b1f24", "left", "middle", false)
			}
		}
		cx += textWidth(lines[len(lines)-1], size, em) + 26
	}
	return cy - y + lh/2
}

// textWidth estimates the width of s at the given size, em being the mean
// advance of a character in font sizes (the painters cannot measure text:
// the SVG one has no font).
func textWidth(s string, size, em float64) float64 {
	return float64(len([]rune(s))) * size * em
}

// wrapText breaks s at its spaces into lines of at most w (estimated by
// textWidth); a word longer than w stays whole on its own line.
func wrapText(s string, size, em, w float64) []string {
	words := strings.Fields(s)
	if len(words) == 0 {
		return []string{s}
	}
	lines := []string{words[0]}
	for _, wd := range words[1:] {
		last := &lines[len(lines)-1]
		if textWidth(*last+" "+wd, size, em) <= w {
			*last += " " + wd
		} else {
			lines = append(lines, wd)
		}
	}
	return lines
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
