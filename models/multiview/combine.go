package multiview

// Combine is a two-view model's decision under rule (RuleA, RuleB or
// RuleBoth) from its views' decision values fa and fb: the mpwtsvm
// experiment scores every rule of one fit with it.
func Combine(rule string, fa, fb []float64) []float64 { return combine(rule, fa, fb) }
