package multiview

import (
	"testing"

	"lupilab/models/data"
	"lupilab/models/model"
	_ "lupilab/models/twin" // mpwtsvm
)

// A model fitted with rule "A" (or "B") predicts with that view's rule
// alone, so its accuracy from Predict — the classifier's own label path,
// binary or one-vs-one — is that view's accuracy: PerViewAccuracy must
// return it, for every two-view model, on a two-class problem with noisy
// views and on a three-class one-vs-one problem.
func TestPerViewAccuracyIsTheRuleAccuracy(t *testing.T) {
	two := twoView(60, 1.5, 1.5, 3)
	three := threeClasses(twoView(45, 2, 1.5, 10), 3)
	for _, ds := range []struct {
		name string
		set  model.Values
		ds   *data.Dataset
	}{{"two classes", model.Values{}, two}, {"three classes, ovo", model.Values{"multiclass": "ovo"}, three}} {
		d := ds.ds
		for _, id := range append([]string{"mpwtsvm"}, ids...) {
			var per [2]ViewAccuracy
			var want [2]float64
			for k, rule := range []string{"A", "B"} {
				v := model.Values{"rule": rule, "gamma": "0.5", "zgamma": "0.5"}
				for key, x := range ds.set {
					v[key] = x
				}
				f := fit(t, id, d, v)
				want[k] = accuracy(t, f, d)
				var err error
				if per[k], err = PerViewAccuracy(f, d); err != nil {
					t.Fatal(err)
				}
			}
			if per[0].A != want[0] || per[1].B != want[1] || per[0] != per[1] {
				t.Errorf("%s, %s: per-view %+v / %+v, rule A accuracy %.4f, rule B %.4f", id, ds.name, per[0], per[1], want[0], want[1])
			}
			t.Logf("%s, %s: view A %.3f, view B %.3f", id, ds.name, per[0].A, per[0].B)
		}
	}
}
