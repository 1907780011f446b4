package app

import (
	"math"
	"testing"
)

// TestGestureFrame: a two-finger gesture keeps the data point that was
// under the fingers' centre under their centre, pans by the centre's move
// and zooms by the ratio of the fingers' distances (checked by mapping the
// centres back through the layout, independently of gestureFrame's
// algebra).
func TestGestureFrame(t *testing.T) {
	l := layoutFor(390, false)
	fr := [4]float64{-2, 3, -1, 1.5}
	for _, c := range []struct {
		name   string
		c0, c1 [2]float64
		d0, d1 float64
	}{
		{"pan right and down", [2]float64{150, 140}, [2]float64{190, 180}, 120, 120},
		{"pinch apart (zoom in)", [2]float64{150, 140}, [2]float64{150, 140}, 100, 200},
		{"pinch together while moving", [2]float64{120, 100}, [2]float64{200, 160}, 180, 60},
	} {
		nf, ok := l.gestureFrame(fr, c.c0, c.c1, c.d0, c.d1)
		if !ok {
			t.Fatalf("%s: refused", c.name)
		}
		ax, ay := l.fromPx(fr, c.c0[0], c.c0[1])
		bx, by := l.fromPx(nf, c.c1[0], c.c1[1])
		if math.Abs(ax-bx) > 1e-9 || math.Abs(ay-by) > 1e-9 {
			t.Errorf("%s: (%g, %g) under the fingers before, (%g, %g) after", c.name, ax, ay, bx, by)
		}
		k := c.d0 / c.d1
		if w := (nf[1] - nf[0]) / (fr[1] - fr[0]); math.Abs(w-k) > 1e-12 {
			t.Errorf("%s: width scaled by %g, want %g", c.name, w, k)
		}
		if h := (nf[3] - nf[2]) / (fr[3] - fr[2]); math.Abs(h-k) > 1e-12 {
			t.Errorf("%s: height scaled by %g, want %g", c.name, h, k)
		}
	}
	// a pure pan moves the window by the centre's move in data units, the
	// other way (the content follows the fingers)
	nf, _ := l.gestureFrame(fr, [2]float64{100, 100}, [2]float64{130, 80}, 50, 50)
	dx := 30 / l.pw * (fr[1] - fr[0])
	dy := 20 / l.ph * (fr[3] - fr[2])
	if math.Abs(nf[0]-(fr[0]-dx)) > 1e-12 || math.Abs(nf[2]-(fr[2]-dy)) > 1e-12 {
		t.Errorf("pan: window %v from %v; want x shifted by %g, y by %g", nf, fr, -dx, -dy)
	}
	if _, ok := l.gestureFrame(fr, [2]float64{1, 1}, [2]float64{2, 2}, 0, 10); ok {
		t.Error("a gesture of fingers at one place was accepted")
	}
}
