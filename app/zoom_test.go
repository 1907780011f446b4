package app

import (
	"math"
	"testing"

	"lupilab/models/wire"
)

// TestZoomMapBelongsToItsResult: a zoomed window's map shows only under
// the result it was computed for (before: after a refit the former model's
// map stayed under the new points until Reset view), and switching the
// data resets the zoom.
func TestZoomMapBelongsToItsResult(t *testing.T) {
	set := Settings{Source: "gen:moons", N: 200, Noise: 0.15, Seed: 1, TrainPct: 70, Model: "svm"}
	first := &shown{set: set, key: set.FitKey(), res: &wire.FitResult{Model: "svm"}, maps: map[string]*mapView{}}
	s := &session{set: set, shown: first}
	s.in.init()
	fr := [4]float64{0, 1, 0, 1}
	s.in.zoom["A"] = &fr
	s.in.zoomMap["A"] = &mapView{g: &wire.GridResult{Frame: fr}, of: first}
	if s.zoomMapFor("A") == nil {
		t.Fatal("the zoom map of the result on screen is not shown")
	}
	s.shown = &shown{set: set, key: set.FitKey(), res: &wire.FitResult{Model: "svm"}, maps: map[string]*mapView{}}
	if s.zoomMapFor("A") != nil {
		t.Error("a new fit shows the former fit's zoom map")
	}
	s.chooseSource("gen:circles")
	if s.in.zoom["A"] != nil || s.in.zoomMap["A"] != nil {
		t.Error("the zoom survived a switch of data")
	}
}

// boxPainter records the boxes of the marks a figure's upper layer paints
// (cut to the clip in force) and of its text.
type boxPainter struct {
	clips [][4]float64
	boxes [][4]float64 // the marks': x0, y0, x1, y1
	texts [][4]float64
	names []string
}

func (p *boxPainter) add(b [4]float64) {
	for _, c := range p.clips {
		b = [4]float64{math.Max(b[0], c[0]), math.Max(b[1], c[1]), math.Min(b[2], c[0]+c[2]), math.Min(b[3], c[1]+c[3])}
	}
	if b[2] > b[0] && b[3] > b[1] {
		p.boxes = append(p.boxes, b)
	}
}
func (p *boxPainter) rect(x, y, w, h float64, fill, stroke string, width float64) {}
func (p *boxPainter) path(pts []float64, closed bool, stroke string, width float64, dash []float64) {
	b := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for i := 0; i+1 < len(pts); i += 2 {
		b = [4]float64{math.Min(b[0], pts[i]), math.Min(b[1], pts[i+1]), math.Max(b[2], pts[i]), math.Max(b[3], pts[i+1])}
	}
	if len(p.clips) > 0 { // a tick or the frame outside a clip is not a point's mark
		p.add([4]float64{b[0] - width/2, b[1] - width/2, b[2] + width/2, b[3] + width/2})
	}
}
func (p *boxPainter) marks(shape string, xs, ys, rs []float64, fill, stroke string, width float64) {
	for i := range xs {
		r := rs[i] + width/2
		p.add([4]float64{xs[i] - r, ys[i] - r, xs[i] + r, ys[i] + r})
	}
}
func (p *boxPainter) crosses(xs, ys []float64, r float64, stroke string, width float64) {
	for i := range xs {
		p.add([4]float64{xs[i] - r, ys[i] - r, xs[i] + r, ys[i] + r})
	}
}
func (p *boxPainter) text(x, y float64, s string, size float64, fill, align, baseline string, bold bool) {
	w := textWidth(s, size, 0.55)
	x0 := x
	switch align {
	case "center":
		x0 = x - w/2
	case "right":
		x0 = x - w
	}
	y0 := y
	switch baseline {
	case "middle":
		y0 = y - size/2
	case "bottom", "alphabetic":
		y0 = y - size
	}
	p.texts, p.names = append(p.texts, [4]float64{x0, y0, x0 + w, y0 + size}), append(p.names, s)
}
func (p *boxPainter) vtext(x, y float64, s string, size float64, fill string) {
	h := textWidth(s, size, 0.55)
	p.texts, p.names = append(p.texts, [4]float64{x - size/2, y - h/2, x + size/2, y + h/2}), append(p.names, s)
}
func (p *boxPainter) image(rgba []byte, w, h int, x, y, dw, dh float64) {}
func (p *boxPainter) clip(x, y, w, h float64)                           { p.clips = append(p.clips, [4]float64{x, y, w, h}) }
func (p *boxPainter) unclip()                                           { p.clips = p.clips[:len(p.clips)-1] }

// TestZoomedPointsStayOffTheLabels: zoomed in, many points lie outside
// the frame and are drawn at its edges; no mark of theirs (dot, ring,
// square, cross, triangle) may cover the colour bar's name, a tick label
// or an axis name (before: the rings and dots at the right edge ran over
// the colour bar's name). A point outside the frame is drawn whole inside
// it.
func TestZoomedPointsStayOffTheLabels(t *testing.T) {
	var fc *figureCase
	cases := figureCases()
	for i := range cases {
		if cases[i].name == "svm zoomed: points clipped, the older map's window" {
			fc = &cases[i]
		}
	}
	if fc == nil {
		t.Fatal("no zoomed case")
	}
	fm := buildFigure(fc.sh, fc.maps, fc.fitted, fc.view, fc.tag, fc.pick, fc.zoom, fc.zoomMap, fc.brush)
	if fm.clipped < 10 {
		t.Fatalf("only %d points outside the zoomed frame", fm.clipped)
	}
	l := layoutFor(420, false)
	p := &boxPainter{}
	drawFigureFront(p, fm, l)
	labels := 0
	for k, tb := range p.texts {
		labels++
		for _, m := range p.boxes {
			if m[0] < tb[2] && tb[0] < m[2] && m[1] < tb[3] && tb[1] < m[3] {
				t.Fatalf("a mark at %v covers the label %q at %v", m, p.names[k], tb)
			}
		}
	}
	if labels < 5 {
		t.Fatalf("%d labels painted", labels)
	}
	// the dots of the points outside: whole inside the frame
	for _, g := range fm.points {
		if g.shape != "circle" {
			continue
		}
		for i := range g.xs {
			x, y := l.toPx(fm.frame, g.xs[i], g.ys[i])
			if x >= l.px && x <= l.px+l.pw && y >= l.py && y <= l.py+l.ph {
				continue
			}
			q := &boxPainter{}
			drawPoints(q, &figModel{frame: fm.frame, points: []pointGroup{{shape: "circle", xs: g.xs[i : i+1], ys: g.ys[i : i+1], rs: g.rs[i : i+1], fill: "#000"}}}, l)
			m := q.boxes[0]
			if w := m[2] - m[0]; w < 2*g.rs[i] {
				t.Fatalf("the dot of a point outside the frame is cut to %.1f px wide", w)
			}
		}
	}
}
