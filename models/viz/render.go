package viz

import (
	"math"
)

// Palette colours are from the Okabe–Ito / ColorBrewer families, chosen to
// stay distinct for readers with colour-vision deficiencies.
var (
	// negative side (class 0): blue; positive side (class 1): orange.
	negColor = [3]float64{33, 102, 172}
	posColor = [3]float64{230, 97, 1}
	midColor = [3]float64{247, 247, 247}
	// ClassColors are used for points and multi-class regions.
	ClassColors = [][3]uint8{
		{0, 114, 178}, {230, 159, 0}, {0, 158, 115}, {204, 121, 167},
		{86, 180, 233}, {213, 94, 0}, {240, 228, 66}, {100, 100, 100},
		{0, 0, 0}, {153, 153, 255},
	}
)

// BinaryColor returns the colour of class k (0 or 1) of a binary problem,
// matching the heatmap's two sides (blue, orange).
func BinaryColor(k int) string {
	if k == 1 {
		return rgb([3]uint8{uint8(posColor[0]), uint8(posColor[1]), uint8(posColor[2])})
	}
	return rgb([3]uint8{uint8(negColor[0]), uint8(negColor[1]), uint8(negColor[2])})
}

// ClassColor returns the colour of class k as a CSS colour string.
func ClassColor(k int) string {
	c := ClassColors[k%len(ClassColors)]
	return rgb(c)
}

func rgb(c [3]uint8) string {
	const hex = "0123456789abcdef"
	b := []byte{'#', 0, 0, 0, 0, 0, 0}
	for i, v := range c {
		b[1+2*i], b[2+2*i] = hex[v>>4], hex[v&15]
	}
	return string(b)
}

// Heatmap renders a surface as W·H·4 RGBA bytes. Binary decision values are
// shaded by tanh(value) from blue (class 0) to orange (class 1), with the
// decision boundary (0, or 0.5 for probabilities) drawn as a solid dark line
// and the margins (±1) as lighter lines. Multi-class surfaces colour pixels
// by predicted class.
func Heatmap(s *Surface, multiclass bool) []byte {
	g := s.Grid
	out := make([]byte, g.W*g.H*4)
	if multiclass {
		for i, l := range s.Labels {
			c := ClassColors[l%len(ClassColors)]
			for k := 0; k < 3; k++ {
				out[4*i+k] = uint8(0.45*float64(c[k]) + 0.55*255)
			}
			out[4*i+3] = 255
		}
		drawEdges(out, g.W, g.H, func(i int) float64 { return float64(s.Labels[i]) }, []float64{}, true)
		return out
	}
	shade := func(v float64) float64 {
		if s.Prob {
			return 2*v - 1
		}
		return math.Tanh(v)
	}
	for i, v := range s.Value {
		t := shade(v)
		base := negColor
		if t > 0 {
			base = posColor
		}
		a := math.Abs(t) * 0.75
		for k := 0; k < 3; k++ {
			out[4*i+k] = uint8(midColor[k]*(1-a) + base[k]*a)
		}
		out[4*i+3] = 255
	}
	val := func(i int) float64 { return s.Value[i] }
	if s.Prob {
		drawEdges(out, g.W, g.H, val, []float64{0.5}, false)
	} else {
		drawEdges(out, g.W, g.H, val, []float64{0}, false)
		drawMargins(out, g.W, g.H, val)
	}
	return out
}

// drawEdges darkens pixels where the level set crosses between a pixel and
// its right or lower neighbour (a one-pixel-wide contour, no DOM work).
func drawEdges(out []byte, w, h int, val func(int) float64, levels []float64, anyChange bool) {
	mark := func(i int) {
		out[4*i], out[4*i+1], out[4*i+2] = 20, 20, 20
	}
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			p := j*w + i
			for _, q := range []int{p + 1, p + w} {
				if (q == p+1 && i == w-1) || q >= w*h {
					continue
				}
				a, b := val(p), val(q)
				if anyChange {
					if a != b {
						mark(p)
					}
					continue
				}
				for _, l := range levels {
					if (a-l)*(b-l) < 0 || (a == l) != (b == l) {
						mark(p)
					}
				}
			}
		}
	}
}

func drawMargins(out []byte, w, h int, val func(int) float64) {
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			p := j*w + i
			for _, q := range []int{p + 1, p + w} {
				if (q == p+1 && i == w-1) || q >= w*h {
					continue
				}
				a, b := val(p), val(q)
				for _, l := range []float64{-1, 1} {
					if (a-l)*(b-l) < 0 {
						// dashed: every other pixel along the line
						if (i+j)%4 < 2 {
							out[4*p], out[4*p+1], out[4*p+2] = 90, 90, 90
						}
					}
				}
			}
		}
	}
}
