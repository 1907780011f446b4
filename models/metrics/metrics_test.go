package metrics

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("%s = %.15g, want %.15g", what, got, want)
	}
}

// Hand-computed: 3 rows, 3 tags.
//
//	truth  pred
//	1 0 1  1 1 0
//	0 1 0  0 1 0
//	1 1 0  0 1 0
//
// tag 0: tp 1, fp 0, fn 1 → P 1, R 1/2, F1 2/3
// tag 1: tp 2, fp 1, fn 0 → P 2/3, R 1, F1 4/5
// tag 2: tp 0, fp 0, fn 1 → P 0 (0/0), R 0, F1 0
// micro: tp 3, fp 1, fn 2 → P 3/4, R 3/5, F1 2/3
// macro P = (1+2/3+0)/3 = 5/9, macro R = (1/2+1+0)/3 = 1/2,
// macro F1 = (2/3+4/5)/3 = 22/45, F1 of macro P,R = 2·(5/9)(1/2)/(5/9+1/2) = 10/19
// Hamming = 3 wrong of 9 (2 in row 1, 1 in row 3); subset accuracy = 1/3 (row 2 only).
func TestTagsHand(t *testing.T) {
	truth := [][]bool{{true, false, true}, {false, true, false}, {true, true, false}}
	pred := [][]bool{{true, true, false}, {false, true, false}, {false, true, false}}
	r, err := Tags(truth, pred)
	if err != nil {
		t.Fatal(err)
	}
	want := []PRF{{1, 0, 1, 1, 0.5, 2.0 / 3}, {2, 1, 0, 2.0 / 3, 1, 0.8}, {0, 0, 1, 0, 0, 0}}
	for j, w := range want {
		g := r.PerTag[j]
		if g.TP != w.TP || g.FP != w.FP || g.FN != w.FN {
			t.Errorf("tag %d counts %+v, want %+v", j, g, w)
		}
		near(t, "precision", g.Precision, w.Precision)
		near(t, "recall", g.Recall, w.Recall)
		near(t, "f1", g.F1, w.F1)
	}
	near(t, "micro P", r.Micro.Precision, 0.75)
	near(t, "micro R", r.Micro.Recall, 0.6)
	near(t, "micro F1", r.Micro.F1, 2.0/3)
	near(t, "macro P", r.MacroP, 5.0/9)
	near(t, "macro R", r.MacroR, 0.5)
	near(t, "macro F1", r.MacroF1, 22.0/45)
	near(t, "macro PR F1", r.MacroPRF1, 10.0/19)
	near(t, "hamming", r.Hamming, 3.0/9)
	near(t, "subset", r.SubsetAccuracy, 1.0/3)
}

// Hand-computed: truth 0 0 1 1 2, pred 0 1 1 1 0.
// confusion [[1 1 0] [0 2 0] [1 0 0]], accuracy 3/5
// class 0: tp 1 fp 1 fn 1 → P 1/2 R 1/2 F 1/2; class 1: tp 2 fp 1 fn 0 → 2/3, 1, 4/5;
// class 2: tp 0 fp 0 fn 1 → 0, 0, 0. micro = accuracy = 3/5.
func TestClassifyHand(t *testing.T) {
	r, err := Classify([]int{0, 0, 1, 1, 2}, []int{0, 1, 1, 1, 0}, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{1, 1, 0}, {0, 2, 0}, {1, 0, 0}}
	for i := range want {
		for j := range want[i] {
			if r.Confusion[i][j] != want[i][j] {
				t.Fatalf("confusion %v, want %v", r.Confusion, want)
			}
		}
	}
	near(t, "accuracy", r.Accuracy, 0.6)
	near(t, "micro P", r.Micro.Precision, 0.6)
	near(t, "micro R", r.Micro.Recall, 0.6)
	near(t, "macro P", r.MacroP, (0.5+2.0/3)/3)
	near(t, "macro R", r.MacroR, 0.5)
	near(t, "macro F1", r.MacroF1, (0.5+0.8)/3)
}

