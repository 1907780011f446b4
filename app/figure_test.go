package app

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"lupilab/models/viz"
	"lupilab/models/wire"
)

var updateFigures = flag.Bool("update-figures", false, "rewrite testdata/figures*.golden from the current figure code")

// TestBuildFigureGolden builds the figures of representative results on
// screen — two classes with support vectors sized by α, a preview before a
// fit, LUPI halos (from the model and from the difficulty brush), a GP's
// probability, variance, entropy and latent mean layers, three classes, a
// multi-label tag, both views of a two-view twin SVM with dropped
// constraints and proximal surfaces, a zoom that clips points — and checks
// a compact record of each figModel (its title, frames, layer and colour
// scale, contours, point groups with their counts and coordinate sums,
// legend and clipped count) against testdata/figures.golden. The inputs
// are synthetic and deterministic, so the record changes only when the
// figure code does; run with -update-figures after an intended change and
// review the diff.
func TestBuildFigureGolden(t *testing.T) {
	var b strings.Builder
	for _, c := range figureCases() {
		fm := buildFigure(c.sh, c.maps, c.fitted, c.view, c.tag, c.pick, c.zoom, c.zoomMap, c.brush)
		fmt.Fprintf(&b, "== %s\n%s\n", c.name, summariseFigure(fm))
	}
	checkGolden(t, filepath.Join("testdata", "figures.golden"), b.String())
}

// TestDrawFigureGolden paints the figures of TestBuildFigureGolden's cases
// on a recording painter, as the page does (with axes and colour bar) and as
// a compact thumbnail, and checks the number of calls of each kind and a
// digest of every call's arguments (coordinates to 6 digits, the map's
// pixels) against testdata/figures_draw.golden.
func TestDrawFigureGolden(t *testing.T) {
	var b strings.Builder
	for _, c := range figureCases() {
		fm := buildFigure(c.sh, c.maps, c.fitted, c.view, c.tag, c.pick, c.zoom, c.zoomMap, c.brush)
		if fm == nil {
			continue
		}
		for _, l := range []figLayout{layoutFor(420, false), layoutFor(160, true)} {
			p := &recPainter{counts: map[string]int{}}
			drawFigure(p, fm, l)
			fmt.Fprintf(&b, "%s (compact %v): %s\n", c.name, l.compact, p.summary())
		}
	}
	checkGolden(t, filepath.Join("testdata", "figures_draw.golden"), b.String())
}

// recPainter records what is painted.
type recPainter struct {
	log    strings.Builder
	counts map[string]int
}

func (p *recPainter) call(name string, args ...any) {
	p.counts[name]++
	p.log.WriteString(name)
	for _, a := range args {
		switch v := a.(type) {
		case float64:
			fmt.Fprintf(&p.log, " %.6g", v)
		case []float64:
			for _, x := range v {
				fmt.Fprintf(&p.log, " %.6g", x)
			}
			p.log.WriteString(" ;")
		case []byte:
			fmt.Fprintf(&p.log, " %x", sha256.Sum256(v))
		default:
			fmt.Fprintf(&p.log, " %v", v)
		}
	}
	p.log.WriteByte('\n')
}

func (p *recPainter) rect(x, y, w, h float64, fill, stroke string, width float64) {
	p.call("rect", x, y, w, h, fill, stroke, width)
}
func (p *recPainter) path(pts []float64, closed bool, stroke string, width float64, dash []float64) {
	p.call("path", pts, closed, stroke, width, dash)
}
func (p *recPainter) marks(shape string, xs, ys, rs []float64, fill, stroke string, width float64) {
	p.call("marks", shape, xs, ys, rs, fill, stroke, width)
}
func (p *recPainter) crosses(xs, ys []float64, r float64, stroke string, width float64) {
	p.call("crosses", xs, ys, r, stroke, width)
}
func (p *recPainter) text(x, y float64, s string, size float64, fill, align, baseline string, bold bool) {
	p.call("text", x, y, s, size, fill, align, baseline, bold)
}
func (p *recPainter) vtext(x, y float64, s string, size float64, fill string) {
	p.call("vtext", x, y, s, size, fill)
}
func (p *recPainter) image(rgba []byte, w, h int, x, y, dw, dh float64) {
	p.call("image", rgba, w, h, x, y, dw, dh)
}
func (p *recPainter) clip(x, y, w, h float64) { p.call("clip", x, y, w, h) }
func (p *recPainter) unclip()                 { p.call("unclip") }

