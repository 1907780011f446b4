package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/datasets"
)

// Generator is a synthetic dataset generator: its description in the
// catalogue (package datasets) and the function that makes it.
type Generator struct {
	datasets.Generator
	fn func(n int, noise float64, seed int64) (*Dataset, error)
}

// Generators lists the synthetic generators in the order a UI shows them.
var Generators []Generator

func init() {
	fns := map[string]func(n int, noise float64, seed int64) (*Dataset, error){
		"moons": Moons, "circles": Circles, "xor": XOR, "spirals": Spirals, "blobs": Blobs,
		"lupi2d": LUPI2D, "twoview2d": TwoView2D, "multilabel2d": MultiLabel2D,
	}
	for _, g := range datasets.Generators {
		fn, ok := fns[g.Name]
		if !ok {
			panic("data: no generator for the catalogue's " + g.Name)
		}
		Generators = append(Generators, Generator{Generator: g, fn: fn})
	}
}

// GeneratorByName returns a generator's description.
func GeneratorByName(name string) (Generator, bool) {
	for _, g := range Generators {
		if g.Name == strings.ToLower(name) {
			return g, true
		}
	}
	return Generator{}, false
}

// MaxGenerated is the largest n GenerateByName accepts.
const MaxGenerated = datasets.MaxGenerated

// GenerateByName makes n samples of the named synthetic dataset (see
// Generators) with the given noise, seeded (the same arguments give the same
// data on every platform).
func GenerateByName(name string, n int, noise float64, seed int64) (*Dataset, error) {
	g, ok := GeneratorByName(name)
	if !ok {
		names := make([]string, len(Generators))
		for i, g := range Generators {
			names[i] = g.Name
		}
		return nil, fmt.Errorf("data: unknown generator %q (one of %s)", name, strings.Join(names, ", "))
	}
	return g.fn(n, noise, seed)
}

func checkGen(name string, n, minN int, noise float64) error {
	if n < minN || n > MaxGenerated {
		return fmt.Errorf("data: %s: n = %d samples, need %d ≤ n ≤ %d", name, n, minN, MaxGenerated)
	}
	if noise < 0 || math.IsNaN(noise) || math.IsInf(noise, 0) || noise > 100 {
		return fmt.Errorf("data: %s: noise %v must be in [0, 100]", name, noise)
	}
	return nil
}

// classSizes splits n samples over k classes as evenly as possible.
func classSizes(n, k int) []int {
	s := make([]int, k)
	for c := range s {
		s[c] = n / k
		if c < n%k {
			s[c]++
		}
	}
	return s
}

func classNames(k int) []string {
	out := make([]string, k)
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}

// gen2 builds a plain 2-D dataset from a per-class point sampler.
func gen2(name string, n, k int, noise float64, seed int64, point func(r *rand.Rand, c int) (float64, float64)) *Dataset {
	r := NewRand(seed)
	x := mat.NewDense(n, 2, nil)
	y := make([]int, 0, n)
	i := 0
	for c, m := range classSizes(n, k) {
		for t := 0; t < m; t++ {
			a, b := point(r, c)
			x.Set(i, 0, a+noise*r.NormFloat64())
			x.Set(i, 1, b+noise*r.NormFloat64())
			y = append(y, c)
			i++
		}
	}
	ds := &Dataset{Name: name, Kind: KindPlain, X: x, XNames: []string{"x_1", "x_2"}, Y: y, Classes: classNames(k)}
	shuffleRows(ds, r)
	g, _ := GeneratorByName(name)
	ds.Provenance = Provenance{Source: "synthetic (LUPI Lab generator " + name + ")", Licence: "generated data, no restrictions",
		Blocks: fmt.Sprintf("n=%d, noise=%g, seed=%d", n, noise, seed), Details: g.Description}
	return ds
}

// shuffleRows permutes the rows so classes are interleaved.
func shuffleRows(ds *Dataset, r *rand.Rand) {
	perm := r.Perm(ds.Rows())
	s := Subset(ds, perm)
	*ds = *s
}

// Moons makes the two-moons dataset (see Generators for the ground truth).
func Moons(n int, noise float64, seed int64) (*Dataset, error) {
	if err := checkGen("moons", n, 2, noise); err != nil {
		return nil, err
	}
	return gen2("moons", n, 2, noise, seed, func(r *rand.Rand, c int) (float64, float64) {
		t := math.Pi * r.Float64()
		if c == 0 {
			return math.Cos(t), math.Sin(t)
		}
		return 1 - math.Cos(t), 0.5 - math.Sin(t)
	}), nil
}

