package ui

import "github.com/maxence-charriere/go-app/v9/pkg/app"

// About explains LUPI and links the papers.
type About struct{ app.Compo }

// OnMount marks the page live.
func (a *About) OnMount(ctx app.Context) {
	app.Window().Get("document").Get("body").Call("setAttribute", "data-lupi-ready", "1")
}

// Render implements app.Composer.
func (a *About) Render() app.UI {
	return app.Article().Class("about").Body(
		app.H1().Text("About LUPI Lab"),
		app.P().Text("Learning using privileged information (LUPI) is Vapnik's setting in which a teacher gives the learner "+
			"extra features — privileged information — while it trains, but not when it is used. A radiologist's report "+
			"on a training scan, a high-resolution version of a low-resolution digit, a second camera: the model may learn "+
			"from them, yet it must predict from the ordinary features alone."),
		app.P().Text("LUPI Lab trains such models, their multi-view and multi-label cousins, and the baselines they are "+
			"compared with, entirely in your browser tab: the models are Go compiled to WebAssembly, the data never leaves "+
			"your machine, and the app works offline after the first visit."),
		app.H2().Text("The papers"),
		app.Ul().Body(
			app.Li().Text("Xu, Zhou, Tsang, Qin, Jin & Xu — Simple and Efficient Learning using Privileged Information (SVM2+: SVM+ with the squared hinge loss)."),
			app.Li().Text("Xu & Wang — Multi-view learning with privileged weighted twin support vector machine (MPWTSVM)."),
			app.Li().Text("Hernández-Lobato, Sharmanska, Kersting, Lampert & Quadrianto — Mind the Nuisance: Gaussian Process Classification using Privileged Noise (GPC+)."),
			app.Li().Text("Xiong, Szedmak & Piater — Joint SVM for Accurate and Fast Image Tagging (output kernels)."),
		),
		app.H2().Text("How to read the playground"),
		app.P().Text("The heat map shows the model's decision value: blue for the first class, orange for the second, "+
			"the solid line is the decision boundary and the dashed lines the margins (±1). Filled dots are training points, "+
			"hollow squares test points; ringed points are support vectors."),
	)
}
