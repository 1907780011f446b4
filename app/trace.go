package app

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/wire"
)

// traceChart draws a watched fit's measure against its iterations (both
// on log scales when the measure asks for it: iterations come at 1, 2, 4,
// …, and a KKT violation falls by orders of magnitude) as an inline SVG,
// with the last value in words. The measures are the worker's; this only
// places them. running says the fit is still training, skipped that its
// snapshots stopped when the user skipped to the end.
func traceChart(id string, trace []wire.Snapshot, running, skipped bool) app.UI {
	if len(trace) == 0 {
		return app.Div().ID(id)
	}
	const w, h, left, right, top, bottom = 300.0, 110.0, 46.0, 8.0, 8.0, 26.0
	last := trace[len(trace)-1]
	logY := last.Log
	fx := func(it int) float64 { return math.Log10(float64(max(it, 1))) }
	fy := func(v float64) float64 {
		if logY {
			return math.Log10(math.Max(v, 1e-300))
		}
		return v
	}
	x0, x1 := fx(trace[0].Iter), fx(last.Iter)
	y0, y1 := math.Inf(1), math.Inf(-1)
	for _, t := range trace {
		if y := fy(t.Value); !math.IsInf(y, 0) && !math.IsNaN(y) {
			y0, y1 = math.Min(y0, y), math.Max(y1, y)
		}
	}
	if math.IsInf(y0, 1) {
		return app.Div().ID(id)
	}
	if x1 <= x0 {
		x1 = x0 + 1
	}
	if y1 <= y0 {
		y0, y1 = y0-0.5, y1+0.5
	}
	px := func(x float64) float64 { return left + (x-x0)/(x1-x0)*(w-left-right) }
	py := func(y float64) float64 { return top + (y1-y)/(y1-y0)*(h-top-bottom) }
	var pts []string
	for _, t := range trace {
		if y := fy(t.Value); !math.IsInf(y, 0) && !math.IsNaN(y) {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(fx(t.Iter)), py(y)))
		}
	}
	label := func(y float64) string {
		if logY {
			return logTick(math.Pow(10, y))
		}
		return fmt.Sprintf("%.3g", y)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="trace" viewBox="0 0 %g %g" width="%g" height="%g" role="img" aria-label="%s against iterations">`,
		w, h, w, h, html.EscapeString(last.Quantity))
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#999" stroke-width="0.5"/>`, left, top, w-left-right, h-top-bottom)
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="9" text-anchor="end">%s</text>`, left-3, top+8, label(y1))
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="9" text-anchor="end">%s</text>`, left-3, h-bottom, label(y0))
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="9">%d</text>`, left, h-bottom+11, trace[0].Iter)
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="9" text-anchor="end">%d</text>`, w-right, h-bottom+11, last.Iter)
	axis := "iteration"
	if logY {
		axis += " (log scales)"
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" font-size="9" text-anchor="middle">%s</text>`, (left+w-right)/2, h-3, axis)
	fmt.Fprintf(&b, `<polyline fill="none" stroke="#1f6fb2" stroke-width="1.5" points="%s"/>`, strings.Join(pts, " "))
	b.WriteString(`</svg>`)
	state := "while training"
	switch {
	case !running && skipped:
		state = "how the fit got there until skipped to the end"
	case !running:
		state = "how the fit got there"
	}
	stage := ""
	if last.Stage != "" {
		stage = last.Stage + ", "
	}
	return app.Figure().ID(id).Class("trace-wrap").Body(
		app.Raw(b.String()),
		app.FigCaption().ID(id+"-text").Text(fmt.Sprintf("%s (%s): %s%.4g at iteration %d", upperFirst(last.Quantity), state, stage, last.Value, last.Iter)),
	)
}

// replay is "Watch it learn"'s pace: how many times faster than the
// engine's standard pace (one snapshot every 120 ms at most) a watched fit
// shows its iterates — the user's choice, kept for the next watched fits —
// and the watched fit the user skipped to the end of.
type replay struct {
	speed   float64 // 0: 1
	skipped *Job
}

// watchSpeeds are the speeds offered.
var watchSpeeds = []float64{1, 2, 4}

func (r *replay) current() float64 {
	if r.speed <= 0 {
		return 1
	}
	return r.speed
}

// watchControls are a watched fit's speed (1×, 2×, 4×: a radio group, so
// the arrow keys move between them) and "Skip to the end" (the fit then
// finishes at full speed, with the same result); ids watch-speed-<n> and
// watch-skip.
func (s *session) watchControls() app.UI {
	job := s.fit.job
	if job != nil && s.replay.skipped == job {
		return app.Div().ID("watch-controls").Class("watch-controls").Body(
			app.Span().Class("stage").Text("Skipping to the end: training at full speed…"))
	}
	cur := s.replay.current()
	return app.Div().ID("watch-controls").Class("watch-controls").Role("group").Aria("label", "Watching").Body(
		app.Div().Class("tools").Role("radiogroup").Aria("label", "Watching speed").Body(
			app.Span().Class("stage").Aria("hidden", "true").Text("Speed"),
			app.Range(watchSpeeds).Slice(func(i int) app.UI {
				sp := watchSpeeds[i]
				id := "watch-speed-" + strconv.FormatFloat(sp, 'f', -1, 64)
				return app.Label().Class("tool").For(id).Body(
					app.Input().Type("radio").Name("watch-speed").ID(id).Checked(cur == sp).Aria("label", fmt.Sprintf("%g× speed", sp)).
						OnChange(func(ctx app.Context, e app.Event) {
							s.replay.speed = sp
							s.fit.job.Pace(wire.Pace{Speed: sp})
							s.refreshProgress()
						}),
					app.Text(fmt.Sprintf(" %g×", sp)),
				)
			}),
		),
		app.Button().ID("watch-skip").Text("Skip to the end").Title("Train at full speed without more snapshots: the result is the same").
			OnClick(func(ctx app.Context, e app.Event) {
				if j := s.fit.job; j != nil {
					j.Pace(wire.Pace{Skip: true})
					s.replay.skipped = j
					s.refreshProgress()
				}
			}),
	)
}

// logTick writes a log axis's end value with two significant digits in
// plain notation ("60", "0.0062", "1200"), exponents only for the very
// large and small ("3.1e+06").
func logTick(v float64) string {
	if v == 0 || math.Abs(v) >= 1e5 || math.Abs(v) < 1e-4 {
		return fmt.Sprintf("%.1e", v)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'e', 1, 64), 64) // two significant digits
	return strconv.FormatFloat(r, 'f', -1, 64)
}
