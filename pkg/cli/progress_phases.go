package cli

import "io"

// stageBars draws one bar per stage of a run that reports (stage, done,
// total), as eval.Config.Progress does: a new stage ends the previous bar.
type stageBars struct {
	w     io.Writer
	names map[string][2]string // stage → description, unit
	stage string
	bar   *progress
}

func (s *stageBars) report(stage string, done, total int) {
	if stage != s.stage || s.bar == nil {
		s.end()
		desc, unit := stage, "items"
		if n, ok := s.names[stage]; ok {
			desc, unit = n[0], n[1]
		}
		s.stage, s.bar = stage, newProgress(s.w, int64(total), desc, unit)
	}
	s.bar.Set(done)
}

// end ends the current stage's bar.
func (s *stageBars) end() {
	if s.bar != nil {
		s.bar.End()
		s.bar = nil
	}
}
