package svm

import (
	"context"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/model"
)

// FitPlatt fits m.Platt from 5-fold cross-validated decision values on the
// training data (X, y) with the same parameters, as LIBSVM's -b 1 does
// (svm_binary_svc_probability). Folds are stratified and drawn from seed.
// A fold whose training part has a single class gives that class's label
// (±1) as its decision values, as LIBSVM does.
func FitPlatt(ctx context.Context, m *Model, X *mat.Dense, y []float64, p Params, opt model.Options) error {
	n, d := X.Dims()
	const k = 5
	rng := rand.New(rand.NewPCG(uint64(opt.Seed), 0x5eed_91a77))
	fold := make([]int, n)
	pos, neg := model.SplitClasses(y)
	next := 0
	for _, g := range [][]int{pos, neg} {
		rng.Shuffle(len(g), func(a, b int) { g[a], g[b] = g[b], g[a] })
		for _, i := range g {
			fold[i] = next % k
			next++
		}
	}
	dec := make([]float64, n)
	for f := 0; f < k; f++ {
		var tr, te []int
		for i := 0; i < n; i++ {
			if fold[i] == f {
				te = append(te, i)
			} else {
				tr = append(tr, i)
			}
		}
		if len(te) == 0 {
			continue
		}
		Xtr := mat.NewDense(len(tr), d, nil)
		ytr := make([]float64, len(tr))
		var np, nn int
		for t, i := range tr {
			Xtr.SetRow(t, X.RawRowView(i))
			ytr[t] = y[i]
			if y[i] > 0 {
				np++
			} else {
				nn++
			}
		}
		switch {
		case np == 0 || nn == 0:
			v := 1.0
			if np == 0 {
				v = -1
			}
			for _, i := range te {
				dec[i] = v
			}
			continue
		}
		sub := opt
		if opt.Progress != nil {
			stage := "probability CV"
			sub.Progress = func(pr model.Progress) { pr.Stage = stage; opt.Progress(pr) }
		}
		fm, err := Train(ctx, Xtr, ytr, p, sub)
		if err != nil {
			return err
		}
		Xte := mat.NewDense(len(te), d, nil)
		for t, i := range te {
			Xte.SetRow(t, X.RawRowView(i))
		}
		for t, v := range fm.DecisionX(Xte) {
			dec[te[t]] = v
		}
	}
	a, b := SigmoidTrain(dec, y)
	m.Platt = &Platt{A: a, B: b}
	return nil
}

// SigmoidTrain fits Platt's sigmoid 1/(1 + exp(A f + B)) to decision values
// f and labels y ∈ {±1} by the Newton method with backtracking of Lin, Lin &
// Weng (2007), "A note on Platt's probabilistic outputs for support vector
// machines", Machine Learning 68, Algorithm 1, with Platt's regularised
// targets (N₊+1)/(N₊+2) and 1/(N₋+2).
func SigmoidTrain(f, y []float64) (A, B float64) {
	var prior1, prior0 float64
	for _, v := range y {
		if v > 0 {
			prior1++
		} else {
			prior0++
		}
	}
	const (
		maxIter = 100
		minStep = 1e-10
		sigma   = 1e-12
		eps     = 1e-5
	)
	hi, lo := (prior1+1)/(prior1+2), 1/(prior0+2)
	t := make([]float64, len(y))
	for i, v := range y {
		if v > 0 {
			t[i] = hi
		} else {
			t[i] = lo
		}
	}
	A, B = 0, math.Log((prior0+1)/(prior1+1))
	obj := func(a, b float64) float64 {
		s := 0.0
		for i, fi := range f {
			z := fi*a + b
			if z >= 0 {
				s += t[i]*z + math.Log1p(math.Exp(-z))
			} else {
				s += (t[i]-1)*z + math.Log1p(math.Exp(z))
			}
		}
		return s
	}
	fval := obj(A, B)
	for it := 0; it < maxIter; it++ {
		h11, h22, h21, g1, g2 := sigma, sigma, 0.0, 0.0, 0.0
		for i, fi := range f {
			z := fi*A + B
			var p, q float64
			if z >= 0 {
				e := math.Exp(-z)
				p, q = e/(1+e), 1/(1+e)
			} else {
				e := math.Exp(z)
				p, q = 1/(1+e), e/(1+e)
			}
			d2 := p * q
			h11 += fi * fi * d2
			h22 += d2
			h21 += fi * d2
			d1 := t[i] - p
			g1 += fi * d1
			g2 += d1
		}
		if math.Abs(g1) < eps && math.Abs(g2) < eps {
			break
		}
		det := h11*h22 - h21*h21
		dA := -(h22*g1 - h21*g2) / det
		dB := -(-h21*g1 + h11*g2) / det
		gd := g1*dA + g2*dB
		step := 1.0
		for step >= minStep {
			na, nb := A+step*dA, B+step*dB
			if nf := obj(na, nb); nf < fval+1e-4*step*gd {
				A, B, fval = na, nb, nf
				break
			}
			step /= 2
		}
		if step < minStep {
			break
		}
	}
	return A, B
}
