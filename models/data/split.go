package data

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// NewRand returns the generator every seeded function in this package uses:
// a PCG seeded from the int64 seed.
func NewRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), uint64(seed)^0x9e3779b97f4a7c15))
}

// Subset returns the rows of ds listed in rows (X, Z, Y and Tags, in that
// order), sharing names, classes and provenance. Indices must be in range.
func Subset(ds *Dataset, rows []int) *Dataset {
	out := *ds
	out.X = pickRows(ds.X, rows)
	if ds.Z != nil {
		out.Z = pickRows(ds.Z, rows)
	}
	if ds.Tags != nil {
		out.Tags = pickRows(ds.Tags, rows)
	}
	if ds.Y != nil {
		out.Y = make([]int, len(rows))
		for i, r := range rows {
			out.Y[i] = ds.Y[r]
		}
	}
	return &out
}

func pickRows(m *mat.Dense, rows []int) *mat.Dense {
	if m == nil {
		return nil
	}
	_, c := m.Dims()
	if len(rows) == 0 || c == 0 {
		return &mat.Dense{}
	}
	out := mat.NewDense(len(rows), c, nil)
	for i, r := range rows {
		out.SetRow(i, m.RawRowView(r))
	}
	return out
}

// ClassCounts returns the number of rows of each class.
func (d *Dataset) ClassCounts() []int {
	counts := make([]int, len(d.Classes))
	for _, c := range d.Y {
		if c >= 0 && c < len(counts) {
			counts[c]++
		}
	}
	return counts
}

// StratifiedSplit splits ds into a training and a test set with about
// trainFrac of each class in the training set (rounded, and at least one row
// of each class on each side when the class has two rows or more). Data
// without class labels (multi-label) is split at random. Row order within
// each part is the original order. The same seed gives the same split.
func StratifiedSplit(ds *Dataset, trainFrac float64, seed int64) (train, test *Dataset, err error) {
	tr, te, err := StratifiedSplitRows(ds, trainFrac, seed)
	if err != nil {
		return nil, nil, err
	}
	return Subset(ds, tr), Subset(ds, te), nil
}

// StratifiedSplitRows is StratifiedSplit's row indices (each side sorted).
func StratifiedSplitRows(ds *Dataset, trainFrac float64, seed int64) (train, test []int, err error) {
	if err := ds.Validate(); err != nil {
		return nil, nil, err
	}
	if !(trainFrac > 0 && trainFrac < 1) {
		return nil, nil, fmt.Errorf("data: training fraction %v must be in (0, 1)", trainFrac)
	}
	n := ds.Rows()
	if n < 2 {
		return nil, nil, errors.New("data: at least 2 rows are needed to split")
	}
	rng := NewRand(seed)
	groups := groupsOf(ds)
	var tr, te []int
	for _, g := range groups {
		rng.Shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
		k := int(math.Round(trainFrac * float64(len(g))))
		if len(g) >= 2 {
			k = max(1, min(k, len(g)-1))
		}
		tr = append(tr, g[:k]...)
		te = append(te, g[k:]...)
	}
	if len(tr) == 0 || len(te) == 0 {
		return nil, nil, errors.New("data: the split leaves one side empty; change the fraction")
	}
	sort.Ints(tr)
	sort.Ints(te)
	return tr, te, nil
}

func groupsOf(ds *Dataset) [][]int {
	if ds.Y == nil {
		g := make([]int, ds.Rows())
		for i := range g {
			g[i] = i
		}
		return [][]int{g}
	}
	groups := make([][]int, len(ds.Classes))
	for i, c := range ds.Y {
		groups[c] = append(groups[c], i)
	}
	return groups
}

// StratifiedKFold returns k test folds (row indices, each sorted) covering
// every row once, with each class spread as evenly as possible over the
// folds. It is an error if k < 2 or some present class has fewer than k rows.
func StratifiedKFold(y []int, k int, seed int64) ([][]int, error) {
	if k < 2 {
		return nil, fmt.Errorf("data: k = %d folds, need at least 2", k)
	}
	if len(y) < k {
		return nil, fmt.Errorf("data: %d rows cannot make %d folds", len(y), k)
	}
	byClass := map[int][]int{}
	for i, c := range y {
		byClass[c] = append(byClass[c], i)
	}
	classes := make([]int, 0, len(byClass))
	for c, rows := range byClass {
		if len(rows) < k {
			return nil, fmt.Errorf("data: class %d has %d rows, fewer than k = %d folds", c, len(rows), k)
		}
		classes = append(classes, c)
	}
	sort.Ints(classes)
	rng := NewRand(seed)
	folds := make([][]int, k)
	next := 0
	for _, c := range classes {
		rows := byClass[c]
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		for _, r := range rows {
			folds[next] = append(folds[next], r)
			next = (next + 1) % k
		}
	}
	for _, f := range folds {
		sort.Ints(f)
	}
	return folds, nil
}

