package ep

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"

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
// its log Z.
func TestHeteroDerivatives(t *testing.T) {
	gh := NewGaussHermite(32)
	cases := [][5]float64{{1, 0.5, 1, 0, 1}, {-1, 1.5, 0.4, -1, 0.5}, {1, -2, 2, 0.5, 2}, {1, -6, 0.3, -1, 0.2}}
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
	for _, c := range [][4]float64{{0.3, 0.5, -1, 0.7}, {-4, 0.1, 2, 3}, {12, 2, -5, 0.01}, {-30, 1, 0, 1}} {
		nm := NewNoiseMixture(gh, c[2], c[3])
		want := math.Exp(HeteroTilted(gh, 1, c[0], c[1], c[2], c[3]).LogZ)
		if got := nm.Prob(c[0], c[1]); math.Abs(got-want) > 1e-12*(1+want) {
			t.Errorf("%v: %g vs %g", c, got, want)
		}
	}
}
