package gp_test

import (
	"context"
	"fmt"

	"lupilab/models/data"
	_ "lupilab/models/gp" // registers "gpc" and "gpcplus"
	"lupilab/models/model"
)

// A model fitted through the registry: look it up by id, resolve its
// parameters (defaults for the ones not given), fit, predict. GPC+ learns
// from the privileged block Z of the LUPI data at training time and
// predicts from X alone.
func Example() {
	train, _ := data.GenerateByName("lupi2d", 80, 0.3, 1)
	test, _ := data.GenerateByName("lupi2d", 200, 0.3, 2)

	spec, err := model.Lookup("gpcplus")
	if err != nil {
		panic(err)
	}
	values, err := spec.Resolve(model.Values{"restarts": "0"})
	if err != nil {
		panic(err)
	}
	fitted, err := spec.Fit(context.Background(), train, values, model.Options{Seed: 1})
	if err != nil {
		panic(err)
	}
	test.Z = nil // no privileged features at test time
	pred, err := fitted.Predict(test)
	if err != nil {
		panic(err)
	}
	right := 0
	for i, label := range pred.Labels {
		if label == test.Y[i] {
			right++
		}
	}
	rep := fitted.Report()
	fmt.Printf("converged: %v, warnings: %d\n", rep.Converged, len(rep.Warnings))
	fmt.Printf("test accuracy: %.2f\n", float64(right)/float64(len(pred.Labels)))
	fmt.Printf("P(%s) at the first test point: %.2f\n", test.Classes[1], pred.Prob[0][1])
	// Output:
	// converged: true, warnings: 0
	// test accuracy: 0.75
	// P(1) at the first test point: 0.83
}
