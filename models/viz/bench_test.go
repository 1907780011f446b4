package viz

import (
	"math"
	"testing"
)

func BenchmarkHeatmap200(b *testing.B) {
	g := Grid{XMin: -1, XMax: 1, YMin: -1, YMax: 1, W: 200, H: 200}
	s := &Surface{Grid: g, Value: make([]float64, 40000), Labels: make([]int, 40000)}
	for i := range s.Value {
		s.Value[i] = math.Sin(float64(i%200)/20) * math.Cos(float64(i/200)/30) * 2
	}
	for i := 0; i < b.N; i++ {
		Heatmap(s, false)
	}
}
