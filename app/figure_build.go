package app

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"lupilab/models/spec"
	"lupilab/models/wire"
)

// pointRadius is a training point's radius in CSS pixels; the other marks
// are sized from it.
const pointRadius = 4.0

// figureInput is what one figure is built from: one view of a result.
type figureInput struct {
	res         *wire.FitResult
	spec        *spec.Spec // nil for a model the catalogue does not know
	fitted      bool       // the points carry the fit's diagnostics
	view        string     // "A" or "B"
	tag         int        // the tag shown, for multi-label data
	multiLabel  bool
	classes     []string
	nClasses    int // colours of the classes: 2 for a tag (has it or not)
	frame       [4]float64
	axes        [2]string
	train, test wire.Points
}

// newFigureInput selects a view of res; false when the result has no such
// view (view B of one-view data).
func newFigureInput(res *wire.FitResult, fitted bool, view string, tag int) (*figureInput, bool) {
	in := &figureInput{res: res, fitted: fitted, view: view, tag: tag, classes: res.Data.Classes,
		frame: res.Plot.Frame, axes: res.Plot.Axes, train: res.Plot.Train, test: res.Plot.Test}
	if view == "B" {
		if res.Plot.TrainB == nil {
			return nil, false
		}
		in.frame, in.axes, in.train, in.test = res.Plot.FrameB, res.Plot.AxesB, *res.Plot.TrainB, *res.Plot.TestB
	}
	in.axes = [2]string{displayName(in.axes[0]), displayName(in.axes[1])}
	in.spec, _ = spec.Lookup(res.Model)
	in.multiLabel = len(res.Data.Tags) > 0
	in.nClasses = len(in.classes)
	if in.multiLabel {
		in.nClasses = 2
	}
	return in, true
}

// classOf is point i's colour class: its class, or for multi-label data
// whether it has the tag shown.
func (in *figureInput) classOf(p wire.Points, i int) int {
	switch {
	case in.multiLabel && i < len(p.Tags):
		if p.Tags[i]&(1<<uint(in.tag)) != 0 {
			return 1
		}
		return 0
	case i < len(p.Class):
		return p.Class[i]
	}
	return 0
}

// classLabel names colour class k in the legend.
func (in *figureInput) classLabel(k int) string {
	if !in.multiLabel {
		return className(in.classes, k)
	}
	t := tagName(in.res.Data.Tags, in.tag)
	if k == 0 {
		return "no tag " + t
	}
	return "has tag " + t
}

// dropped marks the training points whose constraint the model dropped
// (1), the view's own list when the model reports one per view.
func (in *figureInput) dropped() []float64 {
	diag := in.res.Report.Diagnostics
	if v := diag["dropped_"+in.view]; (in.view == "A" || in.view == "B") && v != nil {
		return v
	}
	return diag["dropped"]
}

// halos returns the halo sizes of the training points and their legend:
// the difficulty brush's, while it is in hand, else the per-sample
// difficulty a fitted LUPI model reports (nil: no halos).
func (in *figureInput) halos(brush bool) ([]float64, string) {
	n := len(in.train.X)
	if brush && len(in.train.Difficulty) == n {
		return in.train.Difficulty, "halo: how hard the privileged features say the point is (the difficulty brush paints it)"
	}
	if !in.fitted {
		return nil, ""
	}
	return haloOf(in.spec, in.res.Report.Diagnostics, n)
}

// buildFigure lays out one view of the result on screen: the map (maps's,
// or the zoom's own once it came) with its contours, then the points from
// back to front — halos, training points by class, support-vector rings,
// test points, crosses on the misclassified ones — and the legend in the
// same order, closed by the frame's clipping mark and the contours.
func buildFigure(sh, maps *shown, fitted bool, view string, tag int, layerPick string, zoom *[4]float64, zoomMap *mapView, brush bool) *figModel {
	in, ok := newFigureInput(sh.res, fitted, view, tag)
	if !ok {
		return nil
	}
	fm := &figModel{view: view, frame: in.frame, axes: in.axes, title: figureTitle(in.spec, in.res, view, in.multiLabel, tag)}
	if zoom != nil {
		fm.frame = *zoom
	}
	if mv := mapFor(maps, view, zoomMap); mv != nil {
		fm.addMap(in, mv, layerPick)
	}
	fm.addHalos(in, brush)
	fm.addTraining(in)
	fm.addSupport(in)
	fm.addTest(in)
	fm.countClipped()
	fm.addContourLegend()
	return fm
}

// mapFor returns the map under a view: the zoom's own map once it came,
// else the fit's; nil without maps.
func mapFor(maps *shown, view string, zoomMap *mapView) *mapView {
	switch {
	case maps == nil:
		return nil
	case zoomMap != nil:
		return zoomMap
	}
	return maps.maps[view]
}

