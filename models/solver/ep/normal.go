// Package ep holds the numerical building blocks of expectation propagation
// for Gaussian-process classifiers (paper 002; Rasmussen & Williams 2006,
// ch. 3): numerically stable log Φ and N/Φ, the tilted moments of the probit
// site (R&W eqs 3.58, 3.82) and of the heteroscedastic probit site of GPC+
// (paper 002 eq 12, by Gauss–Hermite quadrature in the log domain, or a
// trapezoid rule centred on the tilted mode where that is inaccurate), and a
// sequential EP engine over one or more independent latent GP blocks with
// rank-one updates, a full recomputation after every sweep, damping, skipping
// of updates with a negative site precision (or, for blocks that allow
// negative precisions, of updates that would make the posterior improper),
// the EP evidence (R&W eq 3.65)
// and its hyper-parameter gradient (R&W eq 3.74).
//
// The models in lupilab/models/gp build kernels and call this package.
package ep

import "math"

const (
	lnSqrt2Pi = 0.91893853320467274178032973640561763986139747363778 // ½ log 2π
	invSqrt2  = 0.70710678118654752440084436210484903928483593768847
	// cfThreshold: below it log Φ and N/Φ use the Laplace continued fraction
	// of the Mills ratio instead of erfc (which loses relative accuracy and
	// finally underflows for z ≲ −37).
	cfThreshold = -5.0
)

// Phi is the standard normal CDF Φ(z).
func Phi(z float64) float64 { return 0.5 * math.Erfc(-z*invSqrt2) }

// LogN is log N(z | 0, 1).
func LogN(z float64) float64 { return -0.5*z*z - lnSqrt2Pi }

// millsRatio returns R(x) = Φ(−x)/N(x) for x ≥ 4 by the Laplace continued
// fraction R(x) = 1/(x + 1/(x + 2/(x + 3/(x + …)))), evaluated with the
// modified Lentz algorithm.
func millsRatio(x float64) float64 {
	const tiny = 1e-300
	f := x
	c, d := x, 0.0
	for k := 1; k < 500; k++ {
		a := float64(k)
		d = x + a*d
		if d == 0 {
			d = tiny
		}
		c = x + a/c
		if c == 0 {
			c = tiny
		}
		d = 1 / d
		delta := c * d
		f *= delta
		if math.Abs(delta-1) < 1e-16 {
			break
		}
	}
	return 1 / f
}

// LogPhi returns log Φ(z) accurately for every finite z: log1p(−Φ(−z)) for
// z > 0, log(½ erfc(−z/√2)) for cfThreshold ≤ z ≤ 0 and, for very negative
// z, −z²/2 − ½ log 2π + log R(−z) with R the Mills ratio (continued
// fraction), which neither underflows nor loses relative accuracy.
func LogPhi(z float64) float64 {
	switch {
	case math.IsNaN(z):
		return math.NaN()
	case z > 0:
		return math.Log1p(-0.5 * math.Erfc(z*invSqrt2))
	case z >= cfThreshold:
		return math.Log(0.5 * math.Erfc(-z*invSqrt2))
	case math.IsInf(z, -1):
		return math.Inf(-1)
	default:
		return LogN(z) + math.Log(millsRatio(-z))
	}
}

// NPhiRatio returns N(z)/Φ(z) (the inverse Mills ratio, the derivative of
// log Φ) accurately for every finite z; for z → −∞ it behaves like −z.
func NPhiRatio(z float64) float64 {
	switch {
	case math.IsNaN(z):
		return math.NaN()
	case z >= cfThreshold:
		return math.Exp(LogN(z) - math.Log(0.5*math.Erfc(-z*invSqrt2)))
	case math.IsInf(z, -1):
		return math.Inf(1)
	default:
		return 1 / millsRatio(-z)
	}
}

// logPhiRatio returns LogPhi(z) and NPhiRatio(z) together, sharing the one
// erfc (or continued fraction) both need: the quadrature of the GPC+ site
// evaluates them at every node.
func logPhiRatio(z float64) (logPhi, ratio float64) {
	switch {
	case math.IsNaN(z):
		return math.NaN(), math.NaN()
	case z > 0:
		logPhi = math.Log1p(-0.5 * math.Erfc(z*invSqrt2))
	case z >= cfThreshold:
		logPhi = math.Log(0.5 * math.Erfc(-z*invSqrt2))
	case math.IsInf(z, -1):
		return math.Inf(-1), math.Inf(1)
	default:
		r := millsRatio(-z)
		return LogN(z) + math.Log(r), 1 / r
	}
	return logPhi, math.Exp(LogN(z) - logPhi)
}
