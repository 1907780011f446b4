// Package data holds LUPI Lab's one dataset type and everything that makes,
// reads, writes, splits and scales datasets.
//
// A Dataset carries a main block X (view A), an optional second block Z
// (privileged features available only at training time, or view B of a
// two-view problem), and either class labels Y or a 0/1 tag matrix Tags.
package data

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/datasets"
)

// Kind says what a dataset's second block and targets mean (see package
// datasets, the metadata-only catalogue).
type Kind = datasets.Kind

// Dataset kinds.
const (
	KindPlain      = datasets.KindPlain      // X and labels only
	KindLUPI       = datasets.KindLUPI       // Z is privileged (training only)
	KindTwoView    = datasets.KindTwoView    // Z is a second view (available at test time)
	KindMultiLabel = datasets.KindMultiLabel // Tags instead of Y
)

// Provenance records where a dataset came from.
type Provenance struct {
	Source  string `json:"source"`            // where the raw data came from
	Licence string `json:"licence"`           // its licence
	Blocks  string `json:"blocks,omitempty"`  // how X / Z / tags were formed
	Details string `json:"details,omitempty"` // one paragraph for the UI
}

// Dataset is a table of samples. Rows of X, Z, Y and Tags correspond.
type Dataset struct {
	Name string
	Kind Kind

	X      *mat.Dense // n×d main features (view A); never nil for a valid dataset
	XNames []string   // len d

	Z      *mat.Dense // n×s privileged features or view B; nil if absent
	ZNames []string   // len s

	Y       []int    // class index per row in [0, len(Classes)); nil for multi-label data
	Classes []string // class names; for binary tasks Classes[0] ↦ −1 and Classes[1] ↦ +1

	Tags     *mat.Dense // n×T matrix of 0/1 tags; nil unless multi-label
	TagNames []string   // len T

	Provenance Provenance
}

// Rows returns the number of samples.
func (d *Dataset) Rows() int {
	if d == nil || d.X == nil {
		return 0
	}
	r, _ := d.X.Dims()
	return r
}

// Dim returns the number of main features.
func (d *Dataset) Dim() int {
	if d == nil || d.X == nil {
		return 0
	}
	_, c := d.X.Dims()
	return c
}

// ZDim returns the number of privileged / view-B features (0 when absent).
func (d *Dataset) ZDim() int {
	if d == nil || d.Z == nil {
		return 0
	}
	_, c := d.Z.Dims()
	return c
}

// NumTags returns the number of tags (0 unless multi-label).
func (d *Dataset) NumTags() int {
	if d == nil || d.Tags == nil {
		return 0
	}
	_, c := d.Tags.Dims()
	return c
}

// BinaryY returns the labels as ±1 (class 0 ↦ −1, class 1 ↦ +1). It is an
// error unless the dataset has exactly two classes.
func (d *Dataset) BinaryY() ([]float64, error) {
	if len(d.Classes) != 2 {
		return nil, fmt.Errorf("data: %d classes, a binary task needs exactly 2", len(d.Classes))
	}
	y := make([]float64, len(d.Y))
	for i, c := range d.Y {
		if c == 1 {
			y[i] = 1
		} else {
			y[i] = -1
		}
	}
	return y, nil
}

// ErrNoData is returned for datasets without samples.
var ErrNoData = errors.New("data: the dataset has no samples")

// Validate checks shapes and values: consistent row counts, finite numbers,
// labels in range. It does not require two classes (see RequireClasses).
func (d *Dataset) Validate() error {
	if err := d.validateBlocks(); err != nil {
		return err
	}
	if d.Y == nil && d.Tags == nil {
		return errors.New("data: the dataset has neither labels nor tags")
	}
	return nil
}

// validateBlocks is Validate without requiring labels or tags (data to
// predict: ReadOptions.AllowUnlabelled).
func (d *Dataset) validateBlocks() error {
	if d == nil || d.X == nil {
		return ErrNoData
	}
	n, dx := d.X.Dims()
	if n == 0 || dx == 0 {
		return ErrNoData
	}
	if d.XNames != nil && len(d.XNames) != dx {
		return fmt.Errorf("data: %d main column names for %d columns", len(d.XNames), dx)
	}
	if err := CheckFinite("X", d.X); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	if d.Z != nil {
		nz, dz := d.Z.Dims()
		if nz != n {
			return fmt.Errorf("data: Z has %d rows, X has %d", nz, n)
		}
		if d.ZNames != nil && len(d.ZNames) != dz {
			return fmt.Errorf("data: %d second-block column names for %d columns", len(d.ZNames), dz)
		}
		if err := CheckFinite("Z", d.Z); err != nil {
			return fmt.Errorf("data: %w", err)
		}
	}
	if d.Y != nil {
		if len(d.Y) != n {
			return fmt.Errorf("data: %d labels for %d rows", len(d.Y), n)
		}
		for i, c := range d.Y {
			if c < 0 || c >= len(d.Classes) {
				return fmt.Errorf("data: row %d: class index %d out of range [0,%d)", i+1, c, len(d.Classes))
			}
		}
	}
	if d.Tags != nil {
		nt, t := d.Tags.Dims()
		if nt != n {
			return fmt.Errorf("data: tag matrix has %d rows, X has %d", nt, n)
		}
		for i := 0; i < n; i++ {
			for j := 0; j < t; j++ {
				if v := d.Tags.At(i, j); v != 0 && v != 1 {
					return fmt.Errorf("data: row %d tag %d: value %v is not 0 or 1", i+1, j+1, v)
				}
			}
		}
	}
	return nil
}

// RequireClasses returns an error unless every one of at least two classes
// has a sample.
func (d *Dataset) RequireClasses() error {
	if d.Y == nil {
		return errors.New("data: the dataset has no class labels")
	}
	if len(d.Classes) < 2 {
		return fmt.Errorf("data: only one class (%v): a classifier needs at least two", d.Classes)
	}
	counts := make([]int, len(d.Classes))
	for _, c := range d.Y {
		counts[c]++
	}
	present := 0
	for _, c := range counts {
		if c > 0 {
			present++
		}
	}
	if present < 2 {
		return errors.New("data: only one class is present: a classifier needs at least two")
	}
	return nil
}

// CheckFinite returns an error naming block ("X", "view A", …), the row and
// the column (1-based) of the first NaN or infinite value of m. Models that
// take a matrix directly (not through Dataset.Validate) check it with this.
func CheckFinite(block string, m *mat.Dense) error {
	r, _ := m.Dims()
	for i := 0; i < r; i++ {
		// x − x is 0 for a finite x and NaN for ±Inf and NaN: one
		// subtraction per entry, on the raw row (Validate runs before every fit).
		for j, v := range m.RawRowView(i) {
			if v-v != 0 {
				return fmt.Errorf("%s row %d column %d: %v is not a finite number", block, i+1, j+1, v)
			}
		}
	}
	return nil
}

// LUPIViewRule returns the decision rule ("A", "B" or "both") a two-view
// model may use after training on ds: on data whose second block is
// privileged (KindLUPI), Z exists only at training time, so the model may
// learn from it but must predict from view A alone — how paper 000 uses
// SVM-2K ("we only use the view from visual feature for prediction"). It
// returns the rule and, when it changed it, a warning that says so.
func LUPIViewRule(ds *Dataset, rule string) (string, string) {
	if ds == nil || ds.Kind != KindLUPI || rule == "A" {
		return rule, ""
	}
	return "A", fmt.Sprintf("the dataset's second block is privileged (training only): predicting with view A alone (rule A instead of %q)", rule)
}
