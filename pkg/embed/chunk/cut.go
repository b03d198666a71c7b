package chunk

import "unicode"

// Kinds of places to cut an over-long sentence, worst first.
const (
	cutNone   = iota
	cutSpace  // next to whitespace, splitting a run of it
	cutCJK    // between characters of a script without spaces
	cutWord   // after a run of whitespace
	cutClause // after a clause mark (, ; : —) and its whitespace
	cutLine   // after a line break
	cutKinds
)

// cut returns the byte length of the first piece of seg: len(seg) when seg
// has at most max characters, otherwise the best cut within the first max
// characters. The best cut is the latest one of the best kind found in the
// second half of that window, so pieces stay long; failing that the latest
// cut of any kind; failing that (one word longer than max) exactly max
// characters.
func cut(seg string, max int) int {
	var last [cutKinds]int
	half := 0 // byte offset of the window's middle
	var prev, beforeSpace rune
	runNL := false // the whitespace run before the boundary holds a newline
	n := 0
	for off, r := range seg {
		if n == (max+1)/2 {
			half = off
		}
		if n > 0 {
			last[kindAt(prev, r, beforeSpace, runNL)] = off
		}
		if n == max {
			return choose(last, half, off)
		}
		if unicode.IsSpace(r) {
			if !unicode.IsSpace(prev) || n == 0 {
				beforeSpace, runNL = prev, false
			}
			runNL = runNL || r == '\n'
		}
		prev = r
		n++
	}
	return len(seg)
}

// kindAt classifies the boundary between prev and r.
func kindAt(prev, r, beforeSpace rune, runNL bool) int {
	ps, rs := unicode.IsSpace(prev), unicode.IsSpace(r)
	switch {
	case ps && !rs && runNL:
		return cutLine
	case ps && !rs && isClause(beforeSpace):
		return cutClause
	case !ps && !rs && isClause(prev) && isCJK(prev):
		return cutClause
	case ps && !rs:
		return cutWord
	case !ps && !rs && (isCJK(prev) || isCJK(r)):
		return cutCJK
	case ps || rs:
		return cutSpace
	}
	return cutNone
}

func choose(last [cutKinds]int, half, hard int) int {
	for k := cutKinds - 1; k > cutNone; k-- {
		if last[k] >= half && last[k] > 0 {
			return last[k]
		}
	}
	best := 0
	for k := cutNone + 1; k < cutKinds; k++ {
		best = max(best, last[k])
	}
	if best > 0 {
		return best
	}
	return hard
}
