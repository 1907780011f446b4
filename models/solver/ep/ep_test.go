package ep

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"gonum.org/v1/gonum/integrate/quad"
)

func TestNormalAgainstMpmath(t *testing.T) {
	raw, err := os.ReadFile("testdata/normal.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct{ Z, Logphi, Ratio float64 }
	if err := json.Unmarshal(raw, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 30 {
		t.Fatalf("only %d fixture rows", len(rows))
	}
	for _, r := range rows {
		lp, ra := LogPhi(r.Z), NPhiRatio(r.Z)
		if e := relErr(lp, r.Logphi); e > 1e-13 && math.Abs(lp-r.Logphi) > 1e-300 {
			t.Errorf("LogPhi(%g) = %.17g, mpmath %.17g (rel %.2g)", r.Z, lp, r.Logphi, e)
		}
		if e := relErr(ra, r.Ratio); e > 1e-13 {
			t.Errorf("NPhiRatio(%g) = %.17g, mpmath %.17g (rel %.2g)", r.Z, ra, r.Ratio, e)
		}
		// the fused version used by the tilted moments
		flp, fra := logPhiRatio(r.Z)
		if e := relErr(flp, r.Logphi); e > 1e-13 && math.Abs(flp-r.Logphi) > 1e-300 {
			t.Errorf("logPhiRatio(%g) log Φ = %.17g, mpmath %.17g (rel %.2g)", r.Z, flp, r.Logphi, e)
		}
		if e := relErr(fra, r.Ratio); e > 1e-13 {
			t.Errorf("logPhiRatio(%g) ratio = %.17g, mpmath %.17g (rel %.2g)", r.Z, fra, r.Ratio, e)
		}
	}
	if lp, ra := logPhiRatio(math.NaN()); !math.IsNaN(lp) || !math.IsNaN(ra) {
		t.Error("logPhiRatio at NaN")
	}
	if lp, ra := logPhiRatio(math.Inf(-1)); !math.IsInf(lp, -1) || !math.IsInf(ra, 1) {
		t.Error("logPhiRatio at −Inf")
	}
	if !math.IsNaN(LogPhi(math.NaN())) || !math.IsInf(LogPhi(math.Inf(-1)), -1) || LogPhi(math.Inf(1)) != 0 {
		t.Error("LogPhi at NaN / ±Inf")
	}
}

func relErr(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Max(math.Abs(b), 1e-300)
}

// integrate ∫_{lo}^{hi} h with a composite 20-point Gauss–Legendre rule on
// `panels` panels (accurate to ~1e-14 for the smooth integrands here).
func integrate(h func(float64) float64, lo, hi float64, panels int) float64 {
	w := (hi - lo) / float64(panels)
	var s float64
	for p := 0; p < panels; p++ {
		s += quad.Fixed(h, lo+float64(p)*w, lo+float64(p+1)*w, 20, quad.Legendre{}, 0)
	}
	return s
}

func normPDF(x, m, v float64) float64 {
	return math.Exp(-0.5*(x-m)*(x-m)/v) / math.Sqrt(2*math.Pi*v)
}

// The probit site's log Z and moments (from dm, d2) equal the exact tilted
// moments computed by numerical integration over f.
func TestProbitTiltedMoments(t *testing.T) {
	cases := [][4]float64{{1, 0.3, 2, 1}, {-1, 2.5, 0.5, 1}, {1, -4, 1.5, 1}, {-1, 6, 0.2, 0.3}, {1, -1, 9, 4}}
	for _, c := range cases {
		y, m, v, s := c[0], c[1], c[2], c[3]
		lz, dm, d2 := ProbitTilted(y, m, v, s)
		sd := math.Sqrt(v)
		lo, hi := m-14*sd, m+14*sd
		z0 := integrate(func(f float64) float64 { return Phi(y*f/math.Sqrt(s)) * normPDF(f, m, v) }, lo, hi, 200)
		z1 := integrate(func(f float64) float64 { return f * Phi(y*f/math.Sqrt(s)) * normPDF(f, m, v) }, lo, hi, 200)
		z2 := integrate(func(f float64) float64 { return f * f * Phi(y*f/math.Sqrt(s)) * normPDF(f, m, v) }, lo, hi, 200)
		mean := z1 / z0
		vr := z2/z0 - mean*mean
		if e := math.Abs(lz - math.Log(z0)); e > 1e-10 {
			t.Errorf("%v: log Z %g vs %g", c, lz, math.Log(z0))
		}
		if e := math.Abs(m + v*dm - mean); e > 1e-9 {
			t.Errorf("%v: mean %g vs %g", c, m+v*dm, mean)
		}
		if e := math.Abs(v + v*v*d2 - vr); e > 1e-8 {
			t.Errorf("%v: variance %g vs %g", c, v+v*v*d2, vr)
		}
	}
}

// exactHetero integrates the GPC+ site over f and g numerically (a 2-D
// composite Gauss–Legendre product rule, f first analytically-free):
// returns Z, E[f], Var[f], E[g], Var[g] under the tilted distribution.
func exactHetero(y, mf, vf, mg, vg float64) (z, ef, vf2, eg, vg2 float64) {
	sf, sg := math.Sqrt(vf), math.Sqrt(vg)
	var m [3][3]float64 // moments E[f^a g^b] unnormalised, a,b ≤ 2 (a+b ≤ 2 used)
	for a := 0; a <= 2; a++ {
		for b := 0; a+b <= 2; b++ {
			a, b := a, b
			m[a][b] = integrate(func(g float64) float64 {
				s := math.Exp(-g / 2)
				inner := integrate(func(f float64) float64 {
					return math.Pow(f, float64(a)) * Phi(y*f*s) * normPDF(f, mf, vf)
				}, mf-12*sf, mf+12*sf, 30)
				return math.Pow(g, float64(b)) * inner * normPDF(g, mg, vg)
			}, mg-12*sg, mg+12*sg, 30)
		}
	}
	z = m[0][0]
	ef = m[1][0] / z
	vf2 = m[2][0]/z - ef*ef
	eg = m[0][1] / z
	vg2 = m[0][2]/z - eg*eg
	return
}

func TestHeteroTiltedMoments(t *testing.T) {
	gh := NewGaussHermite(32)
	cases := [][5]float64{{1, 0.5, 1, 0, 1}, {-1, 1.5, 0.4, -1, 0.5}, {1, -2, 2, 0.5, 2}, {-1, -0.3, 0.1, 1.5, 0.3}, {1, 3, 1, -2, 1.5}}
	for _, c := range cases {
		y, mf, vf, mg, vg := c[0], c[1], c[2], c[3], c[4]
		h := HeteroTilted(gh, y, mf, vf, mg, vg)
		z, ef, vff, eg, vgg := exactHetero(y, mf, vf, mg, vg)
		check := func(name string, got, want, tol float64) {
			if math.Abs(got-want) > tol {
				t.Errorf("%v: %s = %.10g, numerical integration %.10g", c, name, got, want)
			}
		}
		check("log Z", h.LogZ, math.Log(z), 1e-8)
		check("E[f]", mf+vf*h.DMf, ef, 1e-7)
		check("Var[f]", vf+vf*vf*h.D2f, vff, 1e-7)
		check("E[g]", mg+vg*h.DMg, eg, 1e-6)
		check("Var[g]", vg+vg*vg*h.D2g, vgg, 1e-6)
		check("E[g] (weights)", h.MeanG, eg, 1e-6)
		check("Var[g] (weights)", h.VarG, vgg, 1e-6)
	}
}

// log Zₙ by quadrature against Monte Carlo over (f, g).
func TestHeteroMonteCarlo(t *testing.T) {
	gh := NewGaussHermite(32)
	rng := rand.New(rand.NewPCG(1, 2))
	cases := [][5]float64{{1, 0.5, 1, 0, 1}, {-1, 1.0, 0.5, -0.5, 2}}
	const N = 400000
	for _, c := range cases {
		y, mf, vf, mg, vg := c[0], c[1], c[2], c[3], c[4]
		var s, s2 float64
		for k := 0; k < N; k++ {
			f := mf + math.Sqrt(vf)*rng.NormFloat64()
			g := mg + math.Sqrt(vg)*rng.NormFloat64()
			p := Phi(y * f * math.Exp(-g/2))
			s += p
			s2 += p * p
		}
		mean := s / N
		se := math.Sqrt((s2/N - mean*mean) / N)
		got := math.Exp(HeteroTilted(gh, y, mf, vf, mg, vg).LogZ)
		if math.Abs(got-mean) > 4*se {
			t.Errorf("%v: Z = %g, Monte Carlo %g ± %g", c, got, mean, se)
		}
	}
}

// Every derivative HeteroTilted returns equals central finite differences of
// its log Z, on both rules (the cavity-centred one for the first two cases,
// the mode-centred one for the others: tails, vg = 2 and 10).
func TestHeteroDerivatives(t *testing.T) {
	gh := NewGaussHermite(32)
	cases := [][5]float64{{1, 0.5, 1, 0, 1}, {-1, 1.5, 0.4, -1, 0.5}, {1, -2, 2, 0.5, 2}, {1, -6, 0.3, -1, 0.2},
		{1, -8, 0.5, 0, 1}, {1, -30, 0.1, -2, 0.5}, {1, 0.5, 1, 0, 10}}
	for _, c := range cases {
		y, mf, vf, mg, vg := c[0], c[1], c[2], c[3], c[4]
		h := HeteroTilted(gh, y, mf, vf, mg, vg)
		lz := func(a, b, cc, d float64) float64 { return HeteroTilted(gh, y, a, b, cc, d).LogZ }
		const e = 1e-5
		fd := []float64{
			(lz(mf+e, vf, mg, vg) - lz(mf-e, vf, mg, vg)) / (2 * e),
			(lz(mf, vf+e, mg, vg) - lz(mf, vf-e, mg, vg)) / (2 * e),
			(lz(mf+e, vf, mg, vg) - 2*h.LogZ + lz(mf-e, vf, mg, vg)) / (e * e),
			(lz(mf, vf, mg+e, vg) - lz(mf, vf, mg-e, vg)) / (2 * e),
			(lz(mf, vf, mg, vg+e) - lz(mf, vf, mg, vg-e)) / (2 * e),
			(lz(mf, vf, mg+e, vg) - 2*h.LogZ + lz(mf, vf, mg-e, vg)) / (e * e),
		}
		got := []float64{h.DMf, h.DVf, h.D2f, h.DMg, h.DVg, h.D2g}
		names := []string{"dmf", "dvf", "d2f", "dmg", "dvg", "d2g"}
		for k := range got {
			tol := 1e-7 * (1 + math.Abs(fd[k]))
			if k == 2 || k == 5 {
				tol = 2e-4 * (1 + math.Abs(fd[k]))
			}
			if math.Abs(got[k]-fd[k]) > tol {
				t.Errorf("%v: %s = %.10g, finite difference %.10g", c, names[k], got[k], fd[k])
			}
		}
	}
}

// With vg = 0 the GPC+ site is the probit site with noise variance e^{mg}.
func TestHeteroPinned(t *testing.T) {
	gh := NewGaussHermite(32)
	for _, c := range [][4]float64{{1, 0.7, 1.3, 0.4}, {-1, 2, 0.2, -1.2}} {
		y, mf, vf, mg := c[0], c[1], c[2], c[3]
		h := HeteroTilted(gh, y, mf, vf, mg, 0)
		lz, dm, d2 := ProbitTilted(y, mf, vf, math.Exp(mg))
		if math.Abs(h.LogZ-lz) > 1e-14 || math.Abs(h.DMf-dm) > 1e-13 || math.Abs(h.D2f-d2) > 1e-12 {
			t.Errorf("%v: (%g %g %g) vs probit (%g %g %g)", c, h.LogZ, h.DMf, h.D2f, lz, dm, d2)
		}
	}
}

// NoiseMixture (GPC+ prediction) is the exponentiated log Z of HeteroTilted.
func TestNoiseMixtureMatchesHeteroTilted(t *testing.T) {
	gh := NewGaussHermite(32)
	for _, c := range [][4]float64{{0.3, 0.5, -1, 0.7}, {-4, 0.1, 2, 3}, {12, 2, -5, 0.01}, {-30, 1, 0, 1},
		{2, 0.3, 0, 10}, {-1, 0.01, 1, 25}, {0.5, 1e-4, -3, 50}, {-8, 0.2, 4, 5}} {
		nm := NewNoiseMixture(gh, c[2], c[3])
		got := nm.Prob(c[0], c[1])
		if heteroResolved(32, c[3]) {
			// the same Gauss–Hermite sum as the cavity-centred rule …
			if want := math.Exp(heteroCavity(gh, 1, c[0], c[1], c[2], c[3]).LogZ); math.Abs(got-want) > 1e-12*(1+want) {
				t.Errorf("%v: %g vs the cavity-centred rule %g", c, got, want)
			}
		} else if len(nm.w) < 60*int(math.Sqrt(c[3])) {
			t.Errorf("%v: %d trapezoid nodes for vg = %g", c, len(nm.w), c[3])
		}
		// … and, for every vg, HeteroTilted's value (accurate to 1e-13
		// relative where it switches to its mode-centred rule) to 1e-12
		// absolute: a probability
		if want := math.Exp(HeteroTilted(gh, 1, c[0], c[1], c[2], c[3]).LogZ); math.Abs(got-want) > 1e-12 {
			t.Errorf("%v: %.15g vs HeteroTilted %.15g (difference %.2g)", c, got, want, got-want)
		}
	}
}

// Gauss–Kronrod G7/K15 nodes (the K15 abscissae in [0, 1), descending;
// the odd-indexed ones are G7's) and weights (QUADPACK qk15).
var (
	gkX  = [8]float64{0.991455371120812639206854697526329, 0.949107912342758524526189684047851, 0.864864423359769072789712788640926, 0.741531185599394439863864773280788, 0.586087235467691130294144845693013, 0.405845151377397166906606412076961, 0.207784955007898467600689403773245, 0}
	gkWK = [8]float64{0.022935322010529224963732008058970, 0.063092092629978553290700663189204, 0.104790010322250183839876322541518, 0.140653259715525918745189590510238, 0.169004726639267902826583426598550, 0.190350578064785409913256402421014, 0.204432940075298892414161999234649, 0.209482141084727828012999174891714}
	gkWG = [4]float64{0.129484966168869693270611432679082, 0.279705391489276667901467771423780, 0.381830050505118944950369775488975, 0.417959183673469387755102040816327}
)

// adaptGK adds ∫_a^b h (h fills a vector of integrands) to out by recursive
// adaptive Gauss–Kronrod: an interval is accepted when, for every component
// j, |K15 − G7| ≤ tol·(b − a)·scale[j] or ≤ 1e-13 × the K15 integral of
// |h_j| over the interval (the rounding floor of integrands with large
// |log Φ|), and bisected otherwise. It returns the number of intervals
// accepted unconverged: at depth 50, or once *budget (decremented per
// interval) is spent.
func adaptGK(h func(x float64, dst []float64), a, b, tol float64, scale, out []float64, depth int, budget *int) int {
	m := len(out)
	k, g, v, ka := make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
	c, r := (a+b)/2, (b-a)/2
	for i, x := range gkX {
		for _, s := range []float64{-1, 1} {
			if x == 0 && s > 0 {
				continue
			}
			h(c+s*r*x, v)
			for j, f := range v {
				k[j] += gkWK[i] * f * r
				ka[j] += gkWK[i] * math.Abs(f) * r
				if i%2 == 1 {
					g[j] += gkWG[i/2] * f * r
				}
			}
		}
	}
	ok := true
	for j := range k {
		e := math.Abs(k[j] - g[j])
		ok = ok && (e <= tol*(b-a)*scale[j] || e <= 1e-13*ka[j])
	}
	*budget--
	if ok || depth == 50 || *budget <= 0 {
		for j := range k {
			out[j] += k[j]
		}
		if !ok {
			return 1
		}
		return 0
	}
	return adaptGK(h, a, c, tol, scale, out, depth+1, budget) + adaptGK(h, c, b, tol, scale, out, depth+1, budget)
}

// heteroAdaptive is the reference for HeteroTilted: f integrated
// analytically (Φ(y mf/√(vf + e^g)), eq 12) and g by adaptive Gauss–Kronrod
// in log-safe form: the integrand e^{ℓ(g) − ℓ*}, ℓ = log Φ(z(g)) +
// log N(g | mg, vg) and ℓ* its maximum on a grid of mg ± 60√vg (further up
// when Φ(z(mg)) is small enough to pull g beyond), over the range where
// ℓ > ℓ* − 50 (the tilted mass may lie far in the cavity's tail), to 1e-13
// of each integrand's peak. With the tilted weights
// ω(g) ∝ e^ℓ: log Z = ℓ* + log ∫e^{ℓ−ℓ*}, ∂/∂mf = E_ω[r y/√a],
// ∂/∂vf = −½ E_ω[r z/a] (a = vf + e^g, r = N/Φ(z)), ∂²/∂mf² = 2∂/∂vf −
// (∂/∂mf)², and from the tilted mean and (central) variance of g,
// ∂/∂mg = (E_ω g − mg)/vg, ∂²/∂mg² = Var_ω g/vg² − 1/vg, ∂/∂vg =
// ½(∂²/∂mg² + (∂/∂mg)²). ok is false if an interval did not converge.
func heteroAdaptive(y, mf, vf, mg, vg float64) (ref HeteroMoments, ok bool) {
	sd := math.Sqrt(vg)
	ell := func(g float64) float64 {
		return LogPhi(y*mf/math.Sqrt(vf+math.Exp(g))) - 0.5*(g-mg)*(g-mg)/vg - 0.5*math.Log(2*math.Pi*vg)
	}
	// Φ(z(g)) ≤ ½ bounds the tilt of g above mg by ½/Φ(z(mg)): no mass
	// beyond mg + √(2vg (log(½/Φ(z(mg))) + 60)).
	lo, hi := mg-60*sd, mg+math.Max(60, math.Sqrt(2*(-LogPhi(y*mf/math.Sqrt(vf+math.Exp(mg)))+60)))*sd
	hi = math.Min(hi, maxG)
	const grid = 20000
	step := (hi - lo) / grid
	best := math.Inf(-1)
	for i := 0; i <= grid; i++ {
		best = math.Max(best, ell(lo+float64(i)*step))
	}
	a, b := hi, lo
	for i := 0; i <= grid; i++ {
		if x := lo + float64(i)*step; ell(x) > best-50 {
			a, b = math.Min(a, x-step), math.Max(b, x+step)
		}
	}
	a, b = math.Max(a, lo), math.Min(b, hi)
	var eg float64 // tilted mean of g, for the central second moment
	h := func(g float64, dst []float64) {
		av := vf + math.Exp(g)
		z := y * mf / math.Sqrt(av)
		w, r := math.Exp(ell(g)-best), NPhiRatio(z)
		dst[0], dst[1], dst[2], dst[3], dst[4] = w, w*r*y/math.Sqrt(av), w*r*z/av, w*g, w*(g-eg)*(g-eg)
	}
	integrate := func() ([]float64, int) {
		scale, v, s := make([]float64, 5), make([]float64, 5), make([]float64, 5)
		for i := 0; i <= grid; i++ {
			h(a+(b-a)*float64(i)/grid, v)
			for j := range v {
				scale[j] = math.Max(scale[j], math.Abs(v[j]))
			}
		}
		bad, budget := 0, 200000
		const panels = 16
		for p := 0; p < panels; p++ {
			bad += adaptGK(h, a+(b-a)*float64(p)/panels, a+(b-a)*float64(p+1)/panels, 1e-13/(b-a), scale, s, 0, &budget)
		}
		return s, bad
	}
	s, bad1 := integrate()
	eg = s[3] / s[0]
	s2, bad2 := integrate()
	ref.LogZ = best + math.Log(s[0])
	ref.DMf, ref.DVf = s[1]/s[0], -0.5*s[2]/s[0]
	ref.D2f = 2*ref.DVf - ref.DMf*ref.DMf
	ref.MeanG, ref.VarG = eg, s2[4]/s2[0]
	ref.DMg = (eg - mg) / vg
	ref.D2g = ref.VarG/(vg*vg) - 1/vg
	ref.DVg = 0.5 * (ref.D2g + ref.DMg*ref.DMg)
	return ref, bad1+bad2 == 0
}

// heteroTol are the tolerances on HeteroTilted against heteroAdaptive,
// relative to 1 + |reference|, for the rule it used: the cavity-centred
// rule where it is kept is limited by its resolution (worst cavities at
// vg ≈ 1: log Zₙ 2e-9, derivatives 2e-7 in TestHeteroTiltedRandomCavities;
// typical ones 1e-11 and 1e-8), the mode-centred trapezoid rule reaches
// 1e-13 on log Zₙ and 5e-10 on the derivatives, where the reference itself
// loses digits (∂²/∂mg² = Var g/vg² − 1/vg cancels at small vg).
func heteroTol(cavity bool) (logZ, deriv float64) {
	if cavity {
		return 4e-9, 1e-6
	}
	return 1e-12, 1e-8
}

// heteroCompare checks h against the reference with the tolerances of the
// rule used (cavity) and returns the largest errors (log Z, derivatives and
// tilted moments) relative to 1 + |reference|.
func heteroCompare(t *testing.T, label string, h, ref HeteroMoments, cavity bool) (elz, ed float64) {
	t.Helper()
	tz, td := heteroTol(cavity)
	elz = math.Abs(h.LogZ-ref.LogZ) / (1 + math.Abs(ref.LogZ))
	if !(elz <= tz) {
		t.Errorf("%s: log Z = %.15g, adaptive %.15g (cavity rule %v)", label, h.LogZ, ref.LogZ, cavity)
	}
	names := []string{"dmf", "dvf", "d2f", "dmg", "dvg", "d2g", "E[g]", "Var[g]"}
	got := []float64{h.DMf, h.DVf, h.D2f, h.DMg, h.DVg, h.D2g, h.MeanG, h.VarG}
	want := []float64{ref.DMf, ref.DVf, ref.D2f, ref.DMg, ref.DVg, ref.D2g, ref.MeanG, ref.VarG}
	for k := range got {
		e := math.Abs(got[k]-want[k]) / (1 + math.Abs(want[k]))
		ed = math.Max(ed, e)
		if !(e <= td) {
			t.Errorf("%s: %s = %.12g, adaptive %.12g (cavity rule %v)", label, names[k], got[k], want[k], cavity)
		}
	}
	return elz, ed
}

// HeteroTilted's log Zₙ, its six derivatives and the tilted mean and
// variance of g against the adaptive reference (heteroAdaptive), to the
// tolerances of the rule HeteroTilted chose (heteroTol), with 8, 32 and 128
// nodes, on
//   - typical cavities and extreme ones the cavity-centred rule handles
//     (with 32 and 128 nodes; with 8, most use the mode-centred rule):
//     very small vf (down to 1e-10), y·mf up to 60;
//   - cavities beyond it (the mode-centred rule): misclassified samples
//     with the tilted g from 1.1 to 10 cavity sd out, down to y·mf = −200
//     with vf = 1e-4 and to log Z = −799 (Z underflows: both rules sum in
//     the log domain), vg from 2 to 50 (Φ's transition narrower than the
//     node spacing), a tilted mass far beyond the cavity's nodes behind a
//     near-flat Φ (e^mg ≪ vf), and bimodal tilted densities (y·mf < 0 with
//     e^mg ≪ vf: a mode near mg and one where e^g ≳ vf; in the first case
//     the one near mg holds 0.5% of the mass behind a valley where the
//     density is e^{−130} of the peaks).
//
// The reference itself must reproduce the closed form at y·mf = 0
// ruleTally counts the cases HeteroTilted sent to each rule (index 1: the
// cavity-centred one) and the worst log Zₙ and derivative errors per rule.
type ruleTally struct {
	worst [2][2]float64
	used  [2]int
}

func (r *ruleTally) add(cav bool, errLogZ, errDeriv float64) {
	k := 0
	if cav {
		k = 1
	}
	r.used[k]++
	r.worst[k][0], r.worst[k][1] = math.Max(r.worst[k][0], errLogZ), math.Max(r.worst[k][1], errDeriv)
}

// (Z = ½, tilted g = cavity g, ∂/∂vf = 0) to 1e-13.
func TestHeteroTiltedAdaptiveReference(t *testing.T) {
	ref, ok := heteroAdaptive(1, 0, 1, 0.3, 2)
	if !ok || math.Abs(ref.LogZ+math.Ln2) > 1e-13 || math.Abs(ref.MeanG-0.3) > 1e-13 || math.Abs(ref.VarG-2) > 1e-13 || ref.DVf != 0 {
		t.Fatalf("reference at y·mf = 0: %+v (converged %v)", ref, ok)
	}
	cases := [][5]float64{ // y, mf, vf, mg, vg
		// typical and extreme cavities within the cavity-centred rule's range (32 and 128 nodes)
		{1, 0.5, 1, 0, 1}, {-1, 1.5, 0.4, -1, 0.5}, {-1, -0.3, 0.1, 1.5, 0.3}, {1, 3, 1, -2, 1}, {1, 0.5, 1e-8, 0, 1},
		{-1, 0.01, 1e-10, -4, 1}, {1, 1, 0.3, -1, 0.7}, {-1, 0.8, 0.6, 0.5, 0.9}, {1, 60, 0.2, 0, 1}, {1, 2, 1e-10, -3, 1},
		// tails (the last: log Z = −799)
		{1, -3, 1e-6, 0, 0.1}, {1, -4, 0.5, -1, 0.1}, {-1, 2.5, 0.3, -1, 0.2}, {1, -4, 0.5, -1, 1}, {-1, 2.5, 0.3, -1, 0.8},
		{1, -8, 0.5, 0, 1}, {1, -30, 0.1, -2, 0.5}, {-1, 50, 1, 0, 1}, {1, -200, 1e-4, 0, 0.2}, {1, -200, 1e-4, -3, 1},
		{1, -40, 1, -5, 0.01},
		// large vg
		{1, -2, 2, 0.5, 2}, {1, 0.5, 1, 0, 3}, {1, 0.5, 1, 0, 10}, {1, -2, 0.5, 1, 25}, {1, 0.5, 1, 0, 50}, {1, 3, 0.1, -3, 50},
		{1, -5, 1, 0, 50}, {-1, -1, 0.01, -2, 50},
		// far mass behind a flat Φ; bimodal
		{1, -47.27, 7.51, -5.7, 0.329}, {1, -20, 1, -40, 5}, {1, -30, 1, -60, 5},
	}
	var tally ruleTally
	for _, c := range cases {
		ref, ok := heteroAdaptive(c[0], c[1], c[2], c[3], c[4])
		if !ok {
			t.Fatalf("%v: the adaptive reference did not converge", c)
		}
		for _, nodes := range []int{8, 32, 128} {
			gh := NewGaussHermite(nodes)
			h := HeteroTilted(gh, c[0], c[1], c[2], c[3], c[4])
			cav := h == heteroCavity(gh, c[0], c[1], c[2], c[3], c[4])
			el, ed := heteroCompare(t, fmt.Sprintf("%d nodes, %v", nodes, c), h, ref, cav)
			tally.add(cav, el, ed)
		}
	}
	t.Logf("cavity-centred rule: %d cases, max errors log Z %.1e, derivatives %.1e; mode-centred: %d cases, %.1e, %.1e",
		tally.used[1], tally.worst[1][0], tally.worst[1][1], tally.used[0], tally.worst[0][0], tally.worst[0][1])
	if tally.used[0] < 30 || tally.used[1] < 15 {
		t.Errorf("rules used %v times: the grid should exercise both", tally.used)
	}
}

// HeteroTilted on random cavities (y·mf up to ±60, vf from 1e-8 to 10,
// mg in [−6, 4], vg from 1e-3 to 50) against the adaptive reference, to the
// tolerances of the rule it chose, with 32 nodes (the default) and 8.
func TestHeteroTiltedRandomCavities(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, nodes := range []int{32, 8} {
		gh := NewGaussHermite(nodes)
		var tally ruleTally
		for i := 0; i < 90; i++ {
			c := (2*rng.Float64() - 1) * 12
			if i%4 == 0 {
				c = (2*rng.Float64() - 1) * 60
			}
			vf := math.Pow(10, -8+9*rng.Float64())
			mg := -6 + 10*rng.Float64()
			vg := math.Pow(10, -3+4.7*rng.Float64())
			ref, ok := heteroAdaptive(1, c, vf, mg, vg)
			if !ok {
				continue // the reference's budget ran out (rare); nothing to compare
			}
			h := HeteroTilted(gh, 1, c, vf, mg, vg)
			cav := h == heteroCavity(gh, 1, c, vf, mg, vg)
			el, ed := heteroCompare(t, fmt.Sprintf("%d nodes, y·mf %g, vf %g, mg %g, vg %g", nodes, c, vf, mg, vg), h, ref, cav)
			tally.add(cav, el, ed)
		}
		t.Logf("%d nodes: cavity-centred rule %d cavities, max errors log Z %.1e, derivatives %.1e; mode-centred %d, %.1e, %.1e",
			nodes, tally.used[1], tally.worst[1][0], tally.worst[1][1], tally.used[0], tally.worst[0][0], tally.worst[0][1])
		if tally.used[0] < 20 || tally.used[1] < 20 {
			t.Errorf("%d nodes: rules used %v times", nodes, tally.used)
		}
	}
}

// The switch between the rules (heteroCavityAdequate) on both sides of each
// criterion: the rule chosen (bit for bit), the accuracy of the result on
// both sides, and the jump at the boundary (within the cavity rule's
// tolerance). Also: both paths allocate nothing, and their cost per site.
func TestHeteroTiltedSwitch(t *testing.T) {
	check := func(label string, nodes int, c [5]float64, wantCavity bool) HeteroMoments {
		t.Helper()
		gh := NewGaussHermite(nodes)
		h := HeteroTilted(gh, c[0], c[1], c[2], c[3], c[4])
		cav := heteroCavity(gh, c[0], c[1], c[2], c[3], c[4])
		mode := heteroModeRule(c[0], c[1], c[2], c[3], c[4])
		if wantCavity && h != cav || !wantCavity && h != mode {
			t.Errorf("%s %v, %d nodes: not the %s rule", label, c, nodes, map[bool]string{true: "cavity-centred", false: "mode-centred"}[wantCavity])
		}
		ref, ok := heteroAdaptive(c[0], c[1], c[2], c[3], c[4])
		if !ok {
			t.Fatalf("%v: the adaptive reference did not converge", c)
		}
		heteroCompare(t, fmt.Sprintf("%s %v, %d nodes", label, c, nodes), h, ref, wantCavity)
		return h
	}
	// jump compares the two rules at the same cavity c (at the boundary).
	jump := func(label string, nodes int, c [5]float64) {
		t.Helper()
		a := heteroCavity(NewGaussHermite(nodes), c[0], c[1], c[2], c[3], c[4])
		b := heteroModeRule(c[0], c[1], c[2], c[3], c[4])
		tz, td := heteroTol(true)
		got := []float64{a.LogZ, a.DMf, a.DVf, a.D2f, a.DMg, a.DVg, a.D2g}
		want := []float64{b.LogZ, b.DMf, b.DVf, b.D2f, b.DMg, b.DVg, b.D2g}
		for k := range got {
			if tol := map[bool]float64{true: tz, false: td}[k == 0]; math.Abs(got[k]-want[k]) > tol*(1+math.Abs(want[k])) {
				t.Errorf("%s %v: the rules differ at the switch: %v vs %v", label, c, got, want)
				break
			}
		}
	}
	// vg ≤ 1.05·n/32 (n ≥ 32), 1.05·(n/32)² below; the first cavity is
	// among the worst for the resolution (small vf, Φ's transition in g
	// near mg)
	for _, nodes := range []int{32, 128, 16, 8} {
		vmax := cavityMaxVg * cavityScale(nodes)
		for _, c := range [][4]float64{{1, 8.17, 1.6e-4, 1.94}, {1, 0.5, 1, 0}, {-1, 0.5, 1, 0}} {
			check("vg below", nodes, [5]float64{c[0], c[1], c[2], c[3], vmax * 0.999}, true)
			check("vg above", nodes, [5]float64{c[0], c[1], c[2], c[3], vmax * 1.001}, false)
			jump("vg", nodes, [5]float64{c[0], c[1], c[2], c[3], vmax})
		}
	}
	// the tilted shift of g for y·mf < 0: bisect mf for |MeanG − mg| = 0.8 √vg
	gh := NewGaussHermite(32)
	shift := func(mf float64) float64 { return heteroCavity(gh, 1, mf, 0.5, 0, 0.8).MeanG / math.Sqrt(0.8) }
	lo, hi := -0.5, -20.0
	if !(shift(lo) < cavityMaxShift && shift(hi) > cavityMaxShift) {
		t.Fatalf("shift bracket: %g, %g", shift(lo), shift(hi))
	}
	for k := 0; k < 60; k++ {
		if mid := 0.5 * (lo + hi); shift(mid) < cavityMaxShift {
			lo = mid
		} else {
			hi = mid
		}
	}
	check("shift below", 32, [5]float64{1, lo + 1e-6, 0.5, 0, 0.8}, true)
	check("shift above", 32, [5]float64{1, hi - 1e-6, 0.5, 0, 0.8}, false)
	jump("shift", 32, [5]float64{1, hi, 0.5, 0, 0.8})
	// the far-mass bound: the cavity-centred rule sees a small shift (its
	// nodes do not reach the mass at e^g ≈ vf) and is off by 4e-1 in a derivative
	far := [5]float64{1, -47.27, 7.51, -5.7, 0.329}
	cav := heteroCavity(gh, far[0], far[1], far[2], far[3], far[4])
	good := check("far mass", 32, far, false)
	if math.Abs(cav.MeanG-far[3]) > cavityMaxShift*math.Sqrt(far[4]) || math.Abs(cav.D2g-good.D2g) < 1e-2*(1+math.Abs(good.D2g)) {
		t.Errorf("far mass: the cavity-centred rule should see a small shift (%g sd) and be wrong (∂²/∂mg² %g vs %g)",
			(cav.MeanG-far[3])/math.Sqrt(far[4]), cav.D2g, good.D2g)
	}
	// well-classified, vg in range: the cavity-centred rule whatever y·mf
	for _, mf := range []float64{0.1, 3, 40} {
		check("y·mf > 0", 32, [5]float64{1, mf, 0.3, -1, 1}, true)
	}
	// no allocation on either path; cost per site
	paths := []struct {
		name string
		c    [5]float64
	}{{"cavity-centred", [5]float64{1, 0.5, 1, 0, 1}}, {"cavity-centred, y·mf < 0", [5]float64{-1, 1.5, 0.4, -1, 0.5}},
		{"mode-centred, tail", [5]float64{1, -8, 0.5, 0, 1}},
		{"mode-centred, vg = 10", [5]float64{1, 0.5, 1, 0, 10}}}
	for _, p := range paths {
		c := p.c
		if a := testing.AllocsPerRun(20, func() { HeteroTilted(gh, c[0], c[1], c[2], c[3], c[4]) }); a != 0 {
			t.Errorf("%s: %g allocations per call", p.name, a)
		}
		const reps = 2000
		t0 := time.Now()
		for k := 0; k < reps; k++ {
			HeteroTilted(gh, c[0], c[1], c[2], c[3], c[4])
		}
		t.Logf("%s rule %v: %.2g µs per site", p.name, c, float64(time.Since(t0).Microseconds())/reps)
	}
}
