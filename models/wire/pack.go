package wire

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// A fit's result is mostly arrays: the saved model file, each point's
// coordinates and decision value, the solver's per-sample diagnostics. As
// JSON text they cost the page's main thread a parse per number (and an
// unescape of the whole model file); as binary parts they cost a copy. So
// Encode packs a Part's FitResult — Saved into bytes, the float arrays of
// its Points and Report.Diagnostics into float64 parts (exact), the
// points' rows, classes and predictions into int32 parts — and
// Decode unpacks it: callers see the same FitResult either way. Arrays with
// a NaN or an infinity stay in the JSON, which refuses them, so a
// non-finite number still fails the message instead of reaching the page.

// packPart returns p with its FitResult's arrays and its map's contours
// moved into bin (p's own result is not changed: the engine keeps using it).
func packPart(p Part, bin *Bin) Part {
	if p.Grid != nil {
		p.Grid = packGrid(p.Grid, bin)
	}
	if p.Fit == nil {
		return p
	}
	r := *p.Fit
	if r.Saved != "" {
		b := bin.Bytes([]byte(r.Saved))
		r.SavedBin = &b
		r.Saved = ""
	}
	r.Report = packReport(r.Report, bin)
	r.Plot.Train = packPoints(r.Plot.Train, bin)
	r.Plot.Test = packPoints(r.Plot.Test, bin)
	if r.Plot.TrainB != nil {
		pb := packPoints(*r.Plot.TrainB, bin)
		r.Plot.TrainB = &pb
	}
	if r.Plot.TestB != nil {
		pb := packPoints(*r.Plot.TestB, bin)
		r.Plot.TestB = &pb
	}
	p.Fit = &r
	return p
}

func packReport(r Report, bin *Bin) Report {
	if len(r.Diagnostics) > 0 {
		d := map[string][]float64{}
		for _, k := range sortedKeys(r.Diagnostics) {
			v := r.Diagnostics[k]
			if finite(v) {
				if r.DiagnosticsBin == nil {
					r.DiagnosticsBin = map[string]Blob{}
				}
				r.DiagnosticsBin[k] = bin.F64(v)
			} else {
				d[k] = v
			}
		}
		r.Diagnostics = nil
		if len(d) > 0 {
			r.Diagnostics = d
		}
	}
	if len(r.Sub) > 0 {
		sub := make([]*Report, len(r.Sub))
		for i, s := range r.Sub {
			if s != nil {
				ps := packReport(*s, bin)
				s = &ps
			}
			sub[i] = s
		}
		r.Sub = sub
	}
	return r
}

func packPoints(p Points, bin *Bin) Points {
	put := func(name string, v *[]float64) {
		if len(*v) == 0 || !finite(*v) {
			return
		}
		if p.Bin == nil {
			p.Bin = map[string]Blob{}
		}
		p.Bin[name] = bin.F64(*v)
		*v = nil
	}
	putInts := func(name string, v *[]int) {
		if len(*v) == 0 {
			return
		}
		if x, ok := bin.I32(*v); ok {
			if p.Bin == nil {
				p.Bin = map[string]Blob{}
			}
			p.Bin[name] = x
			*v = nil
		}
	}
	putInts("row", &p.Row)
	putInts("class", &p.Class)
	putInts("pred", &p.Pred)
	put("x", &p.X)
	put("y", &p.Y)
	put("decision", &p.Decision)
	put("prob", &p.Prob)
	put("difficulty", &p.Difficulty)
	if len(p.Views) > 0 {
		views := map[string][]float64{}
		for _, k := range sortedKeys(p.Views) {
			v := p.Views[k]
			put("views:"+k, &v)
			if v != nil {
				views[k] = v
			}
		}
		p.Views = nil
		if len(views) > 0 {
			p.Views = views
		}
	}
	return p
}

// packGrid returns a copy of g whose contour paths travel in bin (float32:
// they are drawn, and the map itself is float32).
func packGrid(g *GridResult, bin *Bin) *GridResult {
	out := *g
	out.Layers = make([]Layer, len(g.Layers))
	for i, l := range g.Layers {
		if len(l.Contours) > 0 {
			cs := make([]Contour, len(l.Contours))
			for k, c := range l.Contours {
				var flat []float64
				lens := make([]int, len(c.Paths))
				for n, path := range c.Paths {
					flat = append(flat, path...)
					lens[n] = len(path)
				}
				if len(flat) > 0 && finite(flat) {
					b := bin.F32(flat)
					c.PathsBin, c.PathLens, c.Paths = &b, lens, nil
				}
				cs[k] = c
			}
			l.Contours = cs
		}
		out.Layers[i] = l
	}
	return &out
}

