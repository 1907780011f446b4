package app

import (
	"fmt"
	"math"
)

// Colours. Classes take a colour-blind-safe palette (Okabe & Ito's, then
// three of Paul Tol's), distinguishable up to ten classes; two classes are
// blue and orange, matching the diverging map of decision values (blue for
// the first class's side, orange for the second's).

type rgb struct{ r, g, b uint8 }

func (c rgb) css() string { return fmt.Sprintf("#%02x%02x%02x", c.r, c.g, c.b) }

var classPalette = []rgb{
	{0x00, 0x72, 0xb2}, // blue
	{0xe6, 0x9f, 0x00}, // orange
	{0x00, 0x9e, 0x73}, // bluish green
	{0xcc, 0x79, 0xa7}, // reddish purple
	{0x56, 0xb4, 0xe9}, // sky blue
	{0xd5, 0x5e, 0x00}, // vermillion
	{0xf0, 0xe4, 0x42}, // yellow
	{0x88, 0x22, 0x55}, // wine (Tol)
	{0x44, 0xaa, 0x99}, // teal (Tol)
	{0x99, 0x99, 0x33}, // olive (Tol)
}

// binary colours: class 0 (negative) and class 1 (positive).
var (
	negColour = rgb{0x00, 0x72, 0xb2}
	posColour = rgb{0xd5, 0x5e, 0x00}
)

// classColour returns class k's colour among n classes.
func classColour(k, n int) rgb {
	if n <= 2 {
		if k == 1 {
			return posColour
		}
		return negColour
	}
	if k < 0 {
		return rgb{0x99, 0x99, 0x99}
	}
	return classPalette[k%len(classPalette)]
}

// diverging maps t ∈ [−1, 1] to blue (−1) through near-white (0) to orange
// (+1), perceptually even enough for a decision value.
func diverging(t float64) rgb {
	t = math.Max(-1, math.Min(1, t))
	white := rgb{0xf7, 0xf7, 0xf7}
	end := posColour
	if t < 0 {
		end, t = negColour, -t
	}
	// ease so that values near the boundary stay light and the margins show
	u := math.Pow(t, 0.8) * 0.78
	return mix(white, end, u)
}

// sequential maps t ∈ [0, 1] to a light-to-dark purple ramp (uncertainty).
func sequential(t float64) rgb {
	t = math.Max(0, math.Min(1, t))
	return mix(rgb{0xfa, 0xf7, 0xfc}, rgb{0x4a, 0x14, 0x86}, math.Pow(t, 0.85))
}

func mix(a, b rgb, u float64) rgb {
	f := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + (float64(y)-float64(x))*u)) }
	return rgb{f(a.r, b.r), f(a.g, b.g), f(a.b, b.b)}
}

// scale maps a layer's values to colours.
type scale struct {
	kind   string // "diverging", "prob", "sequential", "classes"
	lo, hi float64
	n      int // classes
	label  string
}

// colour returns the colour of value v.
func (s scale) colour(v float64) rgb {
	switch s.kind {
	case "prob":
		return diverging(2*v - 1)
	case "sequential":
		if s.hi > s.lo {
			return sequential((v - s.lo) / (s.hi - s.lo))
		}
		return sequential(0)
	case "classes":
		return mix(rgb{0xff, 0xff, 0xff}, classColour(int(math.Round(v)), s.n), 0.35)
	}
	m := math.Max(math.Abs(s.lo), math.Abs(s.hi))
	if m == 0 {
		return diverging(0)
	}
	return diverging(v / m)
}