// summary is the calls of each kind and a digest of them all.
func (p *recPainter) summary() string {
	names := make([]string, 0, len(p.counts))
	for k := range p.counts {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		fmt.Fprintf(&b, "%s %d, ", k, p.counts[k])
	}
	sum := sha256.Sum256([]byte(p.log.String()))
	fmt.Fprintf(&b, "digest %x", sum[:8])
	return b.String()
}

// checkGolden compares got with the golden file at path (rewritten with
// -update-figures).
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *updateFigures {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-figures to create it)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			g, w := lineAt(gl, i), lineAt(wl, i)
			if g != w {
				t.Fatalf("figure records differ from %s at line %d:\n got %q\nwant %q", path, i+1, g, w)
			}
		}
	}
}

func lineAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end)"
}

// summariseFigure is a compact, exact record of what a figure shows.
func summariseFigure(fm *figModel) string {
	if fm == nil {
		return "nil"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "title %q view %s frame %v mapFrame %v axes %q\n", fm.title, fm.view, fm.frame, fm.mapFrame, fm.axes)
	layer := "-"
	if fm.layer != nil {
		layer = fm.layer.Name + "/" + fm.layer.Kind
	}
	fmt.Fprintf(&b, "layer %s values %d map %v preview %v %dx%d scale %s [%.6g, %.6g] n %d %q\n", layer, len(fm.values), fm.hasMap, fm.preview,
		fm.w, fm.h, fm.scale.kind, fm.scale.lo, fm.scale.hi, fm.scale.n, fm.scale.label)
	for _, c := range fm.contours {
		fmt.Fprintf(&b, "contour %q %s width %v dash %v paths %d\n", c.label, c.colour, c.width, c.dash, len(c.paths))
	}
	for _, g := range fm.points {
		fmt.Fprintf(&b, "points %s fill %q stroke %q width %v n %d Σx %.6g Σy %.6g Σr %.6g\n", g.shape, g.fill, g.stroke, g.width,
			len(g.xs), coordSum(g.xs), coordSum(g.ys), coordSum(g.rs))
	}
	for _, it := range fm.legend {
		fmt.Fprintf(&b, "legend %s %s %q\n", it.kind, it.colour, it.text)
	}
	fmt.Fprintf(&b, "clipped %d", fm.clipped)
	return b.String()
}

func coordSum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

type figureCase struct {
	name     string
	sh, maps *shown
	fitted   bool
	view     string
	tag      int
	pick     string
	zoom     *[4]float64
	zoomMap  *mapView
	brush    bool
}

// synthPoints returns n points in [-3, 3]² (a few outside, to be clipped
// by tighter frames) of nClasses classes (or nTags tags as bit masks),
// with about one prediction in five wrong.
func synthPoints(rng *rand.Rand, n, nClasses, nTags int) wire.Points {
	p := wire.Points{}
	for i := 0; i < n; i++ {
		p.X, p.Y, p.Row = append(p.X, 6*rng.Float64()-3), append(p.Y, 6*rng.Float64()-3), append(p.Row, i)
		p.Difficulty = append(p.Difficulty, rng.Float64())
		if nTags > 0 {
			tags := uint64(rng.Intn(1 << uint(nTags)))
			pred := tags
			if rng.Intn(5) == 0 {
				pred ^= 1 << uint(rng.Intn(nTags))
			}
			p.Tags, p.PredTags = append(p.Tags, tags), append(p.PredTags, pred)
			continue
		}
		k := rng.Intn(nClasses)
		pred := k
		if rng.Intn(5) == 0 {
			pred = (k + 1) % nClasses
		}
		p.Class, p.Pred = append(p.Class, k), append(p.Pred, pred)
	}
	return p
}

