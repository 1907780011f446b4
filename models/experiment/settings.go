package experiment

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// SettingKind is the type of an experiment setting.
type SettingKind string

// Setting kinds. Lists are comma-separated.
const (
	Int    SettingKind = "int"
	Float  SettingKind = "float"
	Text   SettingKind = "text"
	Floats SettingKind = "floats"
	Texts  SettingKind = "texts"
	Choice SettingKind = "choice"
)

// Setting declares one experiment setting (Config.Args, the CLI's -set
// name=value), as model.Param declares a model's hyper-parameter.
type Setting struct {
	Name string      `json:"name"`
	Kind SettingKind `json:"kind"`
	// Default is the full protocol's value and Quick the browser-sized
	// run's when it differs ("" in Quick: Default). "" means unset: the
	// experiment decides (Env.Has is false).
	Default string `json:"default"`
	Quick   string `json:"quick,omitempty"`
	// Min and Max bound numbers (each element of a list); both 0: no
	// bounds. Open makes the bounds exclusive.
	Min  float64 `json:"min,omitempty"`
	Max  float64 `json:"max,omitempty"`
	Open bool    `json:"open,omitempty"`
	// Positive requires numbers > 0 (with or without Min and Max).
	Positive bool     `json:"positive,omitempty"`
	Choices  []string `json:"choices,omitempty"`
	Help     string   `json:"help,omitempty"`
}

// validate checks one value (non-empty) against the declaration.
func (s Setting) validate(v string) error {
	var items []string
	switch s.Kind {
	case Int, Float, Text:
		items = []string{v}
	case Floats, Texts:
		items = splitList(v)
		if len(items) == 0 {
			return fmt.Errorf("setting %s: empty list", s.Name)
		}
	case Choice:
		for _, c := range s.Choices {
			if v == c {
				return nil
			}
		}
		return fmt.Errorf("setting %s: %q is not one of %s", s.Name, v, strings.Join(s.Choices, ", "))
	default:
		return fmt.Errorf("setting %s: unknown kind %q", s.Name, s.Kind)
	}
	if s.Kind == Text || s.Kind == Texts {
		return nil
	}
	for _, it := range items {
		f, err := strconv.ParseFloat(it, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("setting %s: %q is not a finite number", s.Name, it)
		}
		if s.Kind == Int {
			if _, err := strconv.Atoi(it); err != nil {
				return fmt.Errorf("setting %s: %q is not an integer", s.Name, it)
			}
		}
		if s.Positive && !(f > 0) {
			return fmt.Errorf("setting %s: %s is not positive", s.Name, it)
		}
		if s.Min == 0 && s.Max == 0 {
			continue
		}
		lo, hi := s.Min, s.Max
		if hi == 0 && lo != 0 {
			hi = math.Inf(1)
		}
		if (s.Open && !(f > lo && f < hi)) || (!s.Open && !(f >= lo && f <= hi)) {
			l, r := "[", "]"
			if s.Open {
				l, r = "(", ")"
			}
			return fmt.Errorf("setting %s: %s is outside %s%g, %g%s", s.Name, it, l, lo, hi, r)
		}
	}
	return nil
}

func splitList(v string) []string {
	var out []string
	for _, it := range strings.Split(v, ",") {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}

// resolveSettings validates args against the declarations and returns every
// setting's value (Quick's default where quick).
func resolveSettings(name string, decl []Setting, args map[string]string, quick bool) (map[string]string, error) {
	out := map[string]string{}
	known := map[string]Setting{}
	for _, s := range decl {
		known[s.Name] = s
		v := s.Default
		if quick && s.Quick != "" {
			v = s.Quick
		}
		out[s.Name] = v
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := strings.TrimSpace(args[k])
		s, ok := known[k]
		if !ok {
			names := make([]string, len(decl))
			for i, d := range decl {
				names[i] = d.Name
			}
			return nil, fmt.Errorf("%s experiment has no setting %q (settings: %s)", name, k, strings.Join(names, ", "))
		}
		if v == "" {
			continue
		}
		if err := s.validate(v); err != nil {
			return nil, fmt.Errorf("%s experiment: %w", name, err)
		}
		out[k] = v
	}
	return out, nil
}
