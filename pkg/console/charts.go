package console

import (
	"fmt"
	"html/template"
	"math"
	"strings"
	"time"
)

// chartHTML is an SVG drawn here. Every text in it goes through esc: the
// labels are names from the data (tenants, models, memory ids).
type chartHTML = template.HTML

func esc(s string) string { return template.HTMLEscapeString(s) }

// layers in lifecycle order, each with its colour class.
var layers = []string{"buffer", "working", "core"}

// layerBar is a tenant's memories by layer as one stacked bar.
func layerBar(counts map[string]int) chartHTML {
	total := 0
	for _, l := range layers {
		total += counts[l]
	}
	var b strings.Builder
	b.WriteString(`<svg class="bar" viewBox="0 0 200 14" preserveAspectRatio="none" role="img" aria-label="`)
	var parts []string
	for _, l := range layers {
		parts = append(parts, fmt.Sprintf("%s %d", l, counts[l]))
	}
	b.WriteString(esc("by layer: " + strings.Join(parts, ", ")))
	b.WriteString(`">`)
	if total == 0 {
		b.WriteString(`<rect class="empty" x="0" y="0" width="200" height="14"/>`)
	}
	x := 0.0
	for i, l := range layers {
		if counts[l] == 0 {
			continue
		}
		w := 200 * float64(counts[l]) / float64(total)
		fmt.Fprintf(&b, `<rect class="c%d" x="%.2f" y="0" width="%.2f" height="14"><title>%s: %d</title></rect>`, i, x, w, esc(l), counts[l])
		x += w
	}
	b.WriteString(`</svg>`)
	return chartHTML(b.String())
}

// series is one stacked part of a bar chart.
type series struct {
	Name   string
	Values []float64
}

// barChart draws stacked columns, one per label, with a y axis, a legend
// and a tooltip per part.
func barChart(title string, labels []string, ss []series, unit string) chartHTML {
	const w, h, left, bottom, top = 640.0, 220.0, 56.0, 28.0, 10.0
	maxV := 0.0
	for i := range labels {
		sum := 0.0
		for _, s := range ss {
			sum += s.Values[i]
		}
		maxV = math.Max(maxV, sum)
	}
	scale := niceCeil(maxV)
	var b strings.Builder
	fmt.Fprintf(&b, `<figure class="chart"><figcaption>%s</figcaption><svg viewBox="0 0 %.0f %.0f" role="img" aria-label="%s">`, esc(title), w, h+20, esc(title))
	plotH := h - bottom - top
	for i := 0; i <= 4; i++ {
		y := top + plotH - plotH*float64(i)/4
		fmt.Fprintf(&b, `<line class="grid" x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f"/><text class="axis" x="%.0f" y="%.1f" text-anchor="end">%s</text>`,
			left, y, w, y, left-6, y+4, esc(compact(scale*float64(i)/4)))
	}
	if len(labels) > 0 {
		slot := (w - left) / float64(len(labels))
		bw := math.Min(48, slot*0.7)
		for i, l := range labels {
			x := left + slot*float64(i) + (slot-bw)/2
			y := top + plotH
			for j, s := range ss {
				v := s.Values[i]
				if v <= 0 || scale == 0 {
					continue
				}
				bh := plotH * v / scale
				y -= bh
				fmt.Fprintf(&b, `<rect class="c%d" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s · %s: %s %s</title></rect>`,
					j%8, x, y, bw, bh, esc(l), esc(s.Name), esc(compact(v)), esc(unit))
			}
			fmt.Fprintf(&b, `<text class="axis" x="%.1f" y="%.0f" text-anchor="middle">%s</text>`, x+bw/2, h-bottom+16, esc(l))
		}
	}
	// Legend under the plot.
	x := left
	for j, s := range ss {
		fmt.Fprintf(&b, `<rect class="c%d" x="%.0f" y="%.0f" width="10" height="10"/><text class="legend" x="%.0f" y="%.0f">%s</text>`,
			j%8, x, h+4, x+14, h+13, esc(s.Name))
		x += 24 + 7*float64(len([]rune(s.Name)))
	}
	b.WriteString(`</svg></figure>`)
	return chartHTML(b.String())
}

// niceCeil rounds up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func compact(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.0fk", v/1e3)
	case v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// span is one version's two intervals on the timeline.
type span struct {
	Label                string
	ValidFrom, ValidTo   time.Time // ValidTo zero: still valid
	RecordFrom, RecordTo time.Time // RecordTo zero: still current
	Current              bool
}

// timeline draws a version chain: per version a valid-time bar (when it
// was true in the world) above a record-time bar (when Recollect held
// it), on one time axis ending now.
func timeline(spans []span, now time.Time) chartHTML {
	if len(spans) == 0 {
		return ""
	}
	lo, hi := now, now
	for _, s := range spans {
		for _, t := range []time.Time{s.ValidFrom, s.RecordFrom, s.ValidTo, s.RecordTo} {
			if !t.IsZero() && t.Before(lo) {
				lo = t
			}
			if t.After(hi) {
				hi = t
			}
		}
	}
	if !hi.After(lo) {
		lo = hi.Add(-time.Hour)
	}
	const w, left, row = 760.0, 150.0, 34.0
	h := 30 + row*float64(len(spans))
	x := func(t time.Time) float64 {
		return left + (w-left-10)*float64(t.Sub(lo))/float64(hi.Sub(lo))
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<figure class="chart"><figcaption>Version chain: valid time (when it was true) and record time (when Recollect held it)</figcaption><svg viewBox="0 0 %.0f %.0f" role="img" aria-label="version timeline">`, w, h)
	for i, s := range spans {
		y := 8 + row*float64(i)
		cls := ""
		if s.Current {
			cls = " current"
		}
		fmt.Fprintf(&b, `<text class="axis%s" x="0" y="%.0f">%s</text>`, cls, y+15, esc(short(20, s.Label)))
		bar := func(from, to time.Time, dy float64, kind string) {
			if from.IsZero() {
				from = lo
			}
			end := to
			if end.IsZero() {
				end = hi
			}
			x1, x2 := x(from), x(end)
			if x2-x1 < 2 {
				x2 = x1 + 2
			}
			fmt.Fprintf(&b, `<rect class="%s%s" x="%.1f" y="%.1f" width="%.1f" height="10"><title>%s %s → %s</title></rect>`,
				kind, cls, x1, y+dy, x2-x1, kind, esc(when(from)), esc(openEnd(to)))
		}
		bar(s.ValidFrom, s.ValidTo, 2, "valid")
		bar(s.RecordFrom, s.RecordTo, 14, "record")
	}
	fmt.Fprintf(&b, `<text class="axis" x="%.0f" y="%.0f">%s</text><text class="axis" x="%.0f" y="%.0f" text-anchor="end">%s</text>`,
		left, h-4, esc(when(lo)), w-10, h-4, esc(when(hi)))
	b.WriteString(`</svg></figure>`)
	return chartHTML(b.String())
}

func openEnd(t time.Time) string {
	if t.IsZero() {
		return "now"
	}
	return when(t)
}
