package ui

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
	"gonum.org/v1/gonum/mat"

	"lupilab/models/model"
	"lupilab/models/run"
	"lupilab/models/viz"
)

// canvasSize is the drawn size of a plot in CSS pixels (it scales down on
// narrow screens through CSS).
const canvasSize = 480

// Plot draws an outcome: the decision heatmap (Go-computed RGBA copied into
// an ImageData), then training points (filled), test points (hollow
// squares, crossed when misclassified), support vectors (ringed, sized by
// α) and the model's per-sample diagnostics (halos) on top.
type Plot struct {
	app.Compo
	Out *run.Outcome
	Tag int // tag shown for multi-label outcomes
}

// halo returns the per-training-sample diagnostic drawn as a halo and its
// legend, if the model reports one.
func halo(o *run.Outcome) ([]float64, string) {
	d := o.Report.Diagnostics
	if v, ok := d["exp_g_mean"]; ok && len(v) == o.Train.Rows() {
		return v, "halo: posterior mean noise exp(g) of each training sample — large halo = hard sample (paper 002)"
	}
	if v, ok := d["slack"]; ok && len(v) == o.Train.Rows() {
		if o.Spec.Z == model.ZPrivileged {
			return v, "halo: slack ξᵢ = g(zᵢ) predicted by the correcting function on the privileged features (paper 000)"
		}
		return v, "halo: hinge slack max(0, 1 − yᵢ f(xᵢ)) of each training sample"
	}
	return nil, ""
}

// Render implements app.Composer.
func (p *Plot) Render() app.UI {
	caption := "Train a model to see its decision surface."
	var legend []string
	o := p.Out
	if o != nil {
		switch {
		case o.Projected:
			caption = fmt.Sprintf("The data has %d features, so no decision heat map can be drawn: points are shown on the "+
				"first two principal components of the training data (%.0f %% + %.0f %% of the variance), filled by true class, "+
				"test points crossed where the prediction is wrong.", o.Train.Dim(), 100*o.PCAVar[0], 100*o.PCAVar[1])
		case len(o.TagSurfaces) > 0:
			caption = "Where the selected tag is predicted (orange) or not (blue); points are orange when they carry the tag."
		case o.Surface != nil && o.Surface.Prob:
			caption = "Probability of the second class; the line is p = 0.5."
		case o.Surface != nil && len(o.Train.Classes) > 2:
			caption = "Predicted class regions; lines are the class boundaries."
		case o.Surface != nil:
			caption = "Decision value: the solid line is the boundary (0), dashed lines the margins (±1)."
		}
		if o.SurfaceB != nil {
			caption = "View A: " + caption
		}
		if _, ok := o.Report.Diagnostics["alpha"]; ok {
			legend = append(legend, "ringed: support vectors, ring size ∝ αᵢ")
		} else if len(o.Report.Support) > 0 {
			legend = append(legend, "ringed: support vectors")
		}
		if _, l := halo(o); l != "" {
			legend = append(legend, l)
		}
		if len(o.Planes) > 0 {
			legend = append(legend, "dashed dark lines: the twin proximal surfaces, w₊·x + b₊ = 0 (orange, close to class "+
				o.Train.Classes[1]+") and w₋·x + b₋ = 0 (blue, close to class "+o.Train.Classes[0]+")")
		}
		if _, ok := o.Report.Diagnostics["dropped"]; ok {
			legend = append(legend, "grey: samples whose constraint the KNN graph dropped (fⱼ = 0)")
		}
		legend = append(legend, "filled dots: training points; hollow squares: test points (crossed if misclassified)")
	}
	views := []app.UI{app.Figure().Class("plot").Body(
		app.Canvas().ID("plot-a").Width(canvasSize).Height(canvasSize).Aria("label", "Decision surface and data"),
		app.FigCaption().ID("plot-caption").Text(caption),
	)}
	if o != nil && o.SurfaceB != nil {
		views = append(views, app.Figure().Class("plot").Body(
			app.Canvas().ID("plot-b").Width(canvasSize).Height(canvasSize).Aria("label", "View B"),
			app.FigCaption().Text("View B: the model's view-B decision on the second view's features."),
		))
	}
	if o != nil && o.Report.Diagnostics["exp_g_mean"] != nil {
		views = append(views, app.Figure().Class("plot small").Body(
			app.Canvas().ID("slopes").Width(300).Height(180).Aria("label", "Likelihood slopes"),
			app.FigCaption().Text("Likelihood Φ(f / √exp(g)) for the easiest, median and hardest training sample: "+
				"hard samples get a flat likelihood, so they pull the boundary less (paper 002, Fig. 1)."),
		))
	}
	return app.Div().Body(
		app.Div().Class("plots").Body(views...),
		app.If(len(legend) > 0, app.Ul().Class("legend").Body(
			app.Range(legend).Slice(func(i int) app.UI { return app.Li().Text(legend[i]) }),
		)),
	)
}

// OnMount draws the current outcome.
func (p *Plot) OnMount(ctx app.Context) { p.later(ctx) }

// OnUpdate redraws when the parent gives a new outcome or tag.
func (p *Plot) OnUpdate(ctx app.Context) { p.later(ctx) }

