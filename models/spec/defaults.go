package spec

import (
	"fmt"
	"strconv"
	"strings"
)

// Data-dependent defaults and parameters the chosen settings ignore: what
// the app and the CLI tell the user they chose or dropped for them.

// WidthNote is one kernel width set from the data (see AdaptWidths).
type WidthNote struct {
	Param string // "gamma" or "zgamma"
	Dim   int    // the features of the block it applies to
	Value string // the value set, 1/Dim to three significant digits
}

// String says it for people: "gamma = 1/30 ≈ 0.0333".
func (n WidthNote) String() string {
	return fmt.Sprintf("%s = 1/%d ≈ %s", n.Param, n.Dim, n.Value)
}

// AdaptWidths sets the RBF-type kernel widths γ ("gamma" for X, "zgamma"
// for Z) that are still at the catalogue's default of 1 to LIBSVM's
// data-dependent default 1/d, for blocks of d > 2 features: γ = 1 on 64
// standardised pixels makes every kernel value vanish. Two-dimensional
// data keep γ = 1 (the synthetic sets' scale). isDefault says whether the
// user left a parameter alone (the CLI: not given; the app: at its
// default). Widths of a kernel that does not use γ (linear) are left
// alone. It changes v in place and returns what it set.
func (s *Spec) AdaptWidths(v Values, isDefault func(name string) bool, xdim, zdim int) []WidthNote {
	var notes []WidthNote
	for _, w := range []struct {
		name, kernel string
		dim          int
	}{{"gamma", "kernel", xdim}, {"zgamma", "zkernel", zdim}} {
		p := s.Param(w.name)
		if p == nil || p.Default != "1" || w.dim <= 2 || !isDefault(w.name) || !s.uses(w.name, v) {
			continue
		}
		g := strconv.FormatFloat(1/float64(w.dim), 'g', 3, 64)
		if p.Validate(g) != nil {
			continue
		}
		v[w.name] = g
		notes = append(notes, WidthNote{Param: w.name, Dim: w.dim, Value: g})
	}
	return notes
}

// uses reports whether a parameter matters with the values v: false when
// its ShowIf names another parameter whose value is not among the listed
// ones (gamma with a linear kernel, degree with an RBF kernel).
func (s *Spec) uses(name string, v Values) bool {
	p := s.Param(name)
	if p == nil {
		return false
	}
	for other, vals := range p.ShowIf {
		cur, ok := v[other]
		if !ok {
			if q := s.Param(other); q != nil {
				cur = q.Default
			}
		}
		found := false
		for _, x := range vals {
			found = found || x == cur
		}
		if !found {
			return false
		}
	}
	return true
}

// Ignored lists, among the parameters named in given (as the user wrote
// them, aliases allowed), those the values v make irrelevant, each with
// the reason: "gamma (the kernel is linear)".
func (s *Spec) Ignored(given []string, v Values) []string {
	var out []string
	for _, name := range given {
		p := s.Param(name)
		if p == nil || s.uses(p.Name, v) {
			continue
		}
		var why []string
		for other, vals := range p.ShowIf {
			cur := v[other]
			if cur == "" {
				if q := s.Param(other); q != nil {
					cur = q.Default
				}
			}
			why = append(why, fmt.Sprintf("%s is %s, not %s", other, cur, strings.Join(vals, " or ")))
		}
		out = append(out, fmt.Sprintf("%s (%s)", name, strings.Join(why, "; ")))
	}
	return out
}
