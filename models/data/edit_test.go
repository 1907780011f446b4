package data

import (
	"math"
	"testing"
)

func TestTwoViewLatentInvertsTheWarp(t *testing.T) {
	for _, u := range [][2]float64{{0, 0}, {0.7, -0.4}, {-1, 1}, {0.95, 0.95}, {-0.3, 0.81}} {
		x := [2]float64{u[0] + 0.3*math.Sin(math.Pi*u[1]), u[1] + 0.3*math.Sin(math.Pi*u[0])}
		got, err := twoViewLatent(x)
		if err != nil || math.Abs(got[0]-u[0]) > 1e-10 || math.Abs(got[1]-u[1]) > 1e-10 {
			t.Errorf("latent of %v: %v (%v), want %v", x, got, err, u)
		}
	}
}

func TestCompleteRow(t *testing.T) {
	easy, hard := LUPI2DNoise(0.2)
	z, _, err := CompleteRow("lupi2d", 0.2, [2]float64{1, -2}, 1)
	if err != nil || z[0] != 1 || z[1] != -2 || z[2] != hard {
		t.Errorf("lupi2d hard point: %v, %v", z, err)
	}
	if z, _, _ := CompleteRow("lupi2d", 0.2, [2]float64{0, 0}, 0); z[2] != easy {
		t.Errorf("lupi2d easy point σ = %v, want %v", z[2], easy)
	}
	if d := LUPI2DDifficulty(0.2, hard); d != 1 {
		t.Errorf("difficulty of σ_hard = %v", d)
	}
	if _, _, err := CompleteRow("lupi2d", 0.2, [2]float64{0, 0}, 2); err == nil {
		t.Error("difficulty 2 accepted")
	}
	// twoview2d: view B of a point placed where a noise-free sample would be.
	u := [2]float64{0.2, -0.5}
	x := [2]float64{u[0] + 0.3*math.Sin(math.Pi*u[1]), u[1] + 0.3*math.Sin(math.Pi*u[0])}
	z, _, err = CompleteRow("twoview2d", 0, x, 0)
	if err != nil || math.Abs(z[0]-math.Hypot(u[0]+1.5, u[1])) > 1e-9 || math.Abs(z[1]-math.Atan2(u[1], u[0]+1.5)) > 1e-9 {
		t.Errorf("twoview2d view B %v (%v)", z, err)
	}
	_, tags, _ := CompleteRow("multilabel2d", 0, [2]float64{0, 0}, 0)
	if len(tags) != 4 || tags[0] != 1 || tags[1] != 1 || tags[2] != 0 {
		t.Errorf("multilabel2d tags at the origin: %v", tags)
	}
	if _, _, err := CompleteRow("moons", 0, [2]float64{math.NaN(), 0}, 0); err == nil {
		t.Error("NaN coordinates accepted")
	}
}
