package app

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/wire"
)

// The guided tours: one per paper, a few steps each. Every step sets up the
// live canvas beside it, invites one action that changes the picture, says
// what to notice, and links to the paper and to the playground in the same
// state. Routes: /learn (the list) and /learn/<tour>.

type tourStep struct {
	title  string
	text   string
	set    func(s *Settings)
	try    string // the action's button label
	action func(s *Settings)
	notice string
	layer  string // a map layer to show after the action
}

type tour struct {
	id, title, paper, paperURL, intro string
	steps                             []tourStep
}

func link(source string, n int, noise float64, seed int64, model string, params map[string]string) func(s *Settings) {
	return func(s *Settings) {
		s.Source, s.N, s.Noise, s.Seed, s.TrainPct, s.Model, s.Edits = source, n, noise, seed, 70, model, nil
		s.Params = map[string]map[string]string{}
		for k, v := range params {
			s.SetParam(k, v)
		}
	}
}

func setParam(name, value string) func(s *Settings) {
	return func(s *Settings) { s.SetParam(name, value) }
}

// hardEdits marks the generated rows 0 … k−1 hard (the brush, in a link).
func hardEdits(k int) func(s *Settings) {
	return func(s *Settings) {
		for i := 0; i < k; i++ {
			s.Edits = append(s.Edits, wire.Edit{Op: "hard", Index: i, Value: 1})
		}
	}
}

