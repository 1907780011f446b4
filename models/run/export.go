package run

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"

	"lupilab/models/data"
	"lupilab/models/model"
)

// ResultsCSV writes an outcome's per-sample results as CSV: one row per
// training sample, then one per test sample.
//
// Classification columns: split ("train" or "test"), row (1-based within the
// split), true (class name), predicted (class name), decision (the model's
// decision value: binary > 0 ⇒ Classes[1]; multi-class the winning score;
// empty when the model has none), then, for models with probabilities,
// prob_<Classes[1]> (binary) or one prob_<class> per class (multi-class).
// Multi-label columns: split, row, true_tags, predicted_tags (tag names
// separated by spaces).
//
// The features the model saw follow — already scaled as in training — as
// x:<name> (and z:<name> for the second block), so that the exported model
// (model.Save) applied to them reproduces the predicted column exactly.
// Numbers are written in the shortest form that reads back to the same
// float64. A nil outcome gives nil.
func ResultsCSV(o *Outcome) []byte {
	if o == nil || o.Train == nil || o.Test == nil || o.TrainPred == nil || o.TestPred == nil {
		return nil
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	ds := o.Train
	multi := o.Spec != nil && o.Spec.Task == model.MultiLabel || ds.Y == nil
	var header []string
	var probCols []int
	if multi {
		header = []string{"split", "row", "true_tags", "predicted_tags"}
	} else {
		header = []string{"split", "row", "true", "predicted", "decision"}
		if hasProb(o.TrainPred) || hasProb(o.TestPred) {
			if len(ds.Classes) == 2 {
				probCols = []int{1}
			} else {
				for k := range ds.Classes {
					probCols = append(probCols, k)
				}
			}
			for _, k := range probCols {
				header = append(header, "prob_"+ds.Classes[k])
			}
		}
	}
	for j := 0; j < ds.Dim(); j++ {
		header = append(header, "x:"+colName(ds.XNames, j, "x_"))
	}
	for j := 0; j < ds.ZDim(); j++ {
		header = append(header, "z:"+colName(ds.ZNames, j, "z_"))
	}
	w.Write(header)
	for _, part := range []struct {
		name string
		ds   *data.Dataset
		pred *model.Prediction
	}{{"train", o.Train, o.TrainPred}, {"test", o.Test, o.TestPred}} {
		for i := 0; i < part.ds.Rows(); i++ {
			rec := []string{part.name, strconv.Itoa(i + 1)}
			if multi {
				rec = append(rec, trueTags(part.ds, i), predTags(part.ds, part.pred, i))
			} else {
				rec = append(rec, className(part.ds.Classes, part.ds.Y, i), className(part.ds.Classes, part.pred.Labels, i), at(part.pred.Decision, i))
				for _, k := range probCols {
					v := ""
					if i < len(part.pred.Prob) && k < len(part.pred.Prob[i]) {
						v = num(part.pred.Prob[i][k])
					}
					rec = append(rec, v)
				}
			}
			for j := 0; j < part.ds.Dim(); j++ {
				rec = append(rec, num(part.ds.X.At(i, j)))
			}
			for j := 0; j < part.ds.ZDim(); j++ {
				rec = append(rec, num(part.ds.Z.At(i, j)))
			}
			w.Write(rec)
		}
	}
	w.Flush()
	return buf.Bytes()
}

func hasProb(p *model.Prediction) bool { return p != nil && len(p.Prob) > 0 }

func colName(names []string, j int, prefix string) string {
	if j < len(names) && names[j] != "" {
		return names[j]
	}
	return prefix + strconv.Itoa(j+1)
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func at(v []float64, i int) string {
	if i < len(v) {
		return num(v[i])
	}
	return ""
}

func className(classes []string, y []int, i int) string {
	if i >= len(y) || y[i] < 0 || y[i] >= len(classes) {
		return ""
	}
	return classes[y[i]]
}

func trueTags(ds *data.Dataset, i int) string {
	if ds.Tags == nil {
		return ""
	}
	var out []string
	for j := 0; j < ds.NumTags(); j++ {
		if ds.Tags.At(i, j) == 1 {
			out = append(out, colName(ds.TagNames, j, "tag_"))
		}
	}
	return strings.Join(out, " ")
}

func predTags(ds *data.Dataset, p *model.Prediction, i int) string {
	if i >= len(p.Tags) {
		return ""
	}
	var out []string
	for j, on := range p.Tags[i] {
		if on {
			out = append(out, colName(ds.TagNames, j, "tag_"))
		}
	}
	return strings.Join(out, " ")
}