// addMap shows mv's layer (the one picked, else the first of probability,
// class and decision; a multi-label model's tag shown), its colour scale
// and contours, and a twin SVM's proximal surfaces.
func (fm *figModel) addMap(in *figureInput, mv *mapView, pick string) {
	fm.mapFrame = mv.g.Frame
	l := chooseLayer(mv.g.Layers, in.multiLabel, in.tag, pick)
	if l == nil {
		return
	}
	fm.layer, fm.values, fm.w, fm.h, fm.hasMap, fm.preview = l, mv.layers[l.Name], mv.g.W, mv.g.H, true, mv.g.Preview
	fm.scale = layerScale(l, in.nClasses, in.classes)
	if l.Kind == wire.LayerClass {
		fm.margins = classMargins(mv, in.nClasses)
	}
	fm.contours = append(fm.contours, layerContours(l)...)
	fm.contours = append(fm.contours, proximalSurfaces(mv.g.Layers, in.classes)...)
}

// classMargins returns a multi-class map's margin layers in class order
// (nil unless the map has one for each class, all of its size).
func classMargins(mv *mapView, n int) [][]float64 {
	out := make([][]float64, n)
	for c := range out {
		out[c] = mv.layers[fmt.Sprintf("%s:%d", wire.LayerMargin, c)]
		if len(out[c]) != mv.g.W*mv.g.H {
			return nil
		}
	}
	return out
}

func findLayer(layers []wire.Layer, name string) *wire.Layer {
	for i := range layers {
		if layers[i].Name == name {
			return &layers[i]
		}
	}
	return nil
}

// chooseLayer returns the layer a figure shows (nil: none fits).
func chooseLayer(layers []wire.Layer, multiLabel bool, tag int, pick string) *wire.Layer {
	if multiLabel {
		return findLayer(layers, fmt.Sprintf("tag:%d", tag))
	}
	if pick != "" {
		if l := findLayer(layers, pick); l != nil {
			return l
		}
	}
	for _, name := range []string{wire.LayerProb, wire.LayerClass, wire.LayerDecision} {
		if l := findLayer(layers, name); l != nil {
			return l
		}
	}
	return nil
}

// layerScale is the colour scale of layer l. A signed layer's span was
// chosen by the worker that computed it (wire.Layer.Span).
func layerScale(l *wire.Layer, nClasses int, classes []string) scale {
	switch l.Kind {
	case wire.LayerProb:
		return scale{kind: "prob", lo: 0, hi: 1, label: "P(" + className(classes, 1) + ")"}
	case wire.LayerVar:
		return scale{kind: "sequential", lo: 0, hi: l.Max, label: "predictive variance"}
	case wire.LayerEntropy:
		return scale{kind: "sequential", lo: 0, hi: 1, label: "predictive entropy (bits)"}
	case wire.LayerClass:
		return scale{kind: "classes", n: nClasses, label: "predicted class"}
	case wire.LayerTag:
		return scale{kind: "diverging", lo: l.Min, hi: l.Max, label: "tag score"}
	}
	m := l.Span
	if !(m > 0) {
		m = 1 // a layer without a span (never sent by the compute build)
	}
	lo, hi := -m, m
	label := "decision value f(x)"
	switch l.Kind {
	case wire.LayerMean:
		label = "latent mean m(x)"
	case wire.LayerScore:
		label = "decision score (0 at the boundary)"
	}
	return scale{kind: "diverging", lo: lo, hi: hi, label: label}
}

// layerContours styles the iso-lines of layer l; the first line of each
// style carries the legend label, which names the levels of that style the
// figure draws (a margin or guide level outside the map's range is not
// drawn, so SVM1+'s map with f = −1 and no f = +1 in it had a dashed line
// and no legend entry).
func layerContours(l *wire.Layer) []contourStyle {
	levels := map[string][]float64{}
	for _, c := range l.Contours {
		levels[c.Style] = append(levels[c.Style], c.Level)
	}
	out := make([]contourStyle, 0, len(l.Contours))
	labelled := map[string]bool{}
	for _, c := range l.Contours {
		cs := contourStyleOf(c)
		if !labelled[c.Style] {
			labelled[c.Style] = true
			cs.label = contourLabel(c.Style, l.Kind, levels[c.Style])
		}
		out = append(out, cs)
	}
	return out
}

// contourStyleOf styles an iso-line of a layer.
func contourStyleOf(c wire.Contour) contourStyle {
	cs := contourStyle{paths: c.Paths, colour: "#1b1f24", width: 2}
	switch c.Style {
	case "margin":
		cs.width, cs.dash = 1.2, []float64{6, 4}
	case "level":
		cs.width, cs.dash, cs.colour = 1, []float64{2, 3}, "#444"
	}
	return cs
}