// KFold returns k random test folds over n rows (for data without classes).
func KFold(n, k int, seed int64) ([][]int, error) {
	if k < 2 || n < k {
		return nil, fmt.Errorf("data: %d rows cannot make %d folds (need 2 ≤ k ≤ n)", n, k)
	}
	perm := NewRand(seed).Perm(n)
	folds := make([][]int, k)
	for i, r := range perm {
		folds[i%k] = append(folds[i%k], r)
	}
	for _, f := range folds {
		sort.Ints(f)
	}
	return folds, nil
}

// Complement returns the indices in [0, n) not in fold (the training rows
// of a fold).
func Complement(n int, fold []int) []int {
	in := make([]bool, n)
	for _, r := range fold {
		if r >= 0 && r < n {
			in[r] = true
		}
	}
	out := make([]int, 0, n-len(fold))
	for i, b := range in {
		if !b {
			out = append(out, i)
		}
	}
	return out
}

func classOf(ds *Dataset, name string) int {
	for i, c := range ds.Classes {
		if c == name {
			return i
		}
	}
	return -1
}

// OneVsOne returns the binary task "neg vs pos": the rows of the two classes,
// with Classes = [neg, pos] (neg ↦ −1, pos ↦ +1).
func OneVsOne(ds *Dataset, neg, pos string) (*Dataset, error) {
	if ds.Y == nil {
		return nil, errors.New("data: one-vs-one needs class labels")
	}
	a, b := classOf(ds, neg), classOf(ds, pos)
	if a < 0 || b < 0 {
		return nil, fmt.Errorf("data: classes %q and %q must both be among %v", neg, pos, ds.Classes)
	}
	if a == b {
		return nil, errors.New("data: one-vs-one needs two different classes")
	}
	var rows []int
	for i, c := range ds.Y {
		if c == a || c == b {
			rows = append(rows, i)
		}
	}
	out := Subset(ds, rows)
	for i, r := range rows {
		if ds.Y[r] == b {
			out.Y[i] = 1
		} else {
			out.Y[i] = 0
		}
	}
	out.Classes = []string{neg, pos}
	out.Name = fmt.Sprintf("%s (%s vs %s)", ds.Name, neg, pos)
	if err := out.RequireClasses(); err != nil {
		return nil, err
	}
	return out, nil
}

// OneVsRest returns the binary task "pos vs the rest": every row, with
// Classes = ["not " + pos, pos].
func OneVsRest(ds *Dataset, pos string) (*Dataset, error) {
	if ds.Y == nil {
		return nil, errors.New("data: one-vs-rest needs class labels")
	}
	b := classOf(ds, pos)
	if b < 0 {
		return nil, fmt.Errorf("data: class %q is not among %v", pos, ds.Classes)
	}
	out := Subset(ds, allRows(ds.Rows()))
	for i, c := range ds.Y {
		out.Y[i] = 0
		if c == b {
			out.Y[i] = 1
		}
	}
	out.Classes = []string{"not " + pos, pos}
	out.Name = fmt.Sprintf("%s (%s vs rest)", ds.Name, pos)
	if err := out.RequireClasses(); err != nil {
		return nil, err
	}
	return out, nil
}

// Pair names a binary task of a one-vs-one decomposition.
type Pair struct{ Neg, Pos string }

// OneVsOnePairs lists every pair of classes (i < j) in class order.
func OneVsOnePairs(ds *Dataset) []Pair {
	var out []Pair
	for i := 0; i < len(ds.Classes); i++ {
		for j := i + 1; j < len(ds.Classes); j++ {
			out = append(out, Pair{ds.Classes[i], ds.Classes[j]})
		}
	}
	return out
}

// TagTask returns the binary task of one tag of a multi-label dataset
// (binary relevance): Classes = ["no " + tag, tag].
func TagTask(ds *Dataset, tag string) (*Dataset, error) {
	if ds.Tags == nil {
		return nil, errors.New("data: the dataset has no tags")
	}
	t := -1
	for j, name := range ds.TagNames {
		if name == tag {
			t = j
		}
	}
	if t < 0 {
		return nil, fmt.Errorf("data: tag %q is not among %v", tag, ds.TagNames)
	}
	out := Subset(ds, allRows(ds.Rows()))
	out.Y = make([]int, ds.Rows())
	for i := range out.Y {
		if ds.Tags.At(i, t) == 1 {
			out.Y[i] = 1
		}
	}
	out.Classes = []string{"no " + tag, tag}
	out.Tags, out.TagNames = nil, nil
	out.Kind = KindPlain
	if ds.Z != nil {
		out.Kind = KindTwoView
	}
	out.Name = fmt.Sprintf("%s (tag %s)", ds.Name, tag)
	return out, nil
}

func allRows(n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = i
	}
	return r
}
