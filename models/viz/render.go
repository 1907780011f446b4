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
// and the margins (±1) as dashed grey lines. Multi-class surfaces colour
// pixels by predicted class. It allocates only the output (it runs in the
// browser on every redraw).
func Heatmap(s *Surface, multiclass bool) []byte {
	g := s.Grid
	w, h := g.W, g.H
	out := make([]byte, w*h*4)
	if multiclass {
		for i, l := range s.Labels {
			c := ClassColors[l%len(ClassColors)]
			out[4*i] = uint8(0.45*float64(c[0]) + 0.55*255)
			out[4*i+1] = uint8(0.45*float64(c[1]) + 0.55*255)
			out[4*i+2] = uint8(0.45*float64(c[2]) + 0.55*255)
			out[4*i+3] = 255
		}
		for j := 0; j < h; j++ {
			for i := 0; i < w; i++ {
				p := j*w + i
				l := s.Labels[p]
				if (i+1 < w && s.Labels[p+1] != l) || (j+1 < h && s.Labels[p+w] != l) {
					setRGB(out, p, 20, 20, 20)
				}
			}
		}
		return out
	}
	v := s.Value
	for i, x := range v {
		t := math.Tanh(x)
		if s.Prob {
			t = 2*x - 1
		}
		base := &negColor
		if t > 0 {
			base = &posColor
		}
		a := math.Abs(t) * 0.75
		out[4*i] = uint8(midColor[0]*(1-a) + base[0]*a)
		out[4*i+1] = uint8(midColor[1]*(1-a) + base[1]*a)
		out[4*i+2] = uint8(midColor[2]*(1-a) + base[2]*a)
		out[4*i+3] = 255
	}
	level := 0.0
	if s.Prob {
		level = 0.5
	}
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			p := j*w + i
			a := v[p]
			right, down := i+1 < w, j+1 < h
			if (right && crosses(a, v[p+1], level)) || (down && crosses(a, v[p+w], level)) {
				setRGB(out, p, 20, 20, 20)
				continue
			}
			if s.Prob || (i+j)%4 >= 2 { // margins: dashed
				continue
			}
			if (right && (crosses(a, v[p+1], -1) || crosses(a, v[p+1], 1))) ||
				(down && (crosses(a, v[p+w], -1) || crosses(a, v[p+w], 1))) {
				setRGB(out, p, 90, 90, 90)
			}
		}
	}
	return out
}

// crosses reports whether the segment from a to b crosses level (touching
// it from one side counts).
func crosses(a, b, level float64) bool {
	return (a-level)*(b-level) < 0 || (a == level) != (b == level)
}

func setRGB(out []byte, p int, r, g, b uint8) {
	out[4*p], out[4*p+1], out[4*p+2] = r, g, b
}

// Contour draws the zero level set of v (one value per pixel) into an RGBA
// image in the given colour, two pixels wide, dashed if asked: used for the
// twin SVMs' proximal surfaces w·x + b = 0.
func Contour(img []byte, w, h int, v []float64, c [3]uint8, dashed bool) {
	if len(v) != w*h || len(img) != 4*w*h {
		return
	}
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			p := j*w + i
			if dashed && (i+j)%6 >= 3 {
				continue
			}
			a := v[p]
			if (i+1 < w && crosses(a, v[p+1], 0)) || (j+1 < h && crosses(a, v[p+w], 0)) {
				setRGB(img, p, c[0], c[1], c[2])
				if i+1 < w {
					setRGB(img, p+1, c[0], c[1], c[2])
				}
			}
		}
	}
}

// PlaneColor is the colour of a twin SVM's proximal surface: dark orange for
// the positive class's surface, dark blue for the negative class's.
func PlaneColor(positive bool) [3]uint8 {
	if positive {
		return [3]uint8{166, 54, 3}
	}
	return [3]uint8{8, 48, 107}
}