var tours = []tour{
	{id: "svm2plus", title: "SVM2+: a teacher who says which examples are hard",
		paper: "Xu et al., Simple and Efficient Learning using Privileged Information", paperURL: "https://arxiv.org/abs/1604.01518",
		intro: "Learning using privileged information: while training, a teacher adds features that will not exist at prediction time. In LUPI 2-D the points you see are noisy copies of hidden clean points; the privileged features are the clean point and how noisy the copy is — the teacher knows which examples are hard.",
		steps: []tourStep{
			{title: "1. An SVM on noisy points", text: "A plain SVM sees only the noisy coordinates. Every point pulls on the boundary, the noisy ones too.",
				set: link("gen:lupi2d", 200, 0.2, 3, "svm", nil), try: "Make the hard points noisier", action: func(s *Settings) { s.Noise = 0.5 },
				notice: "The boundary bends to follow points that are only far from their class because of noise."},
			{title: "2. SVM2+ listens to the teacher", text: "SVM2+ keeps the SVM's decision function, but each training point's slack is predicted by a correcting function of its privileged features. Halos show that predicted slack.",
				set: link("gen:lupi2d", 200, 0.5, 3, "svm", nil), try: "Switch to SVM2+", action: func(s *Settings) { s.Model = "svm2plus" },
				notice: "Points the teacher calls hard get large halos: SVM2+ expects them to violate the margin and lets them, so they pull the boundary less."},
			{title: "3. Paint points hard", text: "The difficulty brush sets what the privileged features say about a point. Here the button paints the first sixty generated points hard.",
				set: link("gen:lupi2d", 200, 0.5, 3, "svm2plus", nil), try: "Paint 60 points hard", action: hardEdits(60),
				notice: "Their halos grow and the boundary moves: SVM2+ stops chasing the points it is told are unreliable."},
			{title: "4. How much to trust the teacher", text: "λ regularises the correcting function: a large λ trusts the privileged space less, and SVM2+ becomes the squared-hinge SVM.",
				set: link("gen:lupi2d", 200, 0.5, 3, "svm2plus", nil), try: "Set λ = 1000", action: setParam("lambda", "1000"),
				notice: "The halos even out and the boundary returns towards the plain SVM's."},
		}},
	{id: "mpwtsvm", title: "MPWTSVM: two views teach each other",
		paper: "Xu & Wang, Multi-view learning with privileged weighted twin support vector machine", paperURL: "https://arxiv.org/abs/2201.11306",
		intro: "Two views of the same objects — here two different warps of one hidden point. MPWTSVM fits a twin SVM per view; each view's slacks are bounded by the other view's planes (each is the other's privileged information), and a consensus term couples them.",
		steps: []tourStep{
			{title: "1. Two views, two maps", text: "View A and view B show the same samples through different maps. The model predicts from both.",
				set: link("gen:twoview2d", 200, 0.1, 1, "mpwtsvm", nil), try: "Add noise to both views", action: func(s *Settings) { s.Noise = 0.3 },
				notice: "With noise, each view misplaces different samples: where one view is unsure the other often is not."},
			{title: "2. Take the coupling away", text: "C weighs the consensus term C Σ ξᴬξᴮ, which pushes both views to agree on which samples are hard.",
				set: link("gen:twoview2d", 200, 0.3, 1, "mpwtsvm", nil), try: "Set the coupling C = 0", action: setParam("coupling", "0"),
				notice: "Without the coupling the views stop sharing their doubts; compare the per-view accuracies in the table below."},
			{title: "3. Decide with one view", text: "The decision can use view A alone, view B alone, or both.",
				set: link("gen:twoview2d", 200, 0.3, 1, "mpwtsvm", nil), try: "Decide with view A only", action: setParam("rule", "A"),
				notice: "Test accuracy with one view is lower: the combined rule averages the views' distances to their planes."},
			{title: "4. A multi-view baseline", text: "SVM-2K couples two SVMs by asking their outputs to agree, without privileged constraints.",
				set: link("gen:twoview2d", 200, 0.3, 1, "mpwtsvm", nil), try: "Switch to SVM-2K", action: func(s *Settings) { s.Model = "svm2k" },
				notice: "Two smooth SVM boundaries instead of MPWTSVM's pairs of proximal planes."},
		}},
	{id: "gpcplus", title: "GPC+: noise that depends on privileged information",
		paper: "Hernández-Lobato et al., Mind the Nuisance: Gaussian Process Classification using Privileged Noise", paperURL: "https://arxiv.org/abs/1410.0389",
		intro: "A Gaussian-process classifier turns a latent function into probabilities through a noisy threshold. GPC+ lets the noise level vary from sample to sample, as a second Gaussian process on the privileged features: easy samples get a steep likelihood, hard ones a flat one.",
		steps: []tourStep{
			{title: "1. GPC on noisy points", text: "The map shows the probability of the second class; the line is p = 0.5.",
				set: link("gen:lupi2d", 120, 0.3, 2, "gpc", nil), try: "Switch to GPC+", action: func(s *Settings) { s.Model = "gpcplus" },
				notice: "Halos appear: GPC+'s noise exp(g) per training sample, large where the privileged features say the sample is hard."},
			{title: "2. Paint points hard", text: "Tell GPC+ that some samples are hard: the difficulty brush changes their privileged noise level.",
				set: link("gen:lupi2d", 120, 0.3, 2, "gpcplus", nil), try: "Paint 40 points hard", action: hardEdits(40),
				notice: "Their halos grow and their likelihood flattens: the posterior moves less for them."},
			{title: "3. What the model is unsure of", text: "A GP also says how sure it is. The map can show the predictive uncertainty instead of the probability.",
				set: link("gen:lupi2d", 120, 0.3, 2, "gpcplus", nil), try: "Show the uncertainty", action: func(s *Settings) {}, layer: wire.LayerVar,
				notice: "Uncertainty grows away from the data and along the boundary."},
			{title: "4. Optimised hyper-parameters", text: "GPC+ learns its length-scales and the g mean by maximising the evidence.",
				set: link("gen:lupi2d", 120, 0.3, 2, "gpcplus", nil), try: "Fix the hyper-parameters instead", action: setParam("optimize", "false"),
				notice: "Without type-II maximum likelihood the model keeps its starting values; compare the log evidence in the table."},
		}},
	{id: "jointsvm", title: "Joint SVM: many correlated tags, one SVM",
		paper: "Xiong, Szedmak & Piater, Joint SVM for Accurate and Fast Image Tagging", paperURL: "https://www.esann.org/proceedings/2014",
		intro: "Each sample carries several tags that occur together. Independent SVMs learn one tag at a time; the joint SVM puts a kernel on whole tag vectors, so co-occurring tags are learnt together — at the cost of one SVM.",
		steps: []tourStep{
			{title: "1. One SVM per tag", text: "The map shows where one tag is predicted. Choose another tag with the menu above the plot.",
				set: link("gen:multilabel2d", 300, 0.05, 1, "indepsvm", nil), try: "Add noise", action: func(s *Settings) { s.Noise = 0.2 },
				notice: "Each tag's boundary is learnt on its own."},
			{title: "2. The joint SVM", text: "One dual for all tags; the output kernel compares whole tag vectors.",
				set: link("gen:multilabel2d", 300, 0.2, 1, "indepsvm", nil), try: "Switch to the joint SVM", action: func(s *Settings) { s.Model = "jointsvm" },
				notice: "The joint SVM predicts whole tag sets seen in training: tags that co-occur switch on together."},
			{title: "3. Decouple the tags", text: "A linear output kernel makes the tags independent again.",
				set: link("gen:multilabel2d", 300, 0.2, 1, "jointsvm", nil), try: "Use a linear output kernel", action: setParam("okernel", "linear"),
				notice: "Compare the micro F1 in the table with the Gaussian output kernel's."},
		}},
}

