package app

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
			paper("Xu, Zhou, Tsang, Qin, Goh & Liu — Simple and Efficient Learning using Privileged Information (SVM2+: SVM+ with the squared hinge loss becomes a standard SVM dual).",
				"https://arxiv.org/abs/1604.01518"),
			paper("Xu & Wang — Multi-view learning with privileged weighted twin support vector machine (MPWTSVM: each view is the other's privileged information).",
				"https://arxiv.org/abs/2201.11306"),
			paper("Hernández-Lobato, Sharmanska, Kersting, Lampert & Quadrianto — Mind the Nuisance: Gaussian Process Classification using Privileged Noise (GPC+, NIPS 2014).",
				"https://arxiv.org/abs/1410.0389"),
			paper("Xiong, Szedmak & Piater — Joint SVM for Accurate and Fast Image Tagging (ESANN 2014: one SVM for all tags through an output kernel).",
				"https://www.esann.org/proceedings/2014"),
		),
		app.H2().Text("How to read the playground"),
		app.P().Text("The heat map shows the model's decision value: blue for the first class, orange for the second, "+
			"the solid line is the decision boundary and the dashed lines the margins (±1). Filled dots are training points, "+
			"hollow squares test points; ringed points are support vectors."),
	)
}

func paper(text, href string) app.UI {
	return app.Li().Body(app.Text(text+" "), app.A().Href(href).Rel("noopener").Text("Read it"))
}
