// Package all imports every model package so that their specs (and their
// experiments) are registered. The app and the CLI import it once.
package all

import (
	// Each import registers models in lupilab/models/model.
	_ "lupilab/models/experiment/gpcplus"
	_ "lupilab/models/experiment/jointsvm"
	_ "lupilab/models/experiment/mpwtsvm"
	_ "lupilab/models/experiment/svm2plus"
	_ "lupilab/models/gp"
	_ "lupilab/models/joint"
	_ "lupilab/models/model"
	_ "lupilab/models/multiview"
	_ "lupilab/models/svm"
	_ "lupilab/models/svmplus"
	_ "lupilab/models/twin"
)
