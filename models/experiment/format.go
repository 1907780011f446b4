package experiment

import (
	"fmt"

	"lupilab/models/stats"
)

// MeanSD formats the mean of xs (times scale) with prec decimals, followed
// by sep and the standard deviation when there are at least two values: a
// single run has no spread to report, and "± 0.00" would claim one. No
// values read "–".
func MeanSD(xs []float64, scale float64, prec int, sep string) string {
	if len(xs) == 0 {
		return "–"
	}
	m, sd := stats.MeanSD(xs)
	if len(xs) < 2 {
		return fmt.Sprintf("%.*f", prec, scale*m)
	}
	return fmt.Sprintf("%.*f%s%.*f", prec, scale*m, sep, prec, scale*sd)
}