// contourLabel is the legend label of the iso-lines of one style of a layer
// of the given kind, drawn at the given levels: the margins f = ±1 or the
// one of them drawn, the guides p = 0.1 and 0.9 or the one drawn.
func contourLabel(style, kind string, levels []float64) string {
	switch style {
	case "boundary":
		return "decision boundary" + boundaryLevel(kind)
	case "margin":
		if len(levels) > 1 {
			return "margins (f = ±1)"
		}
		return "margin (f = " + signedLevel(levels[0]) + ")"
	case "level":
		if len(levels) > 1 {
			return "p = 0.1 and 0.9"
		}
		return "p = " + strconv.FormatFloat(levels[0], 'g', -1, 64)
	}
	return ""
}

// signedLevel writes a margin's level with its sign (+1, −1).
func signedLevel(v float64) string {
	if v < 0 {
		return "−" + strconv.FormatFloat(-v, 'g', -1, 64)
	}
	return "+" + strconv.FormatFloat(v, 'g', -1, 64)
}

// boundaryLevel says which level of a layer the decision boundary is.
func boundaryLevel(kind string) string {
	switch kind {
	case wire.LayerProb:
		return " (p = 0.5)"
	case wire.LayerDecision:
		return " (f = 0)"
	case wire.LayerMean:
		return " (m = 0, p = 0.5)"
	case wire.LayerClass:
		return " (between the predicted classes)"
	}
	return ""
}

// proximalSurfaces returns a twin SVM's proximal surface of each class:
// the 0 level of its plane layers.
func proximalSurfaces(layers []wire.Layer, classes []string) []contourStyle {
	var out []contourStyle
	for _, pl := range layers {
		if pl.Kind != wire.LayerPlane {
			continue
		}
		k := 0
		if strings.HasSuffix(pl.Name, "pos") || strings.HasSuffix(pl.Name, "+") {
			k = 1
		}
		for _, c := range pl.Contours {
			if c.Level == 0 {
				out = append(out, contourStyle{paths: c.Paths, colour: classColour(k, 2).css(), width: 1.6, dash: []float64{8, 3, 2, 3},
					label: "proximal surface of class " + className(classes, k)})
			}
		}
	}
	return out
}

// add appends a point of radius r.
func (g *pointGroup) add(x, y, r float64) {
	g.xs, g.ys, g.rs = append(g.xs, x), append(g.ys, y), append(g.rs, r)
}

// classGroups collects points into one group per colour class.
type classGroups struct {
	byClass map[int]*pointGroup
	style   func(k int) pointGroup // a new group's style
}

func newClassGroups(style func(k int) pointGroup) *classGroups {
	return &classGroups{byClass: map[int]*pointGroup{}, style: style}
}

func (c *classGroups) add(k int, x, y, r float64) {
	g := c.byClass[k]
	if g == nil {
		s := c.style(k)
		g = &s
		c.byClass[k] = g
	}
	g.add(x, y, r)
}

// appendGroups adds the groups to the figure in class order.
func (fm *figModel) appendGroups(c *classGroups) {
	keys := make([]int, 0, len(c.byClass))
	for k := range c.byClass {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		fm.points = append(fm.points, *c.byClass[k])
	}
}

func (fm *figModel) addLegend(kind, colour, text string) {
	fm.legend = append(fm.legend, legendItem{kind: kind, colour: colour, text: text})
}

// addHalos rings the harder training points (see figureInput.halos).
func (fm *figModel) addHalos(in *figureInput, brush bool) {
	h, label := in.halos(brush)
	if h == nil {
		return
	}
	if g, ok := haloGroup(h, in.train, pointRadius); ok {
		fm.points = append(fm.points, g)
		fm.addLegend("halo", "rgba(84,39,143,0.75)", label)
	}
}

// addTraining adds the training points by class, those whose constraint
// the fit dropped in grey.
func (fm *figModel) addTraining(in *figureInput) {
	dropped := in.dropped()
	anyDropped := false
	groups := newClassGroups(func(k int) pointGroup {
		fill := "#9a9a9a"
		if k >= 0 {
			fill = classColour(k, in.nClasses).css()
		}
		return pointGroup{shape: "circle", fill: fill, stroke: "#1b1f24", width: 0.8}
	})
	for i := range in.train.X {
		k := in.classOf(in.train, i)
		if in.fitted && i < len(dropped) && dropped[i] == 1 {
			k, anyDropped = -1, true
		}
		groups.add(k, in.train.X[i], in.train.Y[i], pointRadius)
	}
	fm.appendGroups(groups)
	for k := 0; k < in.nClasses; k++ {
		fm.addLegend("dot", classColour(k, in.nClasses).css(), in.classLabel(k)+" (training)")
	}
	if anyDropped {
		fm.addLegend("dot", "#9a9a9a", "constraint dropped by the neighbour graph (fⱼ = 0)")
	}
}

