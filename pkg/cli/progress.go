package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress is a progress bar on w when w is a terminal, and does nothing
// otherwise: pipes, files and CI logs stay quiet.
type progress struct{ bar *progressbar.ProgressBar }

// newProgress starts a bar of max units (-1: unknown, a spinner with a
// count); unit "bytes" shows sizes, anything else is the name of the items.
func newProgress(w io.Writer, max int64, desc, unit string) *progress {
	if !isTerminal(w) {
		return &progress{}
	}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(max > 0),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
	}
	if unit == "bytes" {
		opts = append(opts, progressbar.OptionShowBytes(true), progressbar.OptionShowTotalBytes(true))
	} else {
		opts = append(opts, progressbar.OptionShowIts(), progressbar.OptionSetItsString(unit))
	}
	return &progress{bar: progressbar.NewOptions64(max, opts...)}
}

// Add counts n more units done.
func (p *progress) Add(n int) {
	if p.bar != nil {
		_ = p.bar.Add(n)
	}
}

// Set moves the bar to n units done.
func (p *progress) Set(n int) {
	if p.bar != nil {
		_ = p.bar.Set(n)
	}
}

// Finish draws the bar complete and ends its line.
func (p *progress) Finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// End ends the bar's line: complete when every unit is done (or the total
// is unknown), left where it stopped otherwise (an error, a run that gave
// up), so that it never shows work as done that was not.
func (p *progress) End() {
	if p.bar == nil {
		return
	}
	if st := p.bar.State(); st.Max < 0 || st.CurrentNum >= st.Max {
		_ = p.bar.Finish()
		return
	}
	_ = p.bar.Exit()
}

// Done ends a bar of unknown total (a spinner) with the total it counted:
// drawn complete as n of n, its line ended.
func (p *progress) Done(n int) {
	if p.bar == nil {
		return
	}
	if n == 0 {
		p.bar.Describe(p.bar.State().Description + " (none)")
		_ = p.bar.Exit()
		return
	}
	p.bar.ChangeMax(n)
	_ = p.bar.Finish()
}

// Reader counts the bytes read from r.
func (p *progress) Reader(r io.Reader) io.Reader {
	if p.bar == nil {
		return r
	}
	return &countingReader{r: r, p: p}
}

type countingReader struct {
	r io.Reader
	p *progress
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.Add(n)
	return n, err
}

// SetTotal changes the number of units the bar counts to (a total learnt,
// or grown, while the work runs).
func (p *progress) SetTotal(n int) {
	if p.bar != nil && p.bar.GetMax() != n {
		p.bar.ChangeMax(n)
	}
}

// Describe changes the text before the bar.
func (p *progress) Describe(desc string) {
	if p.bar != nil {
		p.bar.Describe(desc)
	}
}
