package run

import (
	"context"
	"errors"
	"fmt"

	"lupilab/models/data"
	"lupilab/models/experiment"
	"lupilab/models/model"
)

// CrossValidate scores cfg.Model with cfg.Params by k-fold cross-validation
// on the training part of cfg's split (the test rows are never used):
// scaling is refitted on each fold's training rows, and the folds are drawn
// from cfg.Seed, so one cell of a grid gives the same scores whichever
// worker or goroutine computes it. The metric is accuracy, or micro F1 for
// tag data.
func CrossValidate(ctx context.Context, cfg Config, folds int, progress func(model.Progress)) (scores []float64, metric string, err error) {
	spec, err := model.Lookup(cfg.Model)
	if err != nil {
		return nil, "", err
	}
	if _, err := spec.Resolve(cfg.Params); err != nil {
		return nil, "", err
	}
	if folds < 2 {
		return nil, "", fmt.Errorf("%d folds: need at least 2", folds)
	}
	if err := Compatible(spec, cfg.Dataset); err != nil {
		return nil, "", err
	}
	train, _, err := data.StratifiedSplit(cfg.Dataset, cfg.TrainFrac, cfg.Seed)
	if err != nil {
		return nil, "", err
	}
	metric = "accuracy"
	if train.Y == nil {
		metric = "micro F1"
	}
	// one cell (the parameters themselves) of the grid search's CV
	cv := &experiment.CV{Model: cfg.Model, Base: cfg.Params, Folds: folds, Seed: cfg.Seed, Scale: cfg.Scale}
	foldRows, err := cv.FoldRows(train)
	if err != nil {
		return nil, "", err
	}
	res, err := cv.RunCell(ctx, train, foldRows, 0, progress)
	if err != nil {
		return nil, "", err
	}
	if res.Err != "" {
		return nil, "", errors.New(res.Err)
	}
	return res.Scores, metric, nil
}
