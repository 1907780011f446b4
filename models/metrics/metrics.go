// Package metrics computes classification and multi-label scores: accuracy
// and the confusion matrix for class labels; micro- and macro-averaged
// precision, recall and F1, per-tag precision and recall, Hamming loss and
// subset accuracy for tag sets. The CLI, the experiments and the UI all use it.
//
// Conventions: a ratio whose denominator is zero (precision of a tag that is
// never predicted, recall of a tag that never occurs) counts as 0, as
// scikit-learn does with zero_division=0. Macro averages run over every tag
// (or class), including those.
//
// Which average paper 003's Fig. 1 table uses. The table reports P, R and F1
// for Corel5K and compares with "the best result in [10]" (Makadia et al.,
// Baselines for image annotation), whose Corel5K protocol is per-word
// precision and recall averaged over the words (tags), i.e. macro-averaged P
// and R. For every row of the table F1 equals 2PR/(P+R) of that row's P and R
// to all four printed digits (e.g. 2·0.4078·0.3713/(0.4078+0.3713) = 0.3887),
// so F1 is the harmonic mean of the averaged P and R — not the mean of per-tag
// F1s, which is in general smaller. Micro averages would also satisfy that
// identity, but comparing with [10]'s numbers only makes sense with its
// per-word averaging, so the table most likely uses macro (per-tag) P and R
// with F1 = 2PR/(P+R) of those: MultiLabel.MacroP, MacroR and MacroPRF1 here.
package metrics

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// PRF is a precision / recall / F1 triple with the counts it came from.
type PRF struct {
	TP        int     `json:"tp"`
	FP        int     `json:"fp"`
	FN        int     `json:"fn"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// FromCounts returns precision TP/(TP+FP), recall TP/(TP+FN) and F1 =
// 2PR/(P+R) (each 0 when its denominator is 0).
func FromCounts(tp, fp, fn int) PRF {
	p := PRF{TP: tp, FP: fp, FN: fn}
	p.Precision = ratio(float64(tp), float64(tp+fp))
	p.Recall = ratio(float64(tp), float64(tp+fn))
	p.F1 = Harmonic(p.Precision, p.Recall)
	return p
}

// Harmonic returns 2ab/(a+b), 0 when a+b = 0.
func Harmonic(a, b float64) float64 {
	return ratio(2*a*b, a+b)
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// Classification holds the scores of a class-label prediction.
type Classification struct {
	N        int     `json:"n"`
	Classes  int     `json:"classes"`
	Accuracy float64 `json:"accuracy"`
	// Confusion[t][p] counts rows of true class t predicted as class p.
	Confusion [][]int `json:"confusion"`
	// PerClass holds each class's one-vs-rest precision, recall and F1.
	PerClass []PRF `json:"per_class"`
	// Micro pools the counts of every class (for single-label data micro
	// P = R = F1 = accuracy).
	Micro PRF `json:"micro"`
	// MacroP, MacroR and MacroF1 are unweighted means over classes of the
	// per-class precision, recall and F1.
	MacroP  float64 `json:"macro_precision"`
	MacroR  float64 `json:"macro_recall"`
	MacroF1 float64 `json:"macro_f1"`
}

// Accuracy returns the fraction of equal entries of truth and pred.
func Accuracy(truth, pred []int) (float64, error) {
	if len(truth) != len(pred) {
		return 0, fmt.Errorf("metrics: %d true labels, %d predictions", len(truth), len(pred))
	}
	if len(truth) == 0 {
		return 0, errors.New("metrics: no rows")
	}
	ok := 0
	for i := range truth {
		if truth[i] == pred[i] {
			ok++
		}
	}
	return float64(ok) / float64(len(truth)), nil
}

// Confusion returns the k×k confusion matrix: entry [t][p] counts rows with
// true class t and predicted class p. Labels must lie in [0, k).
func Confusion(truth, pred []int, k int) ([][]int, error) {
	if len(truth) != len(pred) {
		return nil, fmt.Errorf("metrics: %d true labels, %d predictions", len(truth), len(pred))
	}
	if k < 1 {
		return nil, fmt.Errorf("metrics: %d classes", k)
	}
	c := make([][]int, k)
	for i := range c {
		c[i] = make([]int, k)
	}
	for i := range truth {
		t, p := truth[i], pred[i]
		if t < 0 || t >= k || p < 0 || p >= k {
			return nil, fmt.Errorf("metrics: row %d: label %d / prediction %d outside [0,%d)", i+1, t, p, k)
		}
		c[t][p]++
	}
	return c, nil
}

// Classify scores class-label predictions over k classes.
func Classify(truth, pred []int, k int) (*Classification, error) {
	acc, err := Accuracy(truth, pred)
	if err != nil {
		return nil, err
	}
	conf, err := Confusion(truth, pred, k)
	if err != nil {
		return nil, err
	}
	r := &Classification{N: len(truth), Classes: k, Accuracy: acc, Confusion: conf, PerClass: make([]PRF, k)}
	var tp, fp, fn int
	for c := 0; c < k; c++ {
		var ctp, cfp, cfn int
		for o := 0; o < k; o++ {
			if o == c {
				ctp = conf[c][c]
				continue
			}
			cfn += conf[c][o]
			cfp += conf[o][c]
		}
		r.PerClass[c] = FromCounts(ctp, cfp, cfn)
		tp, fp, fn = tp+ctp, fp+cfp, fn+cfn
		r.MacroP += r.PerClass[c].Precision / float64(k)
		r.MacroR += r.PerClass[c].Recall / float64(k)
		r.MacroF1 += r.PerClass[c].F1 / float64(k)
	}
	r.Micro = FromCounts(tp, fp, fn)
	return r, nil
}

// MultiLabel holds the scores of a tag-set prediction.
type MultiLabel struct {
	N    int `json:"n"`
	Tags int `json:"tags"`
	// PerTag holds each tag's precision, recall and F1.
	PerTag []PRF `json:"per_tag"`
	// Micro pools the true/false positives and false negatives of all tags.
	Micro PRF `json:"micro"`
	// MacroP and MacroR are unweighted means over tags of the per-tag
	// precision and recall.
	MacroP float64 `json:"macro_precision"`
	MacroR float64 `json:"macro_recall"`
	// MacroF1 is the unweighted mean of the per-tag F1 (scikit-learn's
	// average="macro").
	MacroF1 float64 `json:"macro_f1"`
	// MacroPRF1 is 2·MacroP·MacroR/(MacroP+MacroR), the F1 of paper 003's
	// Fig. 1 (see the package comment).
	MacroPRF1 float64 `json:"macro_pr_f1"`
	// Hamming is the fraction of wrong (row, tag) entries.
	Hamming float64 `json:"hamming_loss"`
	// SubsetAccuracy is the fraction of rows whose predicted tag set equals
	// the true one exactly.
	SubsetAccuracy float64 `json:"subset_accuracy"`
}

// Tags scores predicted tag sets pred against truth (rows × tags, equal
// shapes, at least one row and one tag).
func Tags(truth, pred [][]bool) (*MultiLabel, error) {
	if len(truth) != len(pred) {
		return nil, fmt.Errorf("metrics: %d true rows, %d predicted rows", len(truth), len(pred))
	}
	if len(truth) == 0 {
		return nil, errors.New("metrics: no rows")
	}
	t := len(truth[0])
	if t == 0 {
		return nil, errors.New("metrics: no tags")
	}
	tp := make([]int, t)
	fp := make([]int, t)
	fn := make([]int, t)
	wrong, exact := 0, 0
	for i := range truth {
		if len(truth[i]) != t || len(pred[i]) != t {
			return nil, fmt.Errorf("metrics: row %d has %d true and %d predicted tags, want %d", i+1, len(truth[i]), len(pred[i]), t)
		}
		same := true
		for j := 0; j < t; j++ {
			a, b := truth[i][j], pred[i][j]
			switch {
			case a && b:
				tp[j]++
			case b:
				fp[j]++
			case a:
				fn[j]++
			}
			if a != b {
				wrong++
				same = false
			}
		}
		if same {
			exact++
		}
	}
	r := &MultiLabel{N: len(truth), Tags: t, PerTag: make([]PRF, t)}
	var stp, sfp, sfn int
	for j := 0; j < t; j++ {
		r.PerTag[j] = FromCounts(tp[j], fp[j], fn[j])
		stp, sfp, sfn = stp+tp[j], sfp+fp[j], sfn+fn[j]
		r.MacroP += r.PerTag[j].Precision / float64(t)
		r.MacroR += r.PerTag[j].Recall / float64(t)
		r.MacroF1 += r.PerTag[j].F1 / float64(t)
	}
	r.Micro = FromCounts(stp, sfp, sfn)
	r.MacroPRF1 = Harmonic(r.MacroP, r.MacroR)
	r.Hamming = float64(wrong) / float64(len(truth)*t)
	r.SubsetAccuracy = float64(exact) / float64(len(truth))
	return r, nil
}

// TagsOf converts a 0/1 tag matrix (such as data.Dataset.Tags; entries
// > 0.5 are "on") to the boolean form Tags takes. nil gives nil.
func TagsOf(m mat.Matrix) [][]bool {
	if m == nil {
		return nil
	}
	r, c := m.Dims()
	out := make([][]bool, r)
	for i := range out {
		out[i] = make([]bool, c)
		for j := range out[i] {
			out[i][j] = m.At(i, j) > 0.5
		}
	}
	return out
}
