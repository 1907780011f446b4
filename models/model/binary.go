package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"lupilab/models/data"
)

// BinaryModel is a fitted two-class model. Its decision is > 0 for the
// positive class (+1) and < 0 for the negative class (−1). It must marshal to
// JSON (encoding/json) so that Save works.
type BinaryModel interface {
	// Decision returns one decision value per row of ds (ds.X, and ds.Z for
	// two-view models).
	Decision(ds *data.Dataset) ([]float64, error)
	Report() *Report
}

// Probabilistic is implemented by binary models with probability outputs: P(y = +1 | x).
type Probabilistic interface {
	Probability(ds *data.Dataset) ([]float64, error)
}

// MultiView is implemented by two-view binary models that have per-view rules.
type MultiView interface {
	// ViewDecisions returns decision values per view, keyed "A" and "B".
	ViewDecisions(ds *data.Dataset) (map[string][]float64, error)
}

// BinaryFitFunc trains a binary model on labels y ∈ {−1, +1} (len = train rows).
// train.Y / train.Classes may describe the original multi-class task; use y.
type BinaryFitFunc func(ctx context.Context, train *data.Dataset, y []float64, v Values, opt Options) (BinaryModel, error)

// BinaryLoadFunc rebuilds a binary model from its JSON.
type BinaryLoadFunc func(raw json.RawMessage) (BinaryModel, error)

// WrapBinary turns a binary fitter into a FitFunc / Load pair for a spec: two
// classes train one model; more classes train one-vs-rest or one-vs-one models
// according to the "multiclass" parameter (default one-vs-rest).
func WrapBinary(id string, fit BinaryFitFunc, load BinaryLoadFunc) (FitFunc, LoadFunc) {
	fitFn := func(ctx context.Context, train *data.Dataset, v Values, opt Options) (Fitted, error) {
		if err := train.Validate(); err != nil {
			return nil, err
		}
		if err := train.RequireClasses(); err != nil {
			return nil, err
		}
		start := time.Now()
		strategy, tasks := binaryTasks(train, v["multiclass"])
		c := &Classifier{ID: id, Classes: append([]string(nil), train.Classes...), Strategy: strategy}
		if len(tasks) > 1 {
			// One workspace for the family: one-vs-rest tasks fit the same
			// rows and share their kernel rows and Qλ through it (unless
			// the caller passed a wider one, e.g. an experiment's).
			opt = opt.WithWorkspace()
		}
		rep := &Report{Model: id, Params: v.Clone(), NTrain: train.Rows(), Converged: true}
		support := map[int]bool{}
		for ti, t := range tasks {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			sub := train
			if t.rows != nil {
				sub = Subset(train, t.rows)
			}
			subOpt := opt
			subOpt.Progress = taskProgress(opt.Progress, ti, len(tasks))
			if opt.Watch != nil {
				subOpt.Watch = binaryWatch(opt.Watch, c, t, ti, len(tasks))
			}
			m, err := fit(ctx, sub, t.y, v, subOpt)
			if err != nil {
				if len(tasks) > 1 {
					return nil, fmt.Errorf("%s vs %s: %w", train.Classes[t.pos], negName(train.Classes, t.neg), err)
				}
				return nil, err
			}
			c.Models = append(c.Models, m)
			c.Pos = append(c.Pos, t.pos)
			c.Neg = append(c.Neg, t.neg)
			r := m.Report()
			rep.Sub = append(rep.Sub, r)
			rep.Iterations += r.Iterations
			rep.Objective += r.Objective
			rep.Converged = rep.Converged && r.Converged
			rep.Warnings = append(rep.Warnings, r.Warnings...)
			for _, s := range r.Support {
				if t.rows != nil {
					s = t.rows[s]
				}
				support[s] = true
			}
		}
		rep.NSupport = len(support)
		for s := range support {
			rep.Support = append(rep.Support, s)
		}
		sortInts(rep.Support)
		if len(tasks) == 1 {
			r := rep.Sub[0]
			rep.Rho, rep.Extras, rep.Diagnostics, rep.Support, rep.NSupport = r.Rho, r.Extras, r.Diagnostics, r.Support, r.NSupport
			rep.Sub = nil
		}
		rep.TrainSeconds = time.Since(start).Seconds()
		c.report = rep
		return c, nil
	}
	loadFn := func(raw json.RawMessage) (Fitted, error) {
		var w struct {
			Classes  []string          `json:"classes"`
			Strategy string            `json:"strategy"`
			Pos      []int             `json:"pos"`
			NegIdx   []int             `json:"neg"`
			Models   []json.RawMessage `json:"models"`
			Report   *Report           `json:"report"`
		}
		if err := DecodeStrict(raw, &w); err != nil {
			return nil, fmt.Errorf("model %s: %w", id, err)
		}
		if err := checkClassifier(w.Classes, w.Strategy, w.Pos, w.NegIdx, len(w.Models)); err != nil {
			return nil, fmt.Errorf("model %s: %w", id, err)
		}
		c := &Classifier{ID: id, Classes: w.Classes, Strategy: w.Strategy, Pos: w.Pos, Neg: w.NegIdx, report: w.Report}
		for i, r := range w.Models {
			m, err := load(r)
			if err != nil {
				if len(w.Models) > 1 {
					return nil, fmt.Errorf("model %s, binary model %d of %d: %w", id, i+1, len(w.Models), err)
				}
				return nil, err
			}
			if m == nil {
				return nil, fmt.Errorf("model %s: binary model %d is empty", id, i+1)
			}
			c.Models = append(c.Models, m)
		}
		if _, _, err := c.dims(); err != nil {
			return nil, err
		}
		if c.report == nil {
			c.report = &Report{Model: id}
		}
		return c, nil
	}
	return fitFn, loadFn
}

