package spec

import "strings"

// Output declares one quantity a fitted model reports besides the common
// Report fields: a scalar in Report.Extras or a per-training-sample vector in
// Report.Diagnostics. The UI's result table, the plots' legends and the CLI
// read labels, units and help from here, so a key and its meaning cannot
// drift apart (the registry test fails on an undeclared key).
type Output struct {
	// Key is the key in Extras or Diagnostics. A trailing "*" matches any
	// suffix (e.g. "w_pos_*" for one weight per input dimension).
	Key string `json:"key"`
	// Label is a short name for tables and legends, in words.
	Label string `json:"label"`
	// Help is one sentence saying what the number means for the user.
	Help string `json:"help,omitempty"`
	// Unit of the value ("s", "bytes", "nats", "" for none).
	Unit string `json:"unit,omitempty"`
	// PerSample marks a vector with one value per training sample
	// (Report.Diagnostics); otherwise the output is a scalar (Report.Extras).
	PerSample bool `json:"per_sample,omitempty"`
	// Solver marks a solver internal (tolerances, sweep counts, ridges): the
	// UI folds it under "Solver details".
	Solver bool `json:"solver,omitempty"`
	// Integer marks a count (shown without decimals).
	Integer bool `json:"integer,omitempty"`
}

// Matches reports whether a reported key is this output.
func (o Output) Matches(key string) bool {
	if p, ok := strings.CutSuffix(o.Key, "*"); ok {
		return strings.HasPrefix(key, p)
	}
	return o.Key == key
}

// scalar, count, solver and perSample are shorthands for the catalogue.
func scalar(key, label, help string) Output { return Output{Key: key, Label: label, Help: help} }

func count(key, label, help string) Output {
	return Output{Key: key, Label: label, Help: help, Integer: true}
}

func solver(key, label, help string) Output {
	return Output{Key: key, Label: label, Help: help, Solver: true}
}

func solverCount(key, label, help string) Output {
	return Output{Key: key, Label: label, Help: help, Solver: true, Integer: true}
}

func perSample(key, label, help string) Output {
	return Output{Key: key, Label: label, Help: help, PerSample: true}
}
