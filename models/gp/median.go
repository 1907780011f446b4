package gp

import "gonum.org/v1/gonum/mat"

// MedianDistance is the median pairwise Euclidean distance of (at most 300)
// rows of X, the starting length-scale of GPC and GPC+; the gpcplus
// experiment starts its fits and scales its SVM grids from it.
func MedianDistance(X *mat.Dense) float64 { return medianDistance(X) }
