package ui

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/run"
)

func (p *Playground) renderMetrics() app.UI {
	o := p.out
	if o == nil {
		return app.P().Class("hint").Text("Press Train to fit the model in your browser.")
	}
	r := o.Report
	conv := "yes"
	if !r.Converged {
		conv = "no"
	}
	type row struct{ id, label, val string }
	rows := []row{{"m-model", "Model", o.Spec.Name}}
	if o.TestTags != nil {
		rows = append(rows,
			row{"m-test-f1", "Test micro F1", f3(o.TestTags.Micro.F1)},
			row{"m-test-p", "Test macro precision", f3(o.TestTags.MacroP)},
			row{"m-test-r", "Test macro recall", f3(o.TestTags.MacroR)},
			row{"m-test-hamming", "Test Hamming loss", f3(o.TestTags.Hamming)},
			row{"m-test-subset", "Test subset accuracy", pct(o.TestTags.SubsetAccuracy)},
			row{"m-train-f1", "Train micro F1", f3(o.TrainTags.Micro.F1)},
		)
	} else {
		rows = append(rows,
			row{"m-train-acc", "Train accuracy", pct(o.TrainAcc)},
			row{"m-test-acc", "Test accuracy", pct(o.TestAcc)},
		)
	}
	rows = append(rows,
		row{"m-nsv", "Support vectors", strconv.Itoa(r.NSupport)},
		row{"m-time", "Training time", fitTime(o)},
		row{"m-grid-time", "Decision grid", gridTime(o)},
		row{"m-converged", "Converged", conv},
		row{"m-iter", "Iterations", strconv.Itoa(r.Iterations)},
		row{"m-obj", "Objective", strconv.FormatFloat(r.Objective, 'g', 8, 64)},
	)
	extras := make([]string, 0, len(r.Extras))
	for k := range r.Extras {
		extras = append(extras, k)
	}
	sort.Strings(extras)
	for _, k := range extras {
		rows = append(rows, row{"m-x-" + k, k, strconv.FormatFloat(r.Extras[k], 'g', 6, 64)})
	}
	return app.Div().Class("metrics").Body(
		app.Table().ID("metrics").Body(
			app.Range(rows).Slice(func(i int) app.UI {
				return app.Tr().Body(app.Th().Scope("row").Text(rows[i].label), app.Td().ID(rows[i].id).Text(rows[i].val))
			}),
		),
		app.If(len(r.Warnings) > 0, app.Ul().ID("warnings").Class("warnings").Body(
			app.Range(r.Warnings).Slice(func(i int) app.UI { return app.Li().Text(r.Warnings[i]) }),
		)),
		confusionTable(o),
		tagTable(o),
	)
}

func f3(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

func confusionTable(o *run.Outcome) app.UI {
	if o.Confusion == nil {
		return nil
	}
	cls := o.Train.Classes
	return app.Table().ID("confusion").Class("confusion").Body(
		app.Caption().Text("Test confusion matrix (rows: true class, columns: predicted)"),
		app.Tr().Body(
			app.Th().Text(""),
			app.Range(cls).Slice(func(j int) app.UI { return app.Th().Scope("col").Text(cls[j]) }),
		),
		app.Range(o.Confusion).Slice(func(i int) app.UI {
			return app.Tr().Body(
				app.Th().Scope("row").Text(cls[i]),
				app.Range(o.Confusion[i]).Slice(func(j int) app.UI {
					c := ""
					if i == j {
						c = "diag"
					}
					return app.Td().Class(c).Text(strconv.Itoa(o.Confusion[i][j]))
				}),
			)
		}),
	)
}

func tagTable(o *run.Outcome) app.UI {
	if o.TestTags == nil {
		return nil
	}
	names := o.Train.TagNames
	per := o.TestTags.PerTag
	return app.Table().ID("per-tag").Class("confusion").Body(
		app.Caption().Text("Per tag on the test set"),
		app.Tr().Body(app.Th().Text("tag"), app.Th().Text("precision"), app.Th().Text("recall"), app.Th().Text("F1")),
		app.Range(per).Slice(func(i int) app.UI {
			name := strconv.Itoa(i)
			if i < len(names) {
				name = names[i]
			}
			return app.Tr().Body(app.Th().Scope("row").Text(name), app.Td().Text(f3(per[i].Precision)),
				app.Td().Text(f3(per[i].Recall)), app.Td().Text(f3(per[i].F1)))
		}),
	)
}

// fitTime and gridTime show a compute time, and beside it the wall time
// when yielding to the page made the wait noticeably longer.
func fitTime(o *run.Outcome) string  { return withWall(o.FitSeconds, o.FitWallSeconds) }
func gridTime(o *run.Outcome) string { return withWall(o.GridSeconds, o.GridWallSeconds) }

func withWall(compute, wall float64) string {
	s := fmt.Sprintf("%.3f s", compute)
	if wall > compute+0.005 {
		s += fmt.Sprintf(" (%.3f s with page updates)", wall)
	}
	return s
}