func TestBadInput(t *testing.T) {
	if _, err := Tags(nil, nil); err == nil {
		t.Error("no rows: want an error")
	}
	if _, err := Tags([][]bool{{}}, [][]bool{{}}); err == nil {
		t.Error("no tags: want an error")
	}
	if _, err := Tags([][]bool{{true}}, [][]bool{{true}, {false}}); err == nil {
		t.Error("row count mismatch: want an error")
	}
	if _, err := Tags([][]bool{{true, false}}, [][]bool{{true}}); err == nil {
		t.Error("ragged: want an error")
	}
	if _, err := Classify([]int{0, 3}, []int{0, 1}, 3); err == nil {
		t.Error("label out of range: want an error")
	}
	if _, err := Accuracy([]int{0}, []int{0, 1}); err == nil {
		t.Error("length mismatch: want an error")
	}
}

func TestTagsOf(t *testing.T) {
	m := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	b := TagsOf(m)
	if !b[0][0] || b[0][1] || b[1][0] || !b[1][1] {
		t.Errorf("TagsOf = %v", b)
	}
}

// TestSklearn compares with scikit-learn 1.2 (testdata/make_fixtures.py,
// zero_division=0), including a tag never true and a tag never predicted.
func TestSklearn(t *testing.T) {
	raw, err := os.ReadFile("testdata/fixtures.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Multilabel struct {
			Truth, Pred    [][]int
			PerTagP        []float64 `json:"per_tag_precision"`
			PerTagR        []float64 `json:"per_tag_recall"`
			PerTagF        []float64 `json:"per_tag_f1"`
			Micro, Macro   []float64
			Hamming        float64
			SubsetAccuracy float64 `json:"subset_accuracy"`
		}
		Classification struct {
			Truth, Pred  []int
			K            int
			Accuracy     float64
			Confusion    [][]int
			PerClass     [][]float64 `json:"per_class"`
			Micro, Macro []float64
		}
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	ml := fx.Multilabel
	toB := func(a [][]int) [][]bool {
		out := make([][]bool, len(a))
		for i, r := range a {
			out[i] = make([]bool, len(r))
			for j, v := range r {
				out[i][j] = v == 1
			}
		}
		return out
	}
	r, err := Tags(toB(ml.Truth), toB(ml.Pred))
	if err != nil {
		t.Fatal(err)
	}
	for j := range ml.PerTagP {
		near(t, "per-tag P", r.PerTag[j].Precision, ml.PerTagP[j])
		near(t, "per-tag R", r.PerTag[j].Recall, ml.PerTagR[j])
		near(t, "per-tag F1", r.PerTag[j].F1, ml.PerTagF[j])
	}
	near(t, "micro P", r.Micro.Precision, ml.Micro[0])
	near(t, "micro R", r.Micro.Recall, ml.Micro[1])
	near(t, "micro F1", r.Micro.F1, ml.Micro[2])
	near(t, "macro P", r.MacroP, ml.Macro[0])
	near(t, "macro R", r.MacroR, ml.Macro[1])
	near(t, "macro F1", r.MacroF1, ml.Macro[2])
	near(t, "hamming", r.Hamming, ml.Hamming)
	near(t, "subset accuracy", r.SubsetAccuracy, ml.SubsetAccuracy)

	cl := fx.Classification
	c, err := Classify(cl.Truth, cl.Pred, cl.K)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "accuracy", c.Accuracy, cl.Accuracy)
	for i := range cl.Confusion {
		for j := range cl.Confusion[i] {
			if c.Confusion[i][j] != cl.Confusion[i][j] {
				t.Fatalf("confusion %v, want %v", c.Confusion, cl.Confusion)
			}
		}
	}
	for k := 0; k < cl.K; k++ {
		near(t, "class P", c.PerClass[k].Precision, cl.PerClass[0][k])
		near(t, "class R", c.PerClass[k].Recall, cl.PerClass[1][k])
		near(t, "class F1", c.PerClass[k].F1, cl.PerClass[2][k])
	}
	near(t, "micro P", c.Micro.Precision, cl.Micro[0])
	near(t, "micro F1", c.Micro.F1, cl.Micro[2])
	near(t, "macro P", c.MacroP, cl.Macro[0])
	near(t, "macro R", c.MacroR, cl.Macro[1])
	near(t, "macro F1", c.MacroF1, cl.Macro[2])
}