// Circles makes two concentric circles of radius 1 (class 0) and ½ (class 1).
func Circles(n int, noise float64, seed int64) (*Dataset, error) {
	if err := checkGen("circles", n, 2, noise); err != nil {
		return nil, err
	}
	return gen2("circles", n, 2, noise, seed, func(r *rand.Rand, c int) (float64, float64) {
		t := 2 * math.Pi * r.Float64()
		rad := 1.0
		if c == 1 {
			rad = 0.5
		}
		return rad * math.Cos(t), rad * math.Sin(t)
	}), nil
}

// XOR makes the XOR problem: class 1 in quadrants I and III.
func XOR(n int, noise float64, seed int64) (*Dataset, error) {
	if err := checkGen("xor", n, 2, noise); err != nil {
		return nil, err
	}
	return gen2("xor", n, 2, noise, seed, func(r *rand.Rand, c int) (float64, float64) {
		a, b := r.Float64(), r.Float64()
		if r.IntN(2) == 1 {
			a = -a
			b = -b
		}
		if c == 0 {
			b = -b
		}
		return a, b
	}), nil
}

// Spirals makes two interleaved spirals.
func Spirals(n int, noise float64, seed int64) (*Dataset, error) {
	if err := checkGen("spirals", n, 2, noise); err != nil {
		return nil, err
	}
	return gen2("spirals", n, 2, noise, seed, func(r *rand.Rand, c int) (float64, float64) {
		t := 0.05 + 0.95*r.Float64()
		th := 3*math.Pi*t + float64(c)*math.Pi
		return t * math.Cos(th), t * math.Sin(th)
	}), nil
}

// BlobCentres are the centres of the three blobs.
var BlobCentres = [3][2]float64{
	{0, 1.5},
	{1.5 * math.Cos(210*math.Pi/180), 1.5 * math.Sin(210*math.Pi/180)},
	{1.5 * math.Cos(330*math.Pi/180), 1.5 * math.Sin(330*math.Pi/180)},
}

// Blobs makes three Gaussian blobs of standard deviation 0.25 + noise.
func Blobs(n int, noise float64, seed int64) (*Dataset, error) {
	if err := checkGen("blobs", n, 3, noise); err != nil {
		return nil, err
	}
	sd := 0.25 + noise
	return gen2("blobs", n, 3, 0, seed, func(r *rand.Rand, c int) (float64, float64) {
		return BlobCentres[c][0] + sd*r.NormFloat64(), BlobCentres[c][1] + sd*r.NormFloat64()
	}), nil
}

// LUPI2DNoise returns the easy and hard noise levels of LUPI2D.
func LUPI2DNoise(noise float64) (easy, hard float64) {
	return 0.2 + 0.5*noise, 1 + 2*noise
}

// LUPI2DBayesError is the error of the Bayes-optimal rule x₁ + x₂ > 0 on
// LUPI2D's X: ⅓·atan(σ_hard)/π + ⅔·atan(σ_easy)/π (the projection of the
// latent point on the normal is N(0, 1), the noise's N(0, σ²)).
func LUPI2DBayesError(noise float64) float64 {
	e, h := LUPI2DNoise(noise)
	return (math.Atan(h)/3 + 2*math.Atan(e)/3) / math.Pi
}

// LUPI2D makes the LUPI 2-D dataset: X a noisy view of a latent point, Z the
// clean latent point and the sample's noise level (see Generators).
func LUPI2D(n int, noise float64, seed int64) (*Dataset, error) {
	if err := checkGen("lupi2d", n, 2, noise); err != nil {
		return nil, err
	}
	r := NewRand(seed)
	easy, hard := LUPI2DNoise(noise)
	x := mat.NewDense(n, 2, nil)
	z := mat.NewDense(n, 3, nil)
	y := make([]int, 0, n)
	i := 0
	for c, m := range classSizes(n, 2) {
		for t := 0; t < m; t++ {
			u1, u2 := r.NormFloat64(), r.NormFloat64()
			if (u1+u2 > 0) != (c == 1) {
				u1, u2 = -u1, -u2 // reflect: keeps N(0, I) restricted to the half-plane
			}
			s := easy
			if r.Float64() < 1.0/3 {
				s = hard
			}
			x.Set(i, 0, u1+s*r.NormFloat64())
			x.Set(i, 1, u2+s*r.NormFloat64())
			z.Set(i, 0, u1)
			z.Set(i, 1, u2)
			z.Set(i, 2, s)
			y = append(y, c)
			i++
		}
	}
	g, _ := GeneratorByName("lupi2d")
	ds := &Dataset{Name: "lupi2d", Kind: KindLUPI, X: x, XNames: []string{"x_1", "x_2"},
		Z: z, ZNames: []string{"z_u1", "z_u2", "z_noise"}, Y: y, Classes: classNames(2),
		Provenance: Provenance{Source: "synthetic (LUPI Lab generator lupi2d)", Licence: "generated data, no restrictions",
			Blocks:  fmt.Sprintf("X = latent + noise (σ easy %.3g, hard %.3g); Z = clean latent (u1, u2) and σ; n=%d, noise=%g, seed=%d", easy, hard, n, noise, seed),
			Details: g.Description}}
	shuffleRows(ds, r)
	return ds, nil
}

