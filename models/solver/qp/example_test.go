package qp_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/solver/qp"
)

// min ½(x₁² + x₂²) − x₁ − x₂ subject to x₁ + x₂ = 1, x₁ − x₂ ≤ −0.2 and
// x ≥ 0. Without the inequality the optimum would be (½, ½); it cuts that
// off, and the optimum is its corner on the equality, x = (0.4, 0.6), with
// objective ½(0.16 + 0.36) − 1 = −0.74 and the inequality's multiplier
// z = 0.1 (stationarity: x₁ − 1 + y + z = 0 and x₂ − 1 + y − z = 0).
func ExampleSolve() {
	p := &qp.Problem{
		P:     mat.NewSymDense(2, []float64{1, 0, 0, 1}),
		Q:     []float64{-1, -1},
		A:     mat.NewDense(1, 2, []float64{1, -1}),
		B:     []float64{-0.2},
		E:     mat.NewDense(1, 2, []float64{1, 1}),
		D:     []float64{1},
		Lower: []float64{0, 0},
	}
	res, err := qp.Solve(context.Background(), p, qp.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("x %.4f, objective %.4f, z %.4f, %v\n", res.X, res.Obj, res.Z, res.Status)
	// Output:
	// x [0.4000 0.6000], objective -0.7400, z [0.1000], optimal
}
