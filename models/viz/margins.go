package viz

import (
	"math"

	"lupilab/models/model"
)

// Class margins. A multi-class map's predicted class is constant on cells,
// so drawing its labels alone gives borders in steps of a cell. Each class
// c gets instead a margin field, positive exactly where c is predicted:
// its 0 level is the border of c's region, which Contours traces (and a
// painter interpolates) between the grid's nodes as finely as a binary
// decision's boundary.

// marginTiny is the magnitude a margin is set to where the strategy's own
// field has the wrong sign at a node (ties, one-vs-one vote cycles): the
// sign at every node is then the prediction's, and the 0 level passes close
// to the node. Large enough to survive float32.
const marginTiny = 1e-6

// classMargins returns, for each class, its margin at each grid node from
// the binary models' decision values dec (as Classifier.Combine takes
// them) and the predicted labels:
//
//   - one-vs-rest: s_c − max_{j≠c} s_j, s_c being class c's decision value
//     (Predict's rule is the argmax of s);
//   - one-vs-one: min over c's duels of the duel's decision value signed
//     for c — positive exactly where c wins all its duels, hence every vote.
//
// A node whose label disagrees with the sign of a margin (a tie, or a vote
// cycle where no class wins all its duels and the lowest index takes the
// node) gets ±marginTiny instead, so that the margins' signs are the
// predicted labels.
func classMargins(c *model.Classifier, dec [][]float64, labels []int) [][]float64 {
	k := len(c.Classes)
	n := len(labels)
	out := make([][]float64, k)
	for i := range out {
		out[i] = make([]float64, n)
	}
	switch c.Strategy {
	case "ovr":
		s := make([][]float64, k)
		for m := range c.Models {
			s[c.Pos[m]] = dec[m]
		}
		for i := 0; i < n; i++ {
			for cl := 0; cl < k; cl++ {
				best := math.Inf(-1)
				for j := 0; j < k; j++ {
					if j != cl && s[j] != nil {
						best = math.Max(best, s[j][i])
					}
				}
				if s[cl] != nil && !math.IsInf(best, 0) {
					out[cl][i] = s[cl][i] - best
				}
			}
		}
	case "ovo":
		for cl := range out {
			for i := range out[cl] {
				out[cl][i] = math.Inf(1)
			}
		}
		for m := range c.Models {
			p, q := c.Pos[m], c.Neg[m]
			for i, d := range dec[m] {
				out[p][i] = math.Min(out[p][i], d)
				out[q][i] = math.Min(out[q][i], -d)
			}
		}
	}
	agree(out, labels)
	return out
}

// scoreMargins returns the margins s_c − max_{j≠c} s_j of per-row class
// scores (a prediction's Scores, point by point), or with no scores ±1 by
// the labels alone (the 0 level then runs half-way between nodes).
func scoreMargins(k int, scores [][]float64, labels []int) [][]float64 {
	n := len(labels)
	out := make([][]float64, k)
	for c := range out {
		out[c] = make([]float64, n)
	}
	if len(scores) == n {
		for i, s := range scores {
			for c := 0; c < k && c < len(s); c++ {
				best := math.Inf(-1)
				for j := range s {
					if j != c {
						best = math.Max(best, s[j])
					}
				}
				if !math.IsInf(best, 0) {
					out[c][i] = s[c] - best
				}
			}
		}
	}
	agree(out, labels)
	return out
}

// agree sets every margin whose sign disagrees with the labels (> 0 exactly
// where the class is predicted; 0 counts as the wrong sign) to ±marginTiny.
func agree(margins [][]float64, labels []int) {
	for c, m := range margins {
		for i, v := range m {
			on := labels[i] == c
			switch {
			case on && !(v > 0):
				m[i] = marginTiny
			case !on && !(v < 0):
				m[i] = -marginTiny
			}
		}
	}
}
