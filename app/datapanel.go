package app

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/datasets"
	"lupilab/models/spec"
)

// DataPanel chooses the data: a generator with its size, noise and seed, a
// shipped dataset, or the user's own file; and the split.
type DataPanel struct {
	app.Compo
	S *session
}

// OnMount registers the panel.
func (d *DataPanel) OnMount(ctx app.Context) { d.S.register(d) }

// OnDismount unregisters it.
func (d *DataPanel) OnDismount() { d.S.unregister(d) }

// Render implements app.Composer.
func (d *DataPanel) Render() app.UI {
	s := d.S
	set := s.set
	return app.Div().Class("panel datapanel").Body(
		app.H2().Text("Data"),
		app.Div().Class("param").Body(
			app.Label().For("dataset").Text("Dataset"),
			app.Select().ID("dataset").OnChange(d.onSource).Body(
				app.OptGroup().Label("Synthetic (2-D)").Body(
					app.Range(datasets.Generators).Slice(func(i int) app.UI {
						g := datasets.Generators[i]
						return app.Option().Value("gen:" + g.Name).Selected(set.Source == "gen:"+g.Name).Text(g.Title)
					}),
				),
				app.If(len(s.index) > 0, app.OptGroup().Label("Real data").Body(
					app.Range(s.index).Slice(func(i int) app.UI {
						e := s.index[i]
						return app.Option().Value("ds:" + e.Name).Selected(set.Source == "ds:"+e.Name).Text(e.Title)
					}),
				)),
				when(s.upload != nil, func() app.UI {
					return app.OptGroup().Label("Your data").Body(
						app.Option().Value("up:" + s.upload.name).Selected(strings.HasPrefix(set.Source, "up:")).Text(s.upload.name),
					)
				}),
			),
		),
		app.Div().Class("datafields").Body(
			app.If(set.IsGenerated(), app.Div().Class("genrow").Body(
				d.number("n", "Samples", float64(set.N), MinN, MaxN, 10, false, func(v float64) { d.S.set.N = int(v) }),
				d.number("noise", "Noise", set.Noise, MinNoise, MaxNoise, 0.05, true, func(v float64) { d.S.set.Noise = v }),
				d.number("seed", "Seed", float64(set.Seed), 0, MaxSeed, 1, false, func(v float64) { d.S.set.Seed = int64(v) }),
			)),
			app.If(!set.IsGenerated(),
				d.number("seed", "Split seed", float64(set.Seed), 0, MaxSeed, 1, false, func(v float64) { d.S.set.Seed = int64(v) }),
			),
			d.number("trainpct", "Training share (%)", float64(set.TrainPct), MinTrain, MaxTrain, 5, false, func(v float64) { d.S.set.TrainPct = int(v) }),
			app.If(len(set.Edits) > 0, app.P().Class("help").Body(
				app.Text(plural(len(set.Edits), "edit", "edits")+" of the generated points. "),
				app.Button().ID("edits-reset").Class("link").Text("Reset to generated").OnClick(func(ctx app.Context, e app.Event) {
					s.set.Edits = nil
					s.changed(ctx)
				}),
			)),
		),
		app.P().ID("about-data").Class("about-data").Text(d.about()),
		app.Div().Body(app.If(s.indexErr != "", app.P().Class("error").Text(s.indexErr))),
		&UploadPanel{S: s},
	)
}