// checkClassifier checks a saved classifier's layout: at least two
// distinct classes; "binary": one model of class 1 against class 0;
// "ovr": one model per class, class c against the rest (−1); "ovo": at
// most one model per pair a < b, b against a.
func checkClassifier(classes []string, strategy string, pos, neg []int, models int) error {
	if len(classes) < 2 {
		return fmt.Errorf("malformed saved classifier: %d classes", len(classes))
	}
	seen := map[string]bool{}
	for _, c := range classes {
		if seen[c] {
			return fmt.Errorf("malformed saved classifier: class %q twice", c)
		}
		seen[c] = true
	}
	if models == 0 || len(pos) != models || len(neg) != models {
		return fmt.Errorf("malformed saved classifier: %d models with %d positive and %d negative classes", models, len(pos), len(neg))
	}
	k := len(classes)
	switch strategy {
	case "binary":
		if k != 2 || models != 1 || pos[0] != 1 || neg[0] != 0 {
			return errors.New("malformed saved classifier: a binary classifier is one model of class 1 against class 0")
		}
	case "ovr":
		if models != k {
			return fmt.Errorf("malformed saved classifier: one-vs-rest with %d models for %d classes", models, k)
		}
		for i := range pos {
			if pos[i] != i || neg[i] != -1 {
				return fmt.Errorf("malformed saved classifier: one-vs-rest model %d is %d against %d", i+1, pos[i], neg[i])
			}
		}
	case "ovo":
		if models > k*(k-1)/2 {
			return fmt.Errorf("malformed saved classifier: one-vs-one with %d models for %d classes", models, k)
		}
		pairs := map[[2]int]bool{}
		for i := range pos {
			if neg[i] < 0 || pos[i] <= neg[i] || pos[i] >= k || pairs[[2]int{neg[i], pos[i]}] {
				return fmt.Errorf("malformed saved classifier: one-vs-one model %d is %d against %d", i+1, pos[i], neg[i])
			}
			pairs[[2]int{neg[i], pos[i]}] = true
		}
	default:
		return fmt.Errorf("malformed saved classifier: unknown multi-class strategy %q", strategy)
	}
	return nil
}

// dims returns the input dimensions the binary models agree on (0, 0 when
// none of them says), or an error when two disagree.
func (c *Classifier) dims() (x, z int, err error) {
	found := false
	for i, m := range c.Models {
		sh, ok := m.(Shaped)
		if !ok {
			continue
		}
		mx, mz := sh.InputDims()
		if !found {
			x, z, found = mx, mz, true
			continue
		}
		if mx != x || mz != z {
			return 0, 0, fmt.Errorf("model %s: binary model %d was trained on %d + %d features, model 1 on %d + %d", c.ID, i+1, mx, mz, x, z)
		}
	}
	return x, z, nil
}