// synthMap returns a w×h map over frame with the given layers (name, kind,
// contour styles and levels).
func synthMap(rng *rand.Rand, frame [4]float64, preview bool, layers ...wire.Layer) *mapView {
	const w, h = 6, 5
	g := &wire.GridResult{Frame: frame, W: w, H: h, Preview: preview, Layers: layers}
	mv := &mapView{g: g, layers: map[string][]float64{}}
	for k, l := range layers {
		v := make([]float64, w*h)
		for i := range v {
			v[i] = l.Min + (l.Max-l.Min)*rng.Float64()
		}
		mv.layers[l.Name] = v
		g.Layers[k].Span = viz.ColourSpan(v) // as the compute build sends it
	}
	return mv
}

func synthContour(level float64, style string, paths int) wire.Contour {
	c := wire.Contour{Level: level, Style: style}
	for i := 0; i < paths; i++ {
		c.Paths = append(c.Paths, []float64{0, 0, 1, float64(i), 2, 0})
	}
	return c
}

func figureCases() []figureCase {
	rng := rand.New(rand.NewSource(27))
	frame := [4]float64{-3, 3, -3, 3}
	two := []string{"neg", "pos"}
	var cases []figureCase

	// SVM, two classes, fitted: decision map with boundary and margins,
	// support vectors with α, misclassified test points.
	{
		res := &wire.FitResult{Model: "svm", Data: wire.DataInfo{Classes: two}}
		res.Plot = wire.PlotData{Frame: frame, Axes: [2]string{"x₁", "x₂"}, Train: synthPoints(rng, 40, 2, 0), Test: synthPoints(rng, 15, 2, 0)}
		alpha := make([]float64, 40)
		for i := 0; i < 40; i += 3 {
			alpha[i] = rng.Float64() * 10
			res.Report.Support = append(res.Report.Support, i)
		}
		res.Report.Support = append(res.Report.Support, -1, 99) // out of range: skipped
		res.Report.Diagnostics = map[string][]float64{"alpha": alpha}
		mv := synthMap(rng, frame, false, wire.Layer{Name: wire.LayerDecision, Kind: wire.LayerDecision, Min: -4, Max: 4,
			Contours: []wire.Contour{synthContour(0, "boundary", 2), synthContour(1, "margin", 1), synthContour(-1, "margin", 1)}})
		sh := &shown{res: res, maps: map[string]*mapView{"A": mv}}
		cases = append(cases,
			figureCase{name: "svm fitted", sh: sh, maps: sh, fitted: true, view: "A"},
			figureCase{name: "svm points before the fit (no maps)", sh: sh, fitted: false, view: "A"},
			figureCase{name: "svm view B of a one-view result", sh: sh, maps: sh, fitted: true, view: "B"},
			figureCase{name: "svm zoomed: points clipped, the older map's window", sh: sh, maps: sh, fitted: true, view: "A",
				zoom: &[4]float64{-1, 1.5, -2, 1}},
			figureCase{name: "svm zoomed with the zoom's own map (preview)", sh: sh, maps: sh, fitted: true, view: "A",
				zoom: &[4]float64{-1, 1.5, -2, 1}, zoomMap: synthMap(rng, [4]float64{-1, 1.5, -2, 1}, true,
					wire.Layer{Name: wire.LayerDecision, Kind: wire.LayerDecision, Min: -0.5, Max: 0.8, Contours: []wire.Contour{synthContour(0, "boundary", 1)}})},
			figureCase{name: "svm with an unknown layer picked", sh: sh, maps: sh, fitted: true, view: "A", pick: "nonsense"},
		)
		// support vectors without α, every row a support vector (no rings)
		res2 := *res
		res2.Report.Diagnostics = nil
		res2.Report.Support = []int{1, 2, 5, 8}
		sh2 := &shown{res: &res2, maps: sh.maps}
		res3 := *res
		res3.Report.Support = make([]int, 40)
		for i := range res3.Report.Support {
			res3.Report.Support[i] = i
		}
		sh3 := &shown{res: &res3}
		cases = append(cases,
			figureCase{name: "svm support vectors without α", sh: sh2, maps: sh2, fitted: true, view: "A"},
			figureCase{name: "svm every row a support vector", sh: sh3, maps: sh3, fitted: true, view: "A"},
		)
	}

	// SVM2+ on LUPI data: halos from the correcting function's slack, or
	// from the difficulty brush.
	{
		res := &wire.FitResult{Model: "svm2plus", Data: wire.DataInfo{Classes: two}}
		res.Plot = wire.PlotData{Frame: frame, Axes: [2]string{"x₁", "x₂"}, Train: synthPoints(rng, 30, 2, 0), Test: synthPoints(rng, 10, 2, 0)}
		slack := make([]float64, 30)
		for i := range slack {
			slack[i] = rng.Float64() * 2
		}
		res.Report.Support = []int{0, 4, 7, 9, 12, 20}
		res.Report.Diagnostics = map[string][]float64{"slack": slack}
		mv := synthMap(rng, frame, true, wire.Layer{Name: wire.LayerDecision, Kind: wire.LayerDecision, Min: -0.4, Max: 0.6,
			Contours: []wire.Contour{synthContour(0, "boundary", 1), synthContour(1, "margin", 1)}})
		sh := &shown{res: res, maps: map[string]*mapView{"A": mv}}
		cases = append(cases,
			figureCase{name: "svm2plus slack halos", sh: sh, maps: sh, fitted: true, view: "A"},
			figureCase{name: "svm2plus difficulty brush", sh: sh, maps: sh, fitted: true, view: "A", brush: true},
			figureCase{name: "svm2plus unfitted (no halos)", sh: sh, maps: sh, fitted: false, view: "A"},
		)
	}

	// GPC+: probability map with its guides, halos from exp(g); the other
	// layers picked by name.
	{
		res := &wire.FitResult{Model: "gpcplus", Data: wire.DataInfo{Classes: []string{"healthy", "sick"}}}
		res.Plot = wire.PlotData{Frame: frame, Axes: [2]string{"PC 1", "PC 2"}, Train: synthPoints(rng, 25, 2, 0), Test: synthPoints(rng, 12, 2, 0)}
		g := make([]float64, 25)
		for i := range g {
			g[i] = 0.5 + rng.Float64()
		}
		res.Report.Diagnostics = map[string][]float64{"exp_g_mean": g}
		mv := synthMap(rng, frame, false,
			wire.Layer{Name: wire.LayerProb, Kind: wire.LayerProb, Min: 0, Max: 1,
				Contours: []wire.Contour{synthContour(0.5, "boundary", 1), synthContour(0.1, "level", 2), synthContour(0.9, "level", 2)}},
			wire.Layer{Name: wire.LayerMean, Kind: wire.LayerMean, Min: -3, Max: 2, Contours: []wire.Contour{synthContour(0, "boundary", 1)}},
			wire.Layer{Name: wire.LayerVar, Kind: wire.LayerVar, Min: 0, Max: 0.7},
			wire.Layer{Name: wire.LayerEntropy, Kind: wire.LayerEntropy, Min: 0, Max: 1})
		sh := &shown{res: res, maps: map[string]*mapView{"A": mv}}
		for _, pick := range []string{"", wire.LayerMean, wire.LayerVar, wire.LayerEntropy} {
			cases = append(cases, figureCase{name: "gpcplus layer " + pick, sh: sh, maps: sh, fitted: true, view: "A", pick: pick})
		}
	}

	// Three classes: the predicted class map, the winner's score layer.
	{
		res := &wire.FitResult{Model: "svm", Data: wire.DataInfo{Classes: []string{"a", "b", "c"}}}
		res.Plot = wire.PlotData{Frame: frame, Axes: [2]string{"x₁", "x₂"}, Train: synthPoints(rng, 36, 3, 0), Test: synthPoints(rng, 12, 3, 0)}
		res.Report.Support = []int{1, 3, 5, 30}
		mv := synthMap(rng, frame, false,
			wire.Layer{Name: wire.LayerClass, Kind: wire.LayerClass, Min: 0, Max: 2},
			wire.Layer{Name: wire.LayerDecision, Kind: wire.LayerScore, Min: -2, Max: 3, Contours: []wire.Contour{synthContour(0, "boundary", 3)}})
		sh := &shown{res: res, maps: map[string]*mapView{"A": mv}}
		cases = append(cases,
			figureCase{name: "three classes", sh: sh, maps: sh, fitted: true, view: "A"},
			figureCase{name: "three classes, score layer", sh: sh, maps: sh, fitted: true, view: "A", pick: wire.LayerDecision},
		)
		// as the compute build sends it: the regions' borders on the
		// class layer, a margin layer per class (painted finer than the
		// cells); deterministic, without rng
		const w, h = 6, 5
		cl := wire.Layer{Name: wire.LayerClass, Kind: wire.LayerClass, Min: 0, Max: 2, Contours: []wire.Contour{synthContour(0, "boundary", 3)}}
		g := &wire.GridResult{Frame: frame, W: w, H: h, Layers: []wire.Layer{cl}}
		mv2 := &mapView{g: g, layers: map[string][]float64{}}
		margins := [3][]float64{make([]float64, w*h), make([]float64, w*h), make([]float64, w*h)}
		labels := make([]float64, w*h)
		for j := 0; j < h; j++ {
			for i := 0; i < w; i++ {
				s := [3]float64{-float64(i) + 1.3, float64(i) - float64(j) - 0.7, float64(j) - 2.1}
				best := 0
				for c := range s {
					if s[c] > s[best] {
						best = c
					}
				}
				labels[j*w+i] = float64(best)
				for c := range s {
					m := math.Inf(-1)
					for k := range s {
						if k != c {
							m = math.Max(m, s[k])
						}
					}
					margins[c][j*w+i] = s[c] - m
				}
			}
		}
		mv2.layers[wire.LayerClass] = labels
		for c := range margins {
			name := fmt.Sprintf("margin:%d", c)
			g.Layers = append(g.Layers, wire.Layer{Name: name, Kind: wire.LayerMargin, Min: -3, Max: 3})
			mv2.layers[name] = margins[c]
		}
		sh2 := &shown{res: res, maps: map[string]*mapView{"A": mv2}}
		cases = append(cases, figureCase{name: "three classes with margins: borders, a fine picture", sh: sh2, maps: sh2, fitted: true, view: "A"})
	}

	// Joint SVM, multi-label: one tag's score map.
	{
		res := &wire.FitResult{Model: "jointsvm", Data: wire.DataInfo{Tags: []string{"sun", "rain", "wind"}}}
		res.Plot = wire.PlotData{Frame: frame, Axes: [2]string{"x₁", "x₂"}, Train: synthPoints(rng, 30, 0, 3), Test: synthPoints(rng, 10, 0, 3)}
		res.Report.Support = []int{2, 4, 6}
		var layers []wire.Layer
		for k := 0; k < 3; k++ {
			layers = append(layers, wire.Layer{Name: fmt.Sprintf("tag:%d", k), Kind: wire.LayerTag, Min: -1 - float64(k), Max: 2,
				Contours: []wire.Contour{synthContour(0, "boundary", k+1)}})
		}
		mv := synthMap(rng, frame, false, layers...)
		sh := &shown{res: res, maps: map[string]*mapView{"A": mv}}
		cases = append(cases,
			figureCase{name: "multi-label tag 1", sh: sh, maps: sh, fitted: true, view: "A", tag: 1},
			figureCase{name: "multi-label tag 7 (no such tag)", sh: sh, maps: sh, fitted: true, view: "A", tag: 7},
		)
	}

	// MPWTSVM on two views: per-view dropped constraints, the proximal
	// surfaces, the support and the score in each view.
	{
		res := &wire.FitResult{Model: "mpwtsvm", Data: wire.DataInfo{Classes: []string{"-1", "+1"}}}
		trB, teB := synthPoints(rng, 28, 2, 0), synthPoints(rng, 9, 2, 0)
		res.Plot = wire.PlotData{Frame: frame, FrameB: [4]float64{-2, 2, -2.5, 2.5}, Axes: [2]string{"a₁", "a₂"}, AxesB: [2]string{"b₁", "b₂"},
			Train: synthPoints(rng, 28, 2, 0), Test: synthPoints(rng, 9, 2, 0), TrainB: &trB, TestB: &teB}
		dA, dB := make([]float64, 28), make([]float64, 28)
		for i := 0; i < 28; i += 4 {
			dA[i] = 1
		}
		for i := 1; i < 28; i += 5 {
			dB[i] = 1
		}
		res.Report.Support = []int{0, 1, 2, 3, 10, 11}
		res.Report.Diagnostics = map[string][]float64{"dropped_A": dA, "dropped_B": dB, "alpha": {0.5, 0, 1, 2}}
		planes := func(fr [4]float64) *mapView {
			return synthMap(rng, fr, false,
				wire.Layer{Name: wire.LayerDecision, Kind: wire.LayerScore, Min: -2, Max: 2, Contours: []wire.Contour{synthContour(0, "boundary", 1)}},
				wire.Layer{Name: "plane:pos", Kind: wire.LayerPlane, Min: -1, Max: 1, Contours: []wire.Contour{synthContour(0, "plane", 1), synthContour(1, "plane", 1)}},
				wire.Layer{Name: "plane:neg", Kind: wire.LayerPlane, Min: -1, Max: 1, Contours: []wire.Contour{synthContour(0, "plane", 2)}})
		}
		sh := &shown{res: res, maps: map[string]*mapView{"A": planes(frame), "B": planes(res.Plot.FrameB)}}
		// a result with one dropped list for both views
		res2 := *res
		res2.Report.Diagnostics = map[string][]float64{"dropped": dA}
		sh2 := &shown{res: &res2, maps: map[string]*mapView{"A": sh.maps["A"]}}
		cases = append(cases,
			figureCase{name: "two views, view A", sh: sh, maps: sh, fitted: true, view: "A"},
			figureCase{name: "two views, view B", sh: sh, maps: sh, fitted: true, view: "B"},
			figureCase{name: "two views, view B zoomed", sh: sh, maps: sh, fitted: true, view: "B", zoom: &[4]float64{-1, 1, -1, 1}},
			figureCase{name: "two views, view B unfitted", sh: sh, fitted: false, view: "B"},
			figureCase{name: "two views, one dropped list, view A", sh: sh2, maps: sh2, fitted: true, view: "A"},
			figureCase{name: "two views, one dropped list, view B without its map", sh: sh2, maps: sh2, fitted: true, view: "B"},
		)
	}

	// A model the catalogue does not know (a saved file from elsewhere).
	{
		res := &wire.FitResult{Model: "mystery", Data: wire.DataInfo{Classes: two}}
		res.Plot = wire.PlotData{Frame: frame, Train: synthPoints(rng, 10, 2, 0)}
		res.Report.Support = []int{1}
		sh := &shown{res: res}
		cases = append(cases, figureCase{name: "unknown model", sh: sh, maps: sh, fitted: true, view: "A"})
	}
	return cases
}

