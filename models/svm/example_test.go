package svm_test

import (
	"context"
	"fmt"

	"lupilab/models/data"
	"lupilab/models/metrics"
	"lupilab/models/model"
	_ "lupilab/models/svm" // registers "svm"
)

// Fit an RBF-kernel SVM on the generated two-moons data and score it on a
// fresh sample: look the model up, resolve its parameters (defaults for
// those not given), fit, predict.
func Example() {
	train, err := data.GenerateByName("moons", 200, 0.2, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	test, err := data.GenerateByName("moons", 500, 0.2, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := model.Lookup("svm")
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := s.Resolve(model.Values{"kernel": "rbf", "gamma": "1", "C": "10"})
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := s.Fit(context.Background(), train, v, model.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := f.Predict(test)
	if err != nil {
		fmt.Println(err)
		return
	}
	acc, err := metrics.Accuracy(test.Y, p.Labels)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("converged %v, test accuracy %.2f\n", f.Report().Converged, acc)
	// Output: converged true, test accuracy 0.97
}