// InputDims implements Shaped: the features every binary model predicts
// from (X's and, for two-view models, Z's).
func (c *Classifier) InputDims() (x, z int) {
	x, z, _ = c.dims()
	return x, z
}

type binaryTask struct {
	rows     []int
	y        []float64
	pos, neg int // class indices; neg = −1 for "rest"
}

// binaryTasks are the binary problems of train: one for two classes
// (strategy "binary"), else one per pair of classes that has rows
// (multiclass "ovo") or one per class against the rest ("ovr", the default).
func binaryTasks(train *data.Dataset, multiclass string) (string, []binaryTask) {
	k := len(train.Classes)
	switch {
	case k == 2:
		y, _ := train.BinaryY()
		return "binary", []binaryTask{{rows: nil, y: y, pos: 1, neg: 0}}
	case multiclass == "ovo":
		var tasks []binaryTask
		for a := 0; a < k; a++ {
			for b := a + 1; b < k; b++ {
				var rows []int
				var y []float64
				for i, cl := range train.Y {
					if cl == a || cl == b {
						rows = append(rows, i)
						if cl == b {
							y = append(y, 1)
						} else {
							y = append(y, -1)
						}
					}
				}
				if len(rows) == 0 {
					continue
				}
				tasks = append(tasks, binaryTask{rows: rows, y: y, pos: b, neg: a})
			}
		}
		return "ovo", tasks
	default:
		var tasks []binaryTask
		for a := 0; a < k; a++ {
			y := make([]float64, len(train.Y))
			for i, cl := range train.Y {
				if cl == a {
					y[i] = 1
				} else {
					y[i] = -1
				}
			}
			tasks = append(tasks, binaryTask{y: y, pos: a, neg: -1})
		}
		return "ovr", tasks
	}
}

// taskProgress maps task ti of n's progress into its share [ti/n, (ti+1)/n]
// of the family's (naming the task as the stage when n > 1); nil for nil.
func taskProgress(progress func(Progress), ti, n int) func(Progress) {
	if progress == nil {
		return nil
	}
	base, span := float64(ti)/float64(n), 1/float64(n)
	stage := fmt.Sprintf("model %d of %d", ti+1, n)
	return func(p Progress) {
		f := p.Fraction
		if f < 0 {
			f = 0
		}
		p.Fraction = base + span*f
		if n > 1 {
			p.Stage = stage
		}
		progress(p)
	}
}

func negName(classes []string, i int) string {
	if i < 0 {
		return "rest"
	}
	return classes[i]
}

// Classifier is the Fitted model that WrapBinary returns: one binary model
// (two classes) or several (one-vs-rest / one-vs-one).
type Classifier struct {
	ID       string
	Classes  []string
	Strategy string // "binary", "ovr" or "ovo"
	Pos, Neg []int  // per model: class index of its +1 side and of its −1 side (−1 = rest)
	Models   []BinaryModel
	report   *Report
}

// Report implements Fitted.
func (c *Classifier) Report() *Report { return c.report }

// MarshalJSON saves the classifier (see Save).
func (c *Classifier) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Classes  []string      `json:"classes"`
		Strategy string        `json:"strategy"`
		Pos      []int         `json:"pos"`
		Neg      []int         `json:"neg"`
		Models   []BinaryModel `json:"models"`
		Report   *Report       `json:"report"`
	}{c.Classes, c.Strategy, c.Pos, c.Neg, c.Models, c.report})
}

// Predict implements Fitted.
func (c *Classifier) Predict(ds *data.Dataset) (*Prediction, error) {
	n := ds.Rows()
	if n == 0 {
		return nil, data.ErrNoData
	}
	dec := make([][]float64, len(c.Models))
	for m, bm := range c.Models {
		d, err := bm.Decision(ds)
		if err != nil {
			return nil, err
		}
		if len(d) != n {
			return nil, fmt.Errorf("model %s: %d decision values for %d rows", c.ID, len(d), n)
		}
		for _, x := range d {
			if math.IsNaN(x) {
				return nil, errors.New("model " + c.ID + ": the decision value is NaN")
			}
		}
		dec[m] = d
	}
	return c.combine(dec, ds)
}