// rgbaImage paints W×H values into RGBA bytes. Continuous scales go
// through a 1024-entry table (finer than a screen shows), so a 260×260 map
// costs a lookup per cell.
func (s scale) rgbaImage(v []float64) []byte {
	out := make([]byte, 4*len(v))
	if s.kind == "classes" {
		for i, x := range v {
			c := s.colour(x)
			out[4*i], out[4*i+1], out[4*i+2], out[4*i+3] = c.r, c.g, c.b, 255
		}
		return out
	}
	lo, hi := s.span()
	const n = 1024
	var lut [n]rgb
	for k := range lut {
		lut[k] = s.colour(lo + (hi-lo)*float64(k)/(n-1))
	}
	f := float64(n-1) / (hi - lo)
	for i, x := range v {
		k := int((x-lo)*f + 0.5)
		if k < 0 {
			k = 0
		} else if k >= n {
			k = n - 1
		}
		c := lut[k]
		out[4*i], out[4*i+1], out[4*i+2], out[4*i+3] = c.r, c.g, c.b, 255
	}
	return out
}

// span is the range of values the scale distinguishes (beyond it colours
// saturate).
func (s scale) span() (float64, float64) {
	switch s.kind {
	case "prob":
		return 0, 1
	case "sequential":
		if s.hi > s.lo {
			return s.lo, s.hi
		}
		return 0, 1
	}
	m := math.Max(math.Abs(s.lo), math.Abs(s.hi))
	if m == 0 {
		m = 1
	}
	return -m, m
}

// classImageSide is about how many pixels a side classImage paints a
// multi-class map in (finer than the plot is wide, so that the regions'
// borders are as smooth as a binary map's).
const classImageSide = 800

// classImage paints a multi-class map from its per-class margins (W×H cells
// each, positive where the class is predicted, see wire.LayerMargin) at
// f×f pixels a cell: a pixel takes the class whose margin, interpolated
// bilinearly between the cells' centres, is largest — the regions whose
// borders are the margins' 0 levels, the lines the class layer's iso-line
// traces. A pixel among cells of one class takes its colour directly.
// labels are the cells' classes. It returns the image and its size.
func (s scale) classImage(margins [][]float64, labels []float64, w, h int) (rgba []byte, iw, ih int) {
	if w < 2 || h < 2 {
		return s.rgbaImage(labels), w, h
	}
	f := max(1, min(16, (classImageSide+w/2)/w))
	iw, ih = w*f, h*f
	rgba = make([]byte, 4*iw*ih)
	colours := make([]rgb, len(margins))
	for c := range colours {
		colours[c] = s.colour(float64(c))
	}
	// cell lattice coordinate of each pixel column (row): the left (top)
	// node and the weight of the next one
	axis := func(n int) ([]int, []float64) {
		idx, t := make([]int, n*f), make([]float64, n*f)
		for u := range idx {
			x := (float64(u)+0.5)/float64(f) - 0.5
			i := int(math.Floor(x))
			i = max(0, min(n-2, i))
			idx[u], t[u] = i, math.Max(0, math.Min(1, x-float64(i)))
		}
		return idx, t
	}
	xi, xt := axis(w)
	yi, yt := axis(h)
	for v := 0; v < ih; v++ {
		j, ty := yi[v], yt[v]
		for u := 0; u < iw; u++ {
			i, tx := xi[u], xt[u]
			a, b, c, d := j*w+i, j*w+i+1, (j+1)*w+i, (j+1)*w+i+1
			k := int(labels[a])
			if labels[b] != labels[a] || labels[c] != labels[a] || labels[d] != labels[a] {
				best := math.Inf(-1)
				for cl, m := range margins {
					top := m[a] + (m[b]-m[a])*tx
					bot := m[c] + (m[d]-m[c])*tx
					if x := top + (bot-top)*ty; x > best {
						best, k = x, cl
					}
				}
			}
			col := rgb{0xff, 0xff, 0xff}
			if k >= 0 && k < len(colours) {
				col = colours[k]
			}
			o := 4 * (v*iw + u)
			rgba[o], rgba[o+1], rgba[o+2], rgba[o+3] = col.r, col.g, col.b, 255
		}
	}
	return rgba, iw, ih
}