// later draws in a task of its own, after the page has rendered the new
// numbers: the render and the drawing each stay short.
func (p *Plot) later(ctx app.Context) {
	ctx.After(time.Millisecond, p.draw)
}

func (p *Plot) draw(ctx app.Context) {
	o := p.Out
	if o == nil {
		return
	}
	start := app.Window().Get("performance").Call("now").Float()
	defer func() {
		// Exposed for the performance budget (make bench-web): the time to
		// paint the heatmap and the points, after the grid was computed.
		app.Window().Set("__lupiPaintMs", app.Window().Get("performance").Call("now").Float()-start)
	}()
	s := o.Surface
	if len(o.TagSurfaces) > 0 && p.Tag < len(o.TagSurfaces) {
		s = o.TagSurfaces[p.Tag]
	}
	drawView(o, "plot-a", canvasSize, s, o.TrainXY, o.TestXY, p.Tag, true, "pos", "neg", "A+", "A-")
	if o.SurfaceB != nil {
		drawView(o, "plot-b", canvasSize, o.SurfaceB, o.TrainZXY, o.TestZXY, p.Tag, true, "B+", "B-")
	}
	if g := o.Report.Diagnostics["exp_g_mean"]; g != nil {
		drawSlopes("slopes", g)
	}
}

// pointClass is the colour index of a training or test point.
func pointClass(o *run.Outcome, train bool, i, tag int) int {
	ds := o.Test
	if train {
		ds = o.Train
	}
	switch {
	case ds.Y != nil:
		return ds.Y[i]
	case ds.Tags != nil:
		if ds.Tags.At(i, tag) == 1 {
			return 1
		}
	}
	return 0
}

// drawView paints one canvas. decorations adds support vectors, halos and
// dropped markers (off for thumbnails).
func drawView(o *run.Outcome, id string, size int, s *viz.Surface, trainXY, testXY *mat.Dense, tag int, decorations bool, planes ...string) {
	cv := app.Window().GetElementByID(id)
	if cv.IsNull() || cv.IsUndefined() || trainXY == nil {
		return
	}
	c := cv.Call("getContext", "2d")
	c.Call("clearRect", 0, 0, size, size)
	binaryColours := o.Train.Y == nil || len(o.Train.Classes) <= 2
	var g viz.Grid
	if s != nil {
		g = s.Grid
		rgba := viz.Heatmap(s, !binaryColours && o.Train.Y != nil)
		for _, key := range planes {
			if v, ok := o.Planes[key]; ok {
				pos := key == "pos" || strings.HasSuffix(key, "+")
				viz.Contour(rgba, g.W, g.H, v, viz.PlaneColor(pos), true)
			}
		}
		off := app.Window().Get("document").Call("createElement", "canvas")
		off.Set("width", g.W)
		off.Set("height", g.H)
		oc := off.Call("getContext", "2d")
		img := oc.Call("createImageData", g.W, g.H)
		app.CopyBytesToJS(img.Get("data"), rgba)
		oc.Call("putImageData", img, 0, 0)
		// Coarse grids (expensive models get fewer pixels) look better smoothed.
		c.Set("imageSmoothingEnabled", g.W < 120)
		c.Call("drawImage", off, 0, 0, size, size)
	} else {
		var err error
		g, err = viz.BoundsOf(size, size, 0.08, trainXY, testXY)
		if err != nil {
			return
		}
		c.Set("fillStyle", "#fafafa")
		c.Call("fillRect", 0, 0, size, size)
	}
	scale := float64(size) / float64(g.W)
	colour := func(k int) string {
		if binaryColours {
			return viz.BinaryColor(k)
		}
		return viz.ClassColor(k)
	}
	r := 4.0
	if !decorations {
		r = 2
	}
	diag := o.Report.Diagnostics
	n, _ := trainXY.Dims()
	px := func(m *mat.Dense, i int) (float64, float64) {
		x, y := g.ToPixel(m.At(i, 0), m.At(i, 1))
		return x * scale, y * scale
	}
	// Points are batched into one path per colour (two JS calls a point
	// instead of six): thousands of points redraw in a few milliseconds.
	circles := func(idx []int, m *mat.Dense, radius func(int) float64) {
		c.Call("beginPath")
		for _, i := range idx {
			x, y := px(m, i)
			rr := radius(i)
			c.Call("moveTo", x+rr, y)
			c.Call("arc", x, y, rr, 0, 2*math.Pi)
		}
	}
	if decorations {
		if h, _ := halo(o); h != nil {
			maxH := 0.0
			for _, v := range h {
				maxH = math.Max(maxH, v)
			}
			if maxH > 0 {
				var idx []int
				for i := 0; i < n; i++ {
					if h[i] > 0 {
						idx = append(idx, i)
					}
				}
				c.Set("fillStyle", "rgba(117, 112, 179, 0.28)")
				c.Set("strokeStyle", "rgba(117, 112, 179, 0.9)")
				circles(idx, trainXY, func(i int) float64 { return r + 14*h[i]/maxH })
				c.Call("fill")
				c.Call("stroke")
			}
		}
	}
	alpha := diag["alpha"]
	maxA := 0.0
	for _, a := range alpha {
		maxA = math.Max(maxA, a)
	}
	dropped := diag["dropped"]
	byFill := map[string][]int{}
	var fills []string
	for i := 0; i < n; i++ {
		fill := colour(pointClass(o, true, i, tag))
		if decorations && i < len(dropped) && dropped[i] == 1 {
			fill = "#b0b0b0"
		}
		if _, ok := byFill[fill]; !ok {
			fills = append(fills, fill)
		}
		byFill[fill] = append(byFill[fill], i)
	}
	c.Set("lineWidth", 1)
	c.Set("strokeStyle", "#222")
	for _, fill := range fills {
		c.Set("fillStyle", fill)
		circles(byFill[fill], trainXY, func(int) float64 { return r })
		c.Call("fill")
		c.Call("stroke")
	}
	if decorations && len(o.Report.Support) > 0 {
		var sv []int
		for _, i := range o.Report.Support {
			if i >= 0 && i < n {
				sv = append(sv, i)
			}
		}
		circles(sv, trainXY, func(i int) float64 {
			if maxA > 0 && i < len(alpha) {
				return r + 1.5 + 5*alpha[i]/maxA
			}
			return r + 3
		})
		c.Call("stroke")
	}
	m, _ := testXY.Dims()
	c.Set("lineWidth", 2)
	byClass := map[int][]int{}
	var classes []int
	var wrongs []int
	for i := 0; i < m; i++ {
		k := pointClass(o, false, i, tag)
		if _, ok := byClass[k]; !ok {
			classes = append(classes, k)
		}
		byClass[k] = append(byClass[k], i)
		if wrong(o, i, tag) {
			wrongs = append(wrongs, i)
		}
	}
	for _, k := range classes {
		c.Set("strokeStyle", colour(k))
		c.Call("beginPath")
		for _, i := range byClass[k] {
			x, y := px(testXY, i)
			c.Call("rect", x-r+0.5, y-r+0.5, 2*r-1, 2*r-1)
		}
		c.Call("stroke")
	}
	if len(wrongs) > 0 {
		c.Set("strokeStyle", "#000")
		c.Call("beginPath")
		for _, i := range wrongs {
			x, y := px(testXY, i)
			c.Call("moveTo", x-r-1, y-r-1)
			c.Call("lineTo", x+r+1, y+r+1)
			c.Call("moveTo", x+r+1, y-r-1)
			c.Call("lineTo", x-r-1, y+r+1)
		}
		c.Call("stroke")
	}
}

