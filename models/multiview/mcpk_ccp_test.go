package multiview

import (
	"math"
	"testing"

	"lupilab/models/internal/fixture"
	"lupilab/models/model"
)

// The convex–concave procedure must settle, not cycle: at a small coupling
// (D = 1e-5, where MCPK is nearly convex) a step solved at the loose early
// tolerance after an exact one used to jump back up (41.4556 against
// 41.4099 on the reference problem), so the steps cycled with period 3, the
// stopping test never held and the result depended on ccp_iter modulo 3.
// Now the step tolerance never loosens again: the fit converges, and 30
// and 200 allowed steps give the same model.
func TestMCPKConvexConcaveSettles(t *testing.T) {
	var ref struct {
		refMVData
		Cases []struct{ Params map[string]float64 }
	}
	fixture.ReadJSON(t, "testdata/ref_mcpk.json", &ref)
	train, _ := ref.datasets()
	for _, c := range ref.Cases {
		if c.Params["D"] > 1e-3 {
			continue
		}
		var obj [2]float64
		for k, steps := range []string{"30", "200"} {
			f := fit(t, "mcpk", train, refValues(c.Params, model.Values{"ccp_iter": steps}))
			rep := f.Report()
			if !rep.Converged {
				t.Errorf("%v, ccp_iter %s: not converged: %v", c.Params, steps, rep.Warnings)
			}
			obj[k] = rep.Objective
		}
		if math.Abs(obj[0]-obj[1]) > 1e-9*math.Abs(obj[0]) {
			t.Errorf("%v: objective %.12g with 30 steps allowed, %.12g with 200", c.Params, obj[0], obj[1])
		}
	}
}