// Combine turns the binary models' decision values on n points (dec[m][i]
// for model m) into the classifier's prediction, as Predict does. It needs
// the data only for models with probability outputs or per-view rules, and
// fails without them.
func (c *Classifier) Combine(dec [][]float64) (*Prediction, error) {
	if len(dec) != len(c.Models) || len(dec) == 0 {
		return nil, fmt.Errorf("model %s: %d decision vectors for %d binary models", c.ID, len(dec), len(c.Models))
	}
	for m, bm := range c.Models {
		if len(dec[m]) != len(dec[0]) {
			return nil, fmt.Errorf("model %s: decision vectors of different lengths", c.ID)
		}
		for _, x := range dec[m] {
			if math.IsNaN(x) {
				return nil, errors.New("model " + c.ID + ": the decision value is NaN")
			}
		}
		if c.Strategy == "binary" && m == 0 {
			_, pr := bm.(Probabilistic)
			_, mv := bm.(MultiView)
			if pr || mv {
				return nil, fmt.Errorf("model %s: its prediction needs the data, not only decision values", c.ID)
			}
		}
	}
	return c.combine(dec, nil)
}

func (c *Classifier) combine(dec [][]float64, ds *data.Dataset) (*Prediction, error) {
	n := len(dec[0])
	p := &Prediction{Labels: make([]int, n), Decision: make([]float64, n)}
	k := len(c.Classes)
	switch c.Strategy {
	case "binary":
		copy(p.Decision, dec[0])
		for i, d := range dec[0] {
			if d > 0 {
				p.Labels[i] = c.Pos[0]
			} else {
				p.Labels[i] = c.Neg[0]
			}
		}
		if pm, ok := c.Models[0].(Probabilistic); ok && ds != nil {
			pr, err := pm.Probability(ds)
			if err != nil {
				return nil, err
			}
			p.Prob = make([][]float64, n)
			for i, q := range pr {
				p.Prob[i] = []float64{1 - q, q}
			}
		}
		if mv, ok := c.Models[0].(MultiView); ok && ds != nil {
			views, err := mv.ViewDecisions(ds)
			if err != nil {
				return nil, err
			}
			p.Views = views
		}
	case "ovr":
		p.Scores = make([][]float64, n)
		for i := 0; i < n; i++ {
			s := make([]float64, k)
			for m := range c.Models {
				s[c.Pos[m]] = dec[m][i]
			}
			best := 0
			for j := 1; j < k; j++ {
				if s[j] > s[best] {
					best = j
				}
			}
			p.Scores[i], p.Labels[i], p.Decision[i] = s, best, s[best]
		}
	case "ovo":
		p.Scores = make([][]float64, n)
		for i := 0; i < n; i++ {
			votes := make([]float64, k)
			for m := range c.Models {
				if dec[m][i] > 0 {
					votes[c.Pos[m]]++
				} else {
					votes[c.Neg[m]]++
				}
			}
			best := 0 // ties go to the lowest class index, as in LIBSVM
			for j := 1; j < k; j++ {
				if votes[j] > votes[best] {
					best = j
				}
			}
			p.Scores[i], p.Labels[i], p.Decision[i] = votes, best, votes[best]
		}
	default:
		return nil, fmt.Errorf("model %s: unknown multi-class strategy %q", c.ID, c.Strategy)
	}
	return p, nil
}

// Subset returns the rows of ds listed in rows (see data.Subset).
func Subset(ds *data.Dataset, rows []int) *data.Dataset { return data.Subset(ds, rows) }

func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// binaryWatch passes a binary fitter's snapshots on: with two classes its
// model is the classifier's; in a family of several tasks the iterate is
// one sub-model among unfitted ones, so only the solver's measure goes on
// (with the task in the stage).
func binaryWatch(w *Watch, c *Classifier, t binaryTask, ti, tasks int) *Watch {
	return &Watch{Due: w.Due, Take: func(s Snapshot) {
		if s.Binary != nil && tasks == 1 {
			s.Model = &Classifier{ID: c.ID, Classes: c.Classes, Strategy: c.Strategy, Pos: []int{t.pos}, Neg: []int{t.neg},
				Models: []BinaryModel{s.Binary}, report: s.Binary.Report()}
		}
		s.Binary = nil
		if tasks > 1 {
			s.Stage = fmt.Sprintf("model %d of %d, %s", ti+1, tasks, s.Stage)
		}
		w.Take(s)
	}}
}
