package run

import (
	"context"
	"errors"
	"fmt"

	"lupilab/models/data"
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
	vals, err := spec.Resolve(cfg.Params)
	if err != nil {
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
	var foldRows [][]int
	metric = "accuracy"
	if train.Y != nil {
		foldRows, err = data.StratifiedKFold(train.Y, folds, cfg.Seed)
	} else {
		metric = "micro F1"
		foldRows, err = plainKFold(train.Rows(), folds, cfg.Seed)
	}
	if err != nil {
		return nil, "", err
	}
	for f, testRows := range foldRows {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		sub := scaleProgress(progress, f, len(foldRows), fmt.Sprintf("fold %d of %d", f+1, len(foldRows)))
		s, err := foldScore(ctx, spec, train, testRows, vals, cfg, sub)
		if errors.Is(err, context.Canceled) {
			return nil, "", err
		}
		if err != nil {
			return nil, "", fmt.Errorf("fold %d: %w", f+1, err)
		}
		scores = append(scores, s)
	}
	return scores, metric, nil
}