// TestExportFitsItsText: the exported figure (paintExport, PNG and SVG)
// wraps a long title and long legend entries to its width and grows to hold
// them: no text starts or (by the painters' estimate) ends outside the
// image. A LUPI result with its halo legend and a title with the data's long
// name and every parameter used to run off the right edge.
func TestExportFitsItsText(t *testing.T) {
	var figs []*figModel
	for _, c := range figureCases() {
		if fm := buildFigure(c.sh, c.maps, c.fitted, c.view, c.tag, c.pick, c.zoom, c.zoomMap, c.brush); fm != nil && len(fm.legend) > 0 {
			figs = append(figs, fm)
		}
	}
	if len(figs) == 0 {
		t.Fatal("no figure with a legend among the cases")
	}
	fm := *figs[0]
	fm.legend = append(append([]legendItem(nil), fm.legend...),
		legendItem{"halo", "#7570b3", "privileged difficulty (the brush's halo): the larger the ring, the harder the teacher says the example is; only the harder half of the training points is marked"})
	title := "SVM2+ on LUPI 2-D (privileged clean coordinates) (n = 200, noise 0.2, split seed 1, 70 % train) — C = 10, gamma = 0.5, gamma_z = 1, lambda = 1"
	for _, n := range []int{1, 2} {
		var fs []*figModel
		for i := 0; i < n; i++ {
			fs = append(fs, &fm)
		}
		w, h := paintExport(nil, fs, title, true)
		p := &textPainter{recPainter: recPainter{counts: map[string]int{}}}
		paintExport(p, fs, title, false)
		if len(p.texts) == 0 {
			t.Fatal("nothing written")
		}
		for _, tx := range p.texts {
			if tx.align != "left" {
				continue // axis labels and centred titles are placed by the figure's own layout
			}
			right := tx.x + textWidth(tx.s, tx.size, 0.52)
			if tx.bold {
				right = tx.x + textWidth(tx.s, tx.size, 0.6)
			}
			if tx.x < 0 || right > w+0.5 || tx.y < 0 || tx.y > h {
				t.Errorf("%d figure(s), %.0f×%.0f: %q at (%.0f, %.0f) reaches x = %.0f", n, w, h, tx.s, tx.x, tx.y, right)
			}
		}
	}
}