// addSupport rings a fit's support vectors, sized by α when the model
// reports it; nothing when every training point is one, or for an
// imported model.
func (fm *figModel) addSupport(in *figureInput) {
	m, sv, n := in.spec, in.res.Report.Support, len(in.train.X)
	// an imported model's support vectors are rows of the data it was
	// trained on (the file does not say which): not rows of this data
	if !in.fitted || in.res.Imported || m == nil || m.Support == "" || len(sv) == 0 || len(sv) >= n {
		return
	}
	alpha := in.res.Report.Diagnostics["alpha"]
	maxA := 0.0
	for _, a := range alpha {
		maxA = math.Max(maxA, a)
	}
	g := pointGroup{shape: "ring", stroke: "#1b1f24", width: 1.2}
	for _, i := range sv {
		if i < 0 || i >= n {
			continue
		}
		r := pointRadius + 3
		if maxA > 0 && i < len(alpha) {
			r = pointRadius + 1.8 + 4*alpha[i]/maxA
		}
		g.add(in.train.X[i], in.train.Y[i], r)
	}
	fm.points = append(fm.points, g)
	text := m.Support
	if alpha != nil {
		text += " (ring size ∝ α)"
	}
	fm.addLegend("ring", "#1b1f24", text)
}

// addTest adds the test points, hollow squares in their true class's
// colour, crossed when a fit misclassified them.
func (fm *figModel) addTest(in *figureInput) {
	groups := newClassGroups(func(k int) pointGroup {
		return pointGroup{shape: "square", stroke: classColour(k, in.nClasses).css(), width: 1.8}
	})
	wrong := pointGroup{shape: "cross", stroke: "#000", width: 1.6}
	test := in.test
	for i := range test.X {
		groups.add(in.classOf(test, i), test.X[i], test.Y[i], pointRadius-0.5)
		if in.fitted && misclassified(test, i, in.multiLabel, in.tag) {
			wrong.add(test.X[i], test.Y[i], pointRadius+1)
		}
	}
	fm.appendGroups(groups)
	if len(test.X) > 0 {
		fm.addLegend("square", "#5a6470", "test point (colour: true class)")
	}
	if len(wrong.xs) > 0 {
		fm.points = append(fm.points, wrong)
		fm.addLegend("cross", "#000", "misclassified test point")
	}
}

// countClipped counts the points outside the frame (drawn at its edge).
func (fm *figModel) countClipped() {
	fr := fm.frame
	for _, g := range fm.points {
		for i := range g.xs {
			if g.xs[i] < fr[0] || g.xs[i] > fr[1] || g.ys[i] < fr[2] || g.ys[i] > fr[3] {
				fm.clipped++
			}
		}
	}
	if fm.clipped > 0 {
		fm.addLegend("triangle", "#1b1f24", "point outside the frame, drawn at its edge")
	}
}

// addContourLegend lists the labelled contours.
func (fm *figModel) addContourLegend() {
	for _, c := range fm.contours {
		if c.label == "" {
			continue
		}
		kind := "line"
		if len(c.dash) > 0 {
			kind = "dash"
		}
		fm.addLegend(kind, c.colour, c.label)
	}
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

// className is class k's name as the page shows it (displayName).
func className(classes []string, k int) string {
	if k >= 0 && k < len(classes) {
		return displayName(classes[k])
	}
	return strconv.Itoa(k)
}

// tagName is tag t's name as the page shows it (displayName).
func tagName(tags []string, t int) string {
	if t >= 0 && t < len(tags) {
		return displayName(tags[t])
	}
	return strconv.Itoa(t)
}

// displayName is a column's name (a feature, class or tag: an identifier
// of the data file) as a label for people, in axis titles, legends and
// tooltips: a CSV role prefix ("x_", "z_", "tag_") before a word is left
// out, a letter with an index ("x_1", "z_12") is written with a subscript
// (x₁, as the plots name unnamed features), and the other underscores are
// spaces: "x_petal_length" reads "petal length". Files, links and CSV
// headers keep the names as they are.
func displayName(name string) string {
	s := strings.TrimSpace(name)
	if i := strings.IndexByte(s, '_'); i == 1 && len(s) > 2 && isDigits(s[2:]) {
		var b strings.Builder
		b.WriteString(s[:1])
		for _, r := range s[2:] {
			b.WriteRune('₀' + (r - '0'))
		}
		return b.String()
	}
	for _, p := range []string{"x_", "z_", "tag_"} {
		if !strings.HasPrefix(strings.ToLower(s), p) {
			continue
		}
		if rest := s[len(p):]; rest != "" && !isDigits(rest[:1]) && rest[0] != '_' {
			s = rest
		}
		break
	}
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, "_", " ")), " ")
	if s == "" {
		return name
	}
	return s
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
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