// number is a number field that refuses values outside [min, max] with a
// message that states the range; a refused value starts no fit.
func (d *DataPanel) number(id, label string, v, min, max, step float64, frac bool, set func(float64)) app.UI {
	val := strconv.FormatFloat(v, 'g', -1, 64)
	errs := d.S.fieldErrs
	errMsg := errs[id]
	in := app.Input().Type("number").ID(id).Class("num").Value(val).
		Min(min).Max(max).Step(step).Aria("describedby", id+"-err").
		OnChange(func(ctx app.Context, e app.Event) {
			errs := d.S.fieldErrs
			text := strings.TrimSpace(ctx.JSSrc().Get("value").String())
			f, err := strconv.ParseFloat(text, 64)
			switch {
			case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
				errs[id] = fmt.Sprintf("%s must be a number between %s and %s.", label, humanNum(min), humanNum(max))
			case f < min || f > max:
				errs[id] = fmt.Sprintf("%s must be between %s and %s (%s was not used).", label, humanNum(min), humanNum(max), text)
			case !frac && f != math.Trunc(f):
				errs[id] = fmt.Sprintf("%s must be a whole number between %s and %s.", label, humanNum(min), humanNum(max))
			default:
				delete(errs, id)
				set(f)
				d.S.changed(ctx)
				return
			}
			d.Update()
		}, id)
	if errMsg != "" {
		in = in.Aria("invalid", "true")
	}
	return app.Div().Class("param small").Body(
		app.Label().For(id).Text(label),
		in,
		app.If(errMsg != "", app.Small().ID(id+"-err").Class("field-error").Aria("live", "polite").Text(errMsg)),
	)
}

func (d *DataPanel) onSource(ctx app.Context, e app.Event) {
	if d.S.chooseSource(ctx.JSSrc().Get("value").String()) {
		d.S.changed(ctx)
	}
}

// chooseSource switches to the data src ("gen:…", "ds:…", "up:…") and
// reports whether it changed. A generator starts at its own noise (their
// scales differ); its sample count is kept when the user had changed it
// from the former generator's default, else it is the new one's. The
// notice says what the switch changed that the user had set, and which
// model gave way when the current one cannot use the new data.
func (s *session) chooseSource(src string) bool {
	if src == s.set.Source {
		return false
	}
	var notes []string
	old, wasGen := datasets.GeneratorByName(strings.TrimPrefix(s.set.Source, "gen:"))
	wasGen = wasGen && s.set.IsGenerated()
	s.set.Source, s.set.Edits, s.tagShown = src, nil, 0
	s.resetZoom() // a window on the former data means nothing on the new
	if g, ok := datasets.GeneratorByName(strings.TrimPrefix(src, "gen:")); ok && strings.HasPrefix(src, "gen:") {
		if !wasGen || s.set.N == old.DefaultN || s.set.N < MinN || s.set.N > MaxN {
			s.set.N = g.DefaultN
		}
		if wasGen && s.set.Noise != old.DefaultNoise && s.set.Noise != g.DefaultNoise {
			notes = append(notes, fmt.Sprintf("Noise is %g, this generator's default (it was %g).", g.DefaultNoise, s.set.Noise))
		}
		s.set.Noise = g.DefaultNoise
	}
	for _, id := range []string{"n", "noise"} {
		delete(s.fieldErrs, id)
	}
	// A model that cannot use the new data gives way to one that can.
	if m := s.spec(); m != nil && s.compatible(m) != "" {
		for _, c := range spec.All() {
			if s.compatible(c) == "" {
				notes = append(notes, fmt.Sprintf("%s cannot use this data, so %s is selected.", m.Name, c.Name))
				s.set.Model = c.ID
				break
			}
		}
	}
	s.message = strings.Join(notes, " ")
	return true
}

// about describes the data from the catalogues.
func (d *DataPanel) about() string {
	s := d.S
	src := s.set.Source
	if g, ok := strings.CutPrefix(src, "gen:"); ok {
		if gen, ok := datasets.GeneratorByName(g); ok {
			return gen.Description
		}
	}
	if name, ok := strings.CutPrefix(src, "ds:"); ok {
		for _, e := range s.index {
			if e.Name == name {
				z := ""
				if e.ZColumns > 0 {
					z = fmt.Sprintf(", %d privileged features", e.ZColumns)
					if e.Kind == datasets.KindTwoView {
						z = fmt.Sprintf(" in view A, %d in view B", e.ZColumns)
					}
				}
				return fmt.Sprintf("%s (%d rows, %d features%s.) Source: %s. Licence: %s.", e.Description, e.Rows, e.XColumns, z, e.Source, e.Licence)
			}
		}
	}
	if s.upload != nil && strings.HasPrefix(src, "up:") {
		return fmt.Sprintf("Your file %s: %s It stays in this browser.", s.upload.name, s.upload.summary)
	}
	return ""
}