// textPainter records the texts painted, with a recPainter for the rest.
type textPainter struct {
	recPainter
	texts []paintedText
}

type paintedText struct {
	x, y, size float64
	s, align   string
	bold       bool
}

func (p *textPainter) text(x, y float64, s string, size float64, fill, align, baseline string, bold bool) {
	p.texts = append(p.texts, paintedText{x, y, size, s, align, bold})
}

// TestDisplayName: the data's column names are shown to people without
// their underscores and CSV role prefixes (a newcomer read "petal_length"
// and "x_1" on the axes); names without them are left alone.
func TestDisplayName(t *testing.T) {
	for _, c := range [][2]string{
		{"x_1", "x₁"}, {"z_12", "z₁₂"}, {"petal_length", "petal length"}, {"x_mean_radius", "mean radius"},
		{"z_worst_concave_points", "worst concave points"}, {"tag_sunny_day", "sunny day"}, {"Iris_setosa", "Iris setosa"},
		{"x_r0c1", "r0c1"}, {"sepal length", "sepal length"}, {"PC1 (45 % of variance)", "PC1 (45 % of variance)"},
		{"x₁", "x₁"}, {"__", "__"}, {"x_", "x"}, {"a__b_", "a b"}, {"0", "0"}, {"x_region-centroid-col", "region-centroid-col"},
	} {
		if got := displayName(c[0]); got != c[1] {
			t.Errorf("displayName(%q) = %q, want %q", c[0], got, c[1])
		}
	}
	// on the axes, in the legend and the colour bar's name
	res := &wire.FitResult{Model: "svm", Data: wire.DataInfo{Classes: []string{"Iris_setosa", "Iris_virginica"}}}
	res.Plot = wire.PlotData{Frame: [4]float64{0, 1, 0, 1}, Axes: [2]string{"petal_length", "x_petal_width"},
		Train: wire.Points{X: []float64{0.5}, Y: []float64{0.5}, Class: []int{1}}}
	fm := buildFigure(&shown{res: res}, nil, false, "A", 0, "", nil, nil, false)
	if fm.axes != [2]string{"petal length", "petal width"} {
		t.Errorf("axes %q", fm.axes)
	}
	if fm.legend[1].text != "Iris virginica (training)" {
		t.Errorf("legend %q", fm.legend[1].text)
	}
}

