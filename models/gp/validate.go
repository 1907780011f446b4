package gp

import (
	"encoding/json"
	"fmt"
	"math"

	"lupilab/models/model"
)

// Loading saved GP models (see models/model/validate.go): the JSON holds
// exactly the model's fields; hyper-parameters are finite and within the
// range a fit can produce; one length-scale, or one per input feature;
// one site precision and one weight per training row (site_tau, or
// sqrt_tau ≥ 0 in older files), all finite.

// maxLogHyper bounds |log θ| and |log ℓ| in a saved model: exp(±700) is
// the edge of float64, so larger logs cannot come from a fit.
const maxLogHyper = 700

func loadGPC(raw json.RawMessage) (model.BinaryModel, error) {
	var g GPC
	if err := model.DecodeStrict(raw, &g); err != nil {
		return nil, fmt.Errorf("gpc: %w", err)
	}
	if err := g.validate("gpc", g.Kernel); err != nil {
		return nil, err
	}
	if err := g.prepare(); err != nil {
		return nil, fmt.Errorf("gpc: saved model: %w", err)
	}
	return &g, nil
}

func loadGPCPlus(raw json.RawMessage) (model.BinaryModel, error) {
	var g GPCPlus
	if err := model.DecodeStrict(raw, &g); err != nil {
		return nil, fmt.Errorf("gpcplus: %w", err)
	}
	f := GPC{Kernel: g.KernelF, X: g.X, SqrtTau: g.SqrtTau, SiteTau: g.SiteTau, Alpha: g.Alpha}
	if err := f.validate("gpcplus", g.KernelF); err != nil {
		return nil, err
	}
	if err := checkSE("gpcplus: the g kernel", g.KernelG, 0); err != nil {
		return nil, err
	}
	if err := model.CheckFinite("gpcplus: the saved g mean", g.GMean); err != nil {
		return nil, err
	}
	if g.Nodes != 0 && (g.Nodes < 4 || g.Nodes > 128) {
		return nil, fmt.Errorf("gpcplus: saved model: %d quadrature nodes, must be in [4, 128]", g.Nodes)
	}
	if err := g.prepare(); err != nil {
		return nil, fmt.Errorf("gpcplus: saved model: %w", err)
	}
	return &g, nil
}

// validate checks the saved f block: inputs, sites and weights.
func (g *GPC) validate(id string, k seKernel) error {
	if err := g.X.CheckShape(id+": the saved training inputs", -1, -1); err != nil {
		return err
	}
	n, d := g.X.Rows, g.X.Cols
	if err := checkSE(id+": the kernel", k, d); err != nil {
		return err
	}
	// the kernel matrix, B = I + S̃^½KS̃^½ and its factor, and (negative
	// sites) two more n×n matrices
	if err := model.CheckLoadBytes(fmt.Sprintf("the %s posterior of %d training rows", id, n), 5*8*float64(n)*float64(n)); err != nil {
		return fmt.Errorf("%s: %w", id, err)
	}
	sites := len(g.SiteTau)
	if g.SiteTau == nil {
		sites = len(g.SqrtTau)
	} else if g.SqrtTau != nil {
		return fmt.Errorf("%s: saved model holds both site_tau and sqrt_tau", id)
	}
	if sites != n || len(g.Alpha) != n {
		return fmt.Errorf("%s: saved model has %d training rows but %d site precisions and %d weights", id, n, sites, len(g.Alpha))
	}
	for _, v := range [][]float64{g.SqrtTau, g.SiteTau, g.Alpha} {
		if err := model.CheckFiniteSlice(id+": a saved site parameter", v); err != nil {
			return err
		}
	}
	for _, s := range g.SqrtTau {
		if s < 0 {
			return fmt.Errorf("%s: saved model has a negative √τ̃ (%v)", id, s)
		}
	}
	return nil
}

// checkSE checks a squared-exponential kernel: finite logs of a sensible
// size, one length-scale or d of them (d = 0: any number).
func checkSE(what string, k seKernel, d int) error {
	if len(k.LogLen) == 0 || (d > 0 && len(k.LogLen) != 1 && len(k.LogLen) != d) {
		return fmt.Errorf("%s has %d length-scales for %d features (want 1 or %d)", what, len(k.LogLen), d, d)
	}
	for _, v := range append([]float64{k.LogAmp}, k.LogLen...) {
		if math.IsNaN(v) || math.Abs(v) > maxLogHyper {
			return fmt.Errorf("%s has a log hyper-parameter %v outside [−%d, %d]", what, v, maxLogHyper, maxLogHyper)
		}
	}
	return nil
}

// InputDims implements model.Shaped.
func (g *GPC) InputDims() (x, z int) {
	if g.X == nil {
		return 0, 0
	}
	return g.X.Cols, 0
}

// InputDims implements model.Shaped.
func (g *GPCPlus) InputDims() (x, z int) {
	if g.X == nil {
		return 0, 0
	}
	return g.X.Cols, 0
}