func tourByID(id string) *tour {
	for i := range tours {
		if tours[i].id == id {
			return &tours[i]
		}
	}
	return nil
}

// Learn shows the list of tours (/learn) or one tour (/learn/<id>).
type Learn struct {
	app.Compo
	// Tour is the tour's id ("" for the list), from the path.
	Tour string
	id   string
	// started is the tour whose data and first fit were asked for (the
	// list's "" too): Render sets a new tour up (open) before OnUpdate
	// runs, so l.id alone cannot tell that its fit is still to start.
	started string
	s       *session
	step    int
	done    map[int]bool
}

// OnInit creates the tour's session.
func (l *Learn) OnInit() {
	l.s = newSession()
	l.s.embedded = true
	l.done = map[int]bool{}
}

// open sets the tour up at its first step.
func (l *Learn) open() {
	l.id = l.Tour
	l.step, l.done = 0, map[int]bool{}
	l.s.set = DefaultSettings()
	l.s.shown, l.s.preview, l.s.in = nil, nil, interaction{}
	if t := tourByID(l.id); t != nil {
		t.steps[0].set(&l.s.set)
	}
}

// OnMount starts the compute engine and shows the first step.
func (l *Learn) OnMount(ctx app.Context) {
	markLive()
	ctx.LocalStorage().Set(toursSeenKey, true)
	l.open()
	l.s.register(l)
	StartCompute(ctx, poolSizeSetting(ctx))
	ComputeReady(ctx, func(ctx app.Context) {
		l.s.computeReady = true
		l.start(ctx)
	})
}

// OnUpdate follows an in-app navigation to another tour or to the list
// (go-app keeps this component and changes its Tour): Render has set the
// tour up, and its data and first fit start here, as they do in OnMount
// on a page load (or once the compute engine is ready).
func (l *Learn) OnUpdate(ctx app.Context) {
	if l.Tour != l.id {
		l.open()
	}
	if l.started != l.id && l.s.computeReady {
		l.start(ctx)
	}
}

// start asks for the current tour's data and fit.
func (l *Learn) start(ctx app.Context) {
	l.started = l.id
	if tourByID(l.id) == nil {
		return
	}
	l.s.requestPreview(ctx)
	l.s.startFit(ctx)
	l.s.refresh()
}

