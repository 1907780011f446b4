package model_test

import (
	"context"
	"encoding/json"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/spec"
)

// threshold is a one-feature binary model: the decision x − t, with t
// midway between the two classes' means.
type threshold struct {
	T float64 `json:"t"`
}

func (m *threshold) Decision(ds *data.Dataset) ([]float64, error) {
	out := make([]float64, ds.Rows())
	for i := range out {
		out[i] = ds.X.At(i, 0) - m.T
	}
	return out, nil
}

func (m *threshold) Report() *model.Report {
	return &model.Report{Model: "example-threshold", Converged: true}
}

// A model is a fit and a load function bound to its metadata. A catalogued
// model (models/spec) calls model.Register(id, fit, load) from its
// package's init; Bind does the same for metadata given here. WrapBinary
// turns a binary fitter (labels ±1) into a classifier of any number of
// classes.
func ExampleBind() {
	fit := func(ctx context.Context, train *data.Dataset, y []float64, v model.Values, opt model.Options) (model.BinaryModel, error) {
		var sum [2]float64
		var n [2]int
		for i, yi := range y {
			k := 0
			if yi > 0 {
				k = 1
			}
			sum[k] += train.X.At(i, 0)
			n[k]++
		}
		return &threshold{T: (sum[0]/float64(n[0]) + sum[1]/float64(n[1])) / 2}, nil
	}
	load := func(raw json.RawMessage) (model.BinaryModel, error) {
		var m threshold
		return &m, json.Unmarshal(raw, &m)
	}
	fitFn, loadFn := model.WrapBinary("example-threshold", fit, load)
	model.Bind(&spec.Spec{ID: "example-threshold", Name: "Threshold", Task: model.Binary}, fitFn, loadFn)

	s, err := model.Lookup("example-threshold")
	if err != nil {
		fmt.Println(err)
		return
	}
	train := &data.Dataset{X: mat.NewDense(4, 1, []float64{0, 1, 3, 4}), Y: []int{0, 0, 1, 1}, Classes: []string{"low", "high"}}
	v, err := s.Resolve(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := s.Fit(context.Background(), train, v, model.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := f.Predict(&data.Dataset{X: mat.NewDense(2, 1, []float64{1.5, 2.5})})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Labels, p.Decision)
	// Output: [0 1] [-0.5 0.5]
}
