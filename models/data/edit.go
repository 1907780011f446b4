package data

import (
	"fmt"
	"math"
)

// Editable reports whether the points of a generated dataset can be edited
// one by one: every generator whose second block and tags can be derived
// from a point's main features.
func Editable(name string) bool {
	_, ok := GeneratorByName(name)
	return ok
}

// CompleteRow returns the second block (Z) and the tags of a point the user
// placed at x in generated data: what the generator's other blocks say
// about it when its latent point is taken to be where it was put.
//
//   - lupi2d: Z = (x₁, x₂, σ) — the clean latent point is the point itself,
//     and σ, the sample's noise level, goes from the easy to the hard level
//     with difficulty ∈ [0, 1] (the "difficulty brush").
//   - twoview2d: view B is the polar map of the latent point u that view A's
//     noise-free warp takes to x (u solved for by Newton's method).
//   - multilabel2d: the tags of the regions the latent point u = x is in.
//   - the others: no second block, no tags.
func CompleteRow(name string, noise float64, x [2]float64, difficulty float64) (z, tags []float64, err error) {
	if math.IsNaN(x[0]+x[1]) || math.IsInf(x[0]+x[1], 0) {
		return nil, nil, fmt.Errorf("data: an edited point must have finite coordinates, got %v", x)
	}
	switch name {
	case "lupi2d":
		if !(difficulty >= 0 && difficulty <= 1) {
			return nil, nil, fmt.Errorf("data: difficulty %v must be in [0, 1]", difficulty)
		}
		easy, hard := LUPI2DNoise(noise)
		return []float64{x[0], x[1], easy + difficulty*(hard-easy)}, nil, nil
	case "twoview2d":
		u, err := twoViewLatent(x)
		if err != nil {
			return nil, nil, err
		}
		d1, d2 := u[0]+1.5, u[1]
		return []float64{math.Hypot(d1, d2), math.Atan2(d2, d1)}, nil, nil
	case "multilabel2d":
		t := MultiLabel2DTags(x[0], x[1])
		tags = make([]float64, len(t))
		for i, on := range t {
			if on {
				tags[i] = 1
			}
		}
		return nil, tags, nil
	}
	return nil, nil, nil
}

// LUPI2DDifficulty is the difficulty in [0, 1] of a LUPI 2-D sample's noise
// level σ (0 easy, 1 hard).
func LUPI2DDifficulty(noise, sigma float64) float64 {
	easy, hard := LUPI2DNoise(noise)
	return math.Max(0, math.Min(1, (sigma-easy)/(hard-easy)))
}

// twoViewLatent solves x = (u₁ + 0.3 sin πu₂, u₂ + 0.3 sin πu₁) for u by
// Newton's method from u = x (the warp's Jacobian [[1, 0.3π cos πu₂],
// [0.3π cos πu₁, 1]] is invertible wherever |cos πu₁ cos πu₂| < 1/(0.3π)²,
// which holds everywhere since (0.3π)² < 1).
func twoViewLatent(x [2]float64) ([2]float64, error) {
	u := x
	const a = 0.3
	for it := 0; it < 60; it++ {
		f1 := u[0] + a*math.Sin(math.Pi*u[1]) - x[0]
		f2 := u[1] + a*math.Sin(math.Pi*u[0]) - x[1]
		if math.Abs(f1)+math.Abs(f2) < 1e-13 {
			return u, nil
		}
		j12 := a * math.Pi * math.Cos(math.Pi*u[1])
		j21 := a * math.Pi * math.Cos(math.Pi*u[0])
		det := 1 - j12*j21
		u[0] -= (f1 - j12*f2) / det
		u[1] -= (f2 - j21*f1) / det
	}
	return u, fmt.Errorf("data: no latent point maps to %v in view A", x)
}