// OnDismount stops the running fit.
func (l *Learn) OnDismount() {
	l.s.cancelFit()
	l.s.unregister(l)
}

// Render implements app.Composer.
func (l *Learn) Render() app.UI {
	if l.id != l.Tour {
		l.open() // first render (the server's pre-render too)
	}
	t := tourByID(l.id)
	if t == nil {
		return app.Article().Class("learn-index").Body(
			app.H1().Text("Learn by doing: a tour per paper"),
			app.P().Text("Each tour sets up the playground for you, step by step: one action per step, and what to notice. About five minutes each."),
			app.Ul().Class("tours").Body(app.Range(tours).Slice(func(i int) app.UI {
				t := tours[i]
				return app.Li().Body(
					app.A().Href("/learn/"+t.id).ID("tour-"+t.id).Text(t.title),
					app.P().Class("help").Text(t.intro),
				)
			})),
		)
	}
	s := l.s
	return app.Div().Class("learn").Body(
		app.Article().Class("steps").Body(
			app.H1().Text(t.title),
			app.P().Body(app.Text(t.intro+" "), app.A().Href(t.paperURL).Rel("noopener").Text("The paper: "+t.paper+".")),
			app.Range(t.steps).Slice(func(i int) app.UI {
				st := t.steps[i]
				active := i == l.step
				cls := "step"
				if active {
					cls += " active"
				}
				return app.Section().Class(cls).ID(fmt.Sprintf("step-%d", i+1)).Aria("labelledby", fmt.Sprintf("step-%d-title", i+1)).Body(
					app.H2().ID(fmt.Sprintf("step-%d-title", i+1)).Text(st.title),
					app.P().Text(st.text),
					app.Div().Class("actions").Body(
						app.If(!active, app.Button().ID(fmt.Sprintf("step-%d-show", i+1)).Text("Show this step").
							OnClick(func(ctx app.Context, e app.Event) { l.show(ctx, i) })),
						app.Button().ID(fmt.Sprintf("step-%d-try", i+1)).Class("primary").Text("Try this: "+st.try).
							Disabled(l.done[i] && active).OnClick(func(ctx app.Context, e app.Event) { l.try(ctx, i) }),
					),
					app.If(l.done[i], app.P().ID(fmt.Sprintf("step-%d-notice", i+1)).Class("notice").Text("Notice: "+st.notice)),
					app.P().Class("help").Body(
						app.A().Href("/?"+l.stepSettings(i).Encode().Encode()).Text("Open this step in the playground"),
					),
				)
			}),
		),
		app.Section().Class("tour-canvas").Aria("label", "Live model").Body(
			&ResultView{S: s, Compact: true},
		),
	)
}

// stepSettings are a step's settings, after its action when it was tried.
func (l *Learn) stepSettings(i int) Settings {
	t := tourByID(l.id)
	set := DefaultSettings()
	t.steps[i].set(&set)
	if l.done[i] {
		t.steps[i].action(&set)
	}
	return set
}

func (l *Learn) show(ctx app.Context, i int) {
	t := tourByID(l.id)
	l.step = i
	delete(l.done, i)
	l.s.set = DefaultSettings()
	t.steps[i].set(&l.s.set)
	l.s.layerPick = ""
	l.s.in = interaction{}
	l.s.changed(ctx)
	l.s.startFit(ctx)
	l.Update()
}

func (l *Learn) try(ctx app.Context, i int) {
	t := tourByID(l.id)
	if l.step != i {
		l.step = i
		l.s.set = DefaultSettings()
		t.steps[i].set(&l.s.set)
	}
	l.done[i] = true
	t.steps[i].action(&l.s.set)
	l.s.layerPick = t.steps[i].layer
	l.s.changed(ctx)
	l.s.startFit(ctx)
	l.Update()
}

// toursSeenKey marks that the visitor has seen the tours (the playground's
// pointer to them then stays away).
const toursSeenKey = "lupilab.tours-seen"