// unpackGrid moves a decoded map's packed contours back into their paths.
func unpackGrid(g *GridResult, bin *Bin) error {
	for i := range g.Layers {
		for k := range g.Layers[i].Contours {
			c := &g.Layers[i].Contours[k]
			if c.PathsBin == nil {
				continue
			}
			flat, err := bin.Floats(*c.PathsBin)
			if err != nil {
				return fmt.Errorf("contour %s at %g: %w", g.Layers[i].Name, c.Level, err)
			}
			c.Paths = make([][]float64, len(c.PathLens))
			at := 0
			for n, l := range c.PathLens {
				if l < 0 || at+l > len(flat) {
					return fmt.Errorf("contour %s at %g: its paths need more than %d coordinates", g.Layers[i].Name, c.Level, len(flat))
				}
				c.Paths[n] = flat[at : at+l : at+l]
				at += l
			}
			if at != len(flat) {
				return fmt.Errorf("contour %s at %g: %d coordinates for paths of %d", g.Layers[i].Name, c.Level, len(flat), at)
			}
			c.PathsBin, c.PathLens = nil, nil
		}
	}
	return nil
}

// unpackPart moves a decoded Part's packed arrays back into its FitResult
// and its map.
func unpackPart(p *Part, bin *Bin) error {
	if p.Grid != nil {
		if err := unpackGrid(p.Grid, bin); err != nil {
			return err
		}
	}
	r := p.Fit
	if r == nil {
		return nil
	}
	if r.SavedBin != nil {
		b, err := bin.Raw(*r.SavedBin)
		if err != nil {
			return fmt.Errorf("the saved model: %w", err)
		}
		r.Saved, r.SavedBin = string(b), nil
	}
	if err := unpackReport(&r.Report, bin); err != nil {
		return err
	}
	for _, pts := range []*Points{&r.Plot.Train, &r.Plot.Test, r.Plot.TrainB, r.Plot.TestB} {
		if pts == nil {
			continue
		}
		if err := unpackPoints(pts, bin); err != nil {
			return err
		}
	}
	return nil
}

// floatsOf reads packed float arrays by name.
func floatsOf(blobs map[string]Blob, bin *Bin, what string) (map[string][]float64, error) {
	out := make(map[string][]float64, len(blobs))
	for name, b := range blobs {
		v, err := bin.Floats(b)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", what, name, err)
		}
		out[name] = v
	}
	return out, nil
}

func unpackReport(r *Report, bin *Bin) error {
	d, err := floatsOf(r.DiagnosticsBin, bin, "diagnostic")
	if err != nil {
		return err
	}
	for k, v := range d {
		if r.Diagnostics == nil {
			r.Diagnostics = map[string][]float64{}
		}
		r.Diagnostics[k] = v
	}
	r.DiagnosticsBin = nil
	for _, s := range r.Sub {
		if s != nil {
			if err := unpackReport(s, bin); err != nil {
				return err
			}
		}
	}
	return nil
}

func unpackPoints(p *Points, bin *Bin) error {
	floats := make(map[string]Blob, len(p.Bin))
	for name, x := range p.Bin {
		var dst *[]int
		switch name {
		case "row":
			dst = &p.Row
		case "class":
			dst = &p.Class
		case "pred":
			dst = &p.Pred
		default:
			floats[name] = x
			continue
		}
		v, err := bin.Ints(x)
		if err != nil {
			return fmt.Errorf("points %s: %w", name, err)
		}
		*dst = v
	}
	arrays, err := floatsOf(floats, bin, "points")
	if err != nil {
		return err
	}
	for name, v := range arrays {
		switch name {
		case "x":
			p.X = v
		case "y":
			p.Y = v
		case "decision":
			p.Decision = v
		case "prob":
			p.Prob = v
		case "difficulty":
			p.Difficulty = v
		default:
			view, ok := strings.CutPrefix(name, "views:")
			if !ok {
				return fmt.Errorf("points: unknown packed array %q", name)
			}
			if p.Views == nil {
				p.Views = map[string][]float64{}
			}
			p.Views[view] = v
		}
	}
	p.Bin = nil
	return nil
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
