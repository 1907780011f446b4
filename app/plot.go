package ui

import (
	"fmt"
	"math"

	"github.com/maxence-charriere/go-app/v9/pkg/app"
	"gonum.org/v1/gonum/mat"

	"lupilab/models/run"
	"lupilab/models/viz"
)

// canvasSize is the drawn size of a plot in CSS pixels (it scales down on
// narrow screens through CSS).
const canvasSize = 480

// Plot draws an outcome: the decision heatmap (Go-computed RGBA copied into
// an ImageData), then training points (filled), test points (hollow
// squares), support vectors (ringed) on top.
type Plot struct {
	app.Compo
	Out *run.Outcome
}

// Render implements app.Composer.
func (p *Plot) Render() app.UI {
	caption := "Train a model to see its decision surface."
	if o := p.Out; o != nil {
		switch {
		case o.Projected:
			caption = fmt.Sprintf("The data has %d features: points are shown on the first two principal components "+
				"of the training data (%.0f %% + %.0f %% of the variance). A decision heat map needs 2-D data.",
				o.Train.Dim(), 100*o.PCAVar[0], 100*o.PCAVar[1])
		case o.Surface != nil && o.Surface.Prob:
			caption = "Probability of the second class; the line is p = 0.5."
		case o.Surface != nil:
			caption = "Decision value: the solid line is the boundary (0), dashed lines the margins (±1)."
		}
	}
	views := []app.UI{app.Figure().Class("plot").Body(
		app.Canvas().ID("plot-a").Width(canvasSize).Height(canvasSize).Aria("label", "Decision surface and data, view A"),
		app.FigCaption().Text(caption),
	)}
	if p.Out != nil && p.Out.SurfaceB != nil {
		views = append(views, app.Figure().Class("plot").Body(
			app.Canvas().ID("plot-b").Width(canvasSize).Height(canvasSize).Aria("label", "View B"),
			app.FigCaption().Text("View B: the model's view-B decision."),
		))
	}
	return app.Div().Class("plots").Body(views...)
}

// OnMount draws the current outcome.
func (p *Plot) OnMount(ctx app.Context) { ctx.Defer(p.draw) }

// OnUpdate redraws when the parent gives a new outcome.
func (p *Plot) OnUpdate(ctx app.Context) { ctx.Defer(p.draw) }

func (p *Plot) draw(ctx app.Context) {
	o := p.Out
	if o == nil {
		return
	}
	drawView(o, "plot-a", o.Surface, o.TrainXY, o.TestXY)
	if o.SurfaceB != nil {
		drawView(o, "plot-b", o.SurfaceB, o.TrainZXY, o.TestZXY)
	}
}

func drawView(o *run.Outcome, id string, s *viz.Surface, trainXY, testXY *mat.Dense) {
	cv := app.Window().GetElementByID(id)
	if cv.IsNull() || cv.IsUndefined() || trainXY == nil {
		return
	}
	c := cv.Call("getContext", "2d")
	c.Call("clearRect", 0, 0, canvasSize, canvasSize)
	var g viz.Grid
	if s != nil {
		g = s.Grid
		rgba := viz.Heatmap(s, len(o.Train.Classes) > 2)
		off := app.Window().Get("document").Call("createElement", "canvas")
		off.Set("width", g.W)
		off.Set("height", g.H)
		oc := off.Call("getContext", "2d")
		img := oc.Call("createImageData", g.W, g.H)
		app.CopyBytesToJS(img.Get("data"), rgba)
		oc.Call("putImageData", img, 0, 0)
		c.Set("imageSmoothingEnabled", false)
		c.Call("drawImage", off, 0, 0, canvasSize, canvasSize)
	} else {
		var err error
		g, err = viz.BoundsOf(canvasSize, canvasSize, 0.08, trainXY, testXY)
		if err != nil {
			return
		}
		c.Set("fillStyle", "#fafafa")
		c.Call("fillRect", 0, 0, canvasSize, canvasSize)
	}
	scale := float64(canvasSize) / float64(g.W)
	sv := map[int]bool{}
	for _, i := range o.Report.Support {
		sv[i] = true
	}
	c.Set("lineWidth", 1)
	n, _ := trainXY.Dims()
	for i := 0; i < n; i++ {
		x, y := g.ToPixel(trainXY.At(i, 0), trainXY.At(i, 1))
		x, y = x*scale, y*scale
		cls := 0
		if o.Train.Y != nil {
			cls = o.Train.Y[i]
		}
		c.Set("fillStyle", viz.ClassColor(cls))
		c.Set("strokeStyle", "#222")
		c.Call("beginPath")
		c.Call("arc", x, y, 4, 0, 2*math.Pi)
		c.Call("fill")
		c.Call("stroke")
		if sv[i] {
			c.Call("beginPath")
			c.Call("arc", x, y, 7, 0, 2*math.Pi)
			c.Call("stroke")
		}
	}
	m, _ := testXY.Dims()
	c.Set("lineWidth", 2)
	for i := 0; i < m; i++ {
		x, y := g.ToPixel(testXY.At(i, 0), testXY.At(i, 1))
		x, y = x*scale, y*scale
		cls := 0
		if o.Test.Y != nil {
			cls = o.Test.Y[i]
		}
		c.Set("strokeStyle", viz.ClassColor(cls))
		c.Call("strokeRect", x-3.5, y-3.5, 7, 7)
	}
}
