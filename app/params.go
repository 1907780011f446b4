package ui

import (
	"math"
	"strconv"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/model"
)

// advancedParams are solver settings rather than modelling choices; the
// form folds them away (a spec can also mark a parameter Advanced).
var advancedParams = map[string]bool{
	"eps": true, "shrinking": true, "cache": true, "precision": true, "max_iter": true,
	"restarts": true, "max_sweeps": true, "damping": true, "quad_nodes": true, "ccp_iter": true,
	"ridge": true, "multiclass": true, "ard": true, "oreg": true, "predict": true, "optimize_gamplitude": true,
	"wpos": true, "wneg": true, "balanced": true, "probability": true, "tol": true, "max_iters": true,
}

// splitParams separates the modelling parameters from the solver settings.
func splitParams(spec *model.Spec) (basic, advanced []model.Param) {
	for _, p := range spec.Params {
		if p.Advanced || advancedParams[p.Name] {
			advanced = append(advanced, p)
		} else {
			basic = append(basic, p)
		}
	}
	return basic, advanced
}

// paramForm renders parameters of a spec: log sliders with a number beside
// them, selects for choices, checkboxes for booleans. onChange receives the
// new text value.
func paramForm(spec *model.Spec, params []model.Param, vals model.Values, onChange func(ctx app.Context, name, value string)) app.UI {
	var rows []app.UI
	for _, p := range params {
		if !visible(p, vals) {
			continue
		}
		rows = append(rows, paramRow(spec.ID, p, vals[p.Name], onChange))
	}
	return app.Div().Class("params").Body(rows...)
}

func visible(p model.Param, vals model.Values) bool {
	for k, allowed := range p.ShowIf {
		ok := false
		for _, a := range allowed {
			if vals[k] == a {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func paramRow(modelID string, p model.Param, val string, onChange func(ctx app.Context, name, value string)) app.UI {
	id := "p-" + modelID + "-" + p.Name
	label := p.Label
	if label == "" {
		label = p.Name
	}
	change := func(ctx app.Context, e app.Event) {
		onChange(ctx, p.Name, ctx.JSSrc().Get("value").String())
	}
	var control app.UI
	switch p.Kind {
	case model.Choice:
		control = app.Select().ID(id).OnChange(change).Body(
			app.Range(p.Choices).Slice(func(i int) app.UI {
				c := p.Choices[i]
				return app.Option().Value(c).Selected(c == val).Text(c)
			}),
		)
	case model.Bool:
		b, _ := strconv.ParseBool(val)
		control = app.Input().Type("checkbox").ID(id).Checked(b).OnChange(func(ctx app.Context, e app.Event) {
			onChange(ctx, p.Name, strconv.FormatBool(ctx.JSSrc().Get("checked").Bool()))
		})
	default:
		f, _ := strconv.ParseFloat(val, 64)
		number := app.Input().Type("number").ID(id).Class("num").Value(val).Aria("label", label+" value").OnChange(change)
		if p.Kind == model.Int {
			number = number.Step(1)
		} else {
			number = number.Step(-1)
		}
		if p.Min != 0 || p.Max != 0 {
			number = number.Min(p.Min).Max(p.Max)
		}
		if p.Log && p.Min > 0 && p.Max > p.Min && f > 0 {
			slider := app.Input().Type("range").Class("slider").
				Aria("label", label+" (log scale)").
				Min(math.Log10(p.Min)).Max(math.Log10(p.Max)).Step(0.05).
				Value(strconv.FormatFloat(math.Log10(f), 'f', 3, 64)).
				OnChange(func(ctx app.Context, e app.Event) {
					l, err := strconv.ParseFloat(ctx.JSSrc().Get("value").String(), 64)
					if err != nil {
						return
					}
					onChange(ctx, p.Name, strconv.FormatFloat(roundSig(math.Pow(10, l)), 'g', -1, 64))
				})
			control = app.Div().Class("logpair").Body(slider, number)
		} else {
			control = number
		}
	}
	return app.Div().Class("param").Title(p.Help).Body(
		app.Label().For(id).Text(label),
		control,
		app.If(p.Help != "", app.Small().Class("help").Text(p.Help)),
	)
}

// roundSig rounds to three significant digits (slider values stay readable).
func roundSig(x float64) float64 {
	if x == 0 {
		return 0
	}
	e := math.Pow(10, math.Floor(math.Log10(math.Abs(x)))-2)
	return math.Round(x/e) * e
}
