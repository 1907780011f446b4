package gp

import (
	"encoding/json"
	"fmt"

	"lupilab/models/model"
)

func init() {
	fit, load := model.WrapBinary("gpc", fitGPC, func(raw json.RawMessage) (model.BinaryModel, error) {
		var g GPC
		if err := json.Unmarshal(raw, &g); err != nil {
			return nil, fmt.Errorf("gpc: %w", err)
		}
		if err := g.prepare(); err != nil {
			return nil, err
		}
		return &g, nil
	})
	model.Register("gpc", fit, load)
	fitP, loadP := model.WrapBinary("gpcplus", fitGPCPlus, func(raw json.RawMessage) (model.BinaryModel, error) {
		var g GPCPlus
		if err := json.Unmarshal(raw, &g); err != nil {
			return nil, fmt.Errorf("gpcplus: %w", err)
		}
		if err := g.prepare(); err != nil {
			return nil, err
		}
		return &g, nil
	})
	model.Register("gpcplus", fitP, loadP)
}
