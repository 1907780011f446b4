package viz

import (
	"errors"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Projection is a 2-D PCA projection fitted on training data.
type Projection struct {
	Mean []float64
	Vecs *mat.Dense // d×2 principal directions
	Var  [2]float64 // explained variance fraction of each axis
}

// FitPCA fits a two-component PCA on the rows of X (training data only).
func FitPCA(X *mat.Dense) (*Projection, error) {
	r, c := X.Dims()
	if r < 2 || c < 2 {
		return nil, errors.New("viz: PCA needs at least two rows and two columns")
	}
	var pc stat.PC
	if !pc.PrincipalComponents(X, nil) {
		return nil, errors.New("viz: PCA failed")
	}
	var vecs mat.Dense
	pc.VectorsTo(&vecs)
	vars := pc.VarsTo(nil)
	total := 0.0
	for _, v := range vars {
		total += v
	}
	p := &Projection{Mean: make([]float64, c), Vecs: mat.DenseCopyOf(vecs.Slice(0, c, 0, 2))}
	if total > 0 {
		p.Var = [2]float64{vars[0] / total, vars[1] / total}
	}
	for j := 0; j < c; j++ {
		p.Mean[j] = stat.Mean(mat.Col(nil, j, X), nil)
	}
	return p, nil
}

// Apply projects the rows of X.
func (p *Projection) Apply(X *mat.Dense) *mat.Dense {
	r, c := X.Dims()
	centred := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			centred.Set(i, j, X.At(i, j)-p.Mean[j])
		}
	}
	var out mat.Dense
	out.Mul(centred, p.Vecs)
	return &out
}