// TestContourLegendNamesTheLevelsDrawn: every dashed or dotted line a
// figure draws has a legend entry, which names the levels drawn: a map
// with only the margin f = −1 in its range (SVM1+'s on the LUPI 2-D data)
// had a dashed line and no entry, the label going with f = +1 only.
func TestContourLegendNamesTheLevelsDrawn(t *testing.T) {
	for _, c := range []struct {
		kind     string
		contours []wire.Contour
		want     []string
	}{
		{wire.LayerDecision, []wire.Contour{synthContour(0, "boundary", 1), synthContour(-1, "margin", 2), synthContour(1, "margin", 1)},
			[]string{"decision boundary (f = 0)", "margins (f = ±1)"}},
		{wire.LayerDecision, []wire.Contour{synthContour(0, "boundary", 1), synthContour(-1, "margin", 1)},
			[]string{"decision boundary (f = 0)", "margin (f = −1)"}},
		{wire.LayerDecision, []wire.Contour{synthContour(1, "margin", 1)}, []string{"margin (f = +1)"}},
		{wire.LayerProb, []wire.Contour{synthContour(0.5, "boundary", 1), synthContour(0.1, "level", 1), synthContour(0.9, "level", 1)},
			[]string{"decision boundary (p = 0.5)", "p = 0.1 and 0.9"}},
		{wire.LayerProb, []wire.Contour{synthContour(0.5, "boundary", 1), synthContour(0.9, "level", 1)},
			[]string{"decision boundary (p = 0.5)", "p = 0.9"}},
	} {
		var levels []string
		dashedStyles := map[string]bool{}
		for _, cs := range c.contours {
			levels = append(levels, fmt.Sprintf("%s %g", cs.Style, cs.Level))
			if cs.Style != "boundary" {
				dashedStyles[cs.Style] = true
			}
		}
		res := &wire.FitResult{Model: "svm", Data: wire.DataInfo{Classes: []string{"neg", "pos"}}}
		res.Plot = wire.PlotData{Frame: [4]float64{-3, 3, -3, 3}, Axes: [2]string{"x₁", "x₂"}}
		sh := &shown{res: res, maps: map[string]*mapView{"A": synthMap(rand.New(rand.NewSource(1)), res.Plot.Frame, false,
			wire.Layer{Name: c.kind, Kind: c.kind, Min: -2, Max: 2, Contours: c.contours})}}
		fm := buildFigure(sh, sh, true, "A", 0, "", nil, nil, false)
		var got []string
		dashed := 0
		for _, it := range fm.legend {
			if it.kind == "line" || it.kind == "dash" {
				got = append(got, it.text)
			}
			if it.kind == "dash" {
				dashed++
			}
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s layer with lines %q: legend %q, want %q", c.kind, levels, got, c.want)
		}
		if dashed != len(dashedStyles) {
			t.Errorf("%s layer with lines %q: %d dashed legend entries for %d dashed styles", c.kind, levels, dashed, len(dashedStyles))
		}
	}
}