// TwoView2DBoundary is the true class boundary of TwoView2D in the latent
// space: class 1 when u₂ > TwoView2DBoundary(u₁).
func TwoView2DBoundary(u1 float64) float64 { return 0.5 * math.Sin(math.Pi*u1) }

// TwoView2D makes the two-view 2-D dataset (see Generators).
func TwoView2D(n int, noise float64, seed int64) (*Dataset, error) {
	if err := checkGen("twoview2d", n, 2, noise); err != nil {
		return nil, err
	}
	r := NewRand(seed)
	x := mat.NewDense(n, 2, nil)
	z := mat.NewDense(n, 2, nil)
	y := make([]int, 0, n)
	i := 0
	for c, m := range classSizes(n, 2) {
		for t := 0; t < m; t++ {
			var u1, u2 float64
			for {
				u1, u2 = 2*r.Float64()-1, 2*r.Float64()-1
				if (u2 > TwoView2DBoundary(u1)) == (c == 1) {
					break
				}
			}
			x.Set(i, 0, u1+0.3*math.Sin(math.Pi*u2)+noise*r.NormFloat64())
			x.Set(i, 1, u2+0.3*math.Sin(math.Pi*u1)+noise*r.NormFloat64())
			d1, d2 := u1+1.5, u2
			z.Set(i, 0, math.Hypot(d1, d2)+noise*r.NormFloat64())
			z.Set(i, 1, math.Atan2(d2, d1)+noise*r.NormFloat64())
			y = append(y, c)
			i++
		}
	}
	g, _ := GeneratorByName("twoview2d")
	ds := &Dataset{Name: "twoview2d", Kind: KindTwoView, X: x, XNames: []string{"x_1", "x_2"},
		Z: z, ZNames: []string{"z_radius", "z_angle"}, Y: y, Classes: classNames(2),
		Provenance: Provenance{Source: "synthetic (LUPI Lab generator twoview2d)", Licence: "generated data, no restrictions",
			Blocks:  fmt.Sprintf("view A = warped latent, view B = polar latent from (−1.5, 0); n=%d, noise=%g, seed=%d", n, noise, seed),
			Details: g.Description}}
	shuffleRows(ds, r)
	return ds, nil
}

// MultiLabel2DTags returns the true tags (a, b, c, d) of a latent point of
// MultiLabel2D.
func MultiLabel2DTags(u1, u2 float64) [4]bool {
	return [4]bool{
		math.Hypot(u1+0.25, u2) < 0.6,
		math.Hypot(u1-0.25, u2) < 0.6,
		u2 > 0.35,
		math.Hypot(u1-0.5, u2-0.5) < 0.45,
	}
}

// MultiLabel2D makes the multi-label 2-D dataset (see Generators).
func MultiLabel2D(n int, noise float64, seed int64) (*Dataset, error) {
	if err := checkGen("multilabel2d", n, 2, noise); err != nil {
		return nil, err
	}
	r := NewRand(seed)
	x := mat.NewDense(n, 2, nil)
	tags := mat.NewDense(n, 4, nil)
	for i := 0; i < n; i++ {
		u1, u2 := 2*r.Float64()-1, 2*r.Float64()-1
		x.Set(i, 0, u1+noise*r.NormFloat64())
		x.Set(i, 1, u2+noise*r.NormFloat64())
		for j, on := range MultiLabel2DTags(u1, u2) {
			if on {
				tags.Set(i, j, 1)
			}
		}
	}
	g, _ := GeneratorByName("multilabel2d")
	return &Dataset{Name: "multilabel2d", Kind: KindMultiLabel, X: x, XNames: []string{"x_1", "x_2"},
		Tags: tags, TagNames: []string{"a", "b", "c", "d"},
		Provenance: Provenance{Source: "synthetic (LUPI Lab generator multilabel2d)", Licence: "generated data, no restrictions",
			Blocks:  fmt.Sprintf("X = latent + noise; tags = overlapping regions of the latent point; n=%d, noise=%g, seed=%d", n, noise, seed),
			Details: g.Description}}, nil
}
