package gp

import (
	"lupilab/models/model"
)

func init() {
	fit, load := model.WrapBinary("gpc", fitGPC, loadGPC)
	model.Register("gpc", fit, load)
	fitP, loadP := model.WrapBinary("gpcplus", fitGPCPlus, loadGPCPlus)
	model.Register("gpcplus", fitP, loadP)
}
