package smo_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/solver/smo"
)

// A hard-margin linear SVM dual on four points of the line, x = −2, −1, 1,
// 2 with labels −1, −1, +1, +1: min ½αᵀ(yyᵀ∘xxᵀ)α − 1ᵀα s.t. yᵀα = 0,
// 0 ≤ α ≤ C. The margin is set by x = ±1: α = (0, ½, ½, 0), w = Σαᵢyᵢxᵢ = 1,
// the decision Σαᵢyᵢxᵢx − ρ with ρ = 0, and the objective ½w² − Σα = −½.
func ExampleSolve() {
	x := []float64{-2, -1, 1, 2}
	y := []float64{-1, -1, 1, 1}
	q := mat.NewSymDense(4, nil)
	for i := range x {
		for j := i; j < 4; j++ {
			q.SetSym(i, j, y[i]*y[j]*x[i]*x[j])
		}
	}
	p := []float64{-1, -1, -1, -1}
	upper := []float64{10, 10, 10, 10}
	res, err := smo.Solve(context.Background(), &smo.Problem{Q: smo.Dense(q), P: p, Y: y, Upper: upper}, smo.Options{Eps: 1e-9})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("alpha %.4f\n", res.Alpha)
	fmt.Printf("rho %.4f, objective %.4f, converged %v\n", res.Rho+0, res.Obj, res.Converged)
	// Output:
	// alpha [0.0000 0.5000 0.5000 0.0000]
	// rho 0.0000, objective -0.5000, converged true
}