func wrong(o *run.Outcome, i, tag int) bool {
	p := o.TestPred
	switch {
	case o.Test.Y != nil && i < len(p.Labels):
		return p.Labels[i] != o.Test.Y[i]
	case o.Test.Tags != nil && i < len(p.Tags) && tag < len(p.Tags[i]):
		return p.Tags[i][tag] != (o.Test.Tags.At(i, tag) == 1)
	}
	return false
}

// drawSlopes plots the probit likelihood for three noise levels.
func drawSlopes(id string, expg []float64) {
	cv := app.Window().GetElementByID(id)
	if cv.IsNull() || cv.IsUndefined() || len(expg) == 0 {
		return
	}
	sorted := append([]float64(nil), expg...)
	sort.Float64s(sorted)
	levels := []float64{sorted[0], sorted[len(sorted)/2], sorted[len(sorted)-1]}
	labels := []string{"easiest", "median", "hardest"}
	const w, h = 300.0, 180.0
	fs := make([]float64, 121)
	for i := range fs {
		fs[i] = -3 + 6*float64(i)/120
	}
	curves := viz.LikelihoodCurves(levels, fs)
	c := cv.Call("getContext", "2d")
	c.Call("clearRect", 0, 0, w, h)
	c.Set("fillStyle", "#fff")
	c.Call("fillRect", 0, 0, w, h)
	c.Set("strokeStyle", "#ccc")
	c.Call("strokeRect", 30, 10, w-40, h-40)
	colours := []string{"#0072b2", "#009e73", "#d55e00"}
	for k, cu := range curves {
		c.Set("strokeStyle", colours[k])
		c.Set("lineWidth", 2)
		c.Call("beginPath")
		for i, v := range cu {
			x := 30 + (w-40)*float64(i)/float64(len(cu)-1)
			y := 10 + (h-40)*(1-v)
			if i == 0 {
				c.Call("moveTo", x, y)
			} else {
				c.Call("lineTo", x, y)
			}
		}
		c.Call("stroke")
		c.Set("fillStyle", colours[k])
		c.Set("font", "11px sans-serif")
		c.Call("fillText", fmt.Sprintf("%s: exp(g) = %.2g", labels[k], levels[k]), 36, 24+14*float64(k))
	}
	c.Set("fillStyle", "#333")
	c.Call("fillText", "f", w-16, h-14)
	c.Call("fillText", "−3", 24, h-16)
	c.Call("fillText", "3", w-14, h-16)
	c.Call("fillText", "1", 18, 14)
	c.Call("fillText", "0", 18, h-30)
}
