package app

// estimate is the expected cost of fitting the current settings in this
// browser.
type estimate struct {
	Seconds float64
	Bytes   int64
}

// estimate returns the cost of the current fit; ok is false when it cannot
// be told (the fit then starts by itself as before).
func (s *session) estimate() (estimate, bool) {
	return estimate{}, false
}

// liveLimit is the largest data (rows) on which a dragged slider or point
// refits continuously.
const liveLimit = 600

// liveAllowed reports whether the current data is small enough to follow a
// drag continuously.
func (s *session) liveAllowed() bool {
	rows, _, _, _, _ := s.dataInfo()
	if rows == 0 || rows > liveLimit {
		return false
	}
	est, ok := s.estimate()
	return !ok || est.Seconds < 0.2
}
