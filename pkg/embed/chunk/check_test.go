package chunk

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// checkChunks verifies the invariants Split promises for every input: the
// chunks are text's own bytes, cover it end to end, advance, stay within
// max characters and overlap by at most overlap characters.
func checkChunks(text string, cs []Chunk, max, overlap int) error {
	if text == "" {
		if len(cs) != 0 {
			return fmt.Errorf("empty text gave %d chunks", len(cs))
		}
		return nil
	}
	if len(cs) == 0 {
		return fmt.Errorf("no chunks for %d bytes", len(text))
	}
	if cs[0].Start != 0 {
		return fmt.Errorf("first chunk starts at %d", cs[0].Start)
	}
	if end := cs[len(cs)-1].End; end != len(text) {
		return fmt.Errorf("last chunk ends at %d of %d", end, len(text))
	}
	for i, c := range cs {
		if c.Index != i {
			return fmt.Errorf("chunk %d has index %d", i, c.Index)
		}
		if c.Start < 0 || c.End > len(text) || c.Start >= c.End {
			return fmt.Errorf("chunk %d: bad span [%d,%d)", i, c.Start, c.End)
		}
		if c.Text != text[c.Start:c.End] {
			return fmt.Errorf("chunk %d: text differs from original[%d:%d]", i, c.Start, c.End)
		}
		if utf8.ValidString(text) && !utf8.ValidString(c.Text) {
			return fmt.Errorf("chunk %d cuts a rune", i)
		}
		if n := utf8.RuneCountInString(c.Text); n > max {
			return fmt.Errorf("chunk %d has %d characters, limit %d", i, n, max)
		}
		if i == 0 {
			continue
		}
		p := cs[i-1]
		if c.Start > p.End {
			return fmt.Errorf("gap between chunk %d (ends %d) and %d (starts %d)", i-1, p.End, i, c.Start)
		}
		if c.Start <= p.Start || c.End <= p.End {
			return fmt.Errorf("chunk %d [%d,%d) does not advance past %d [%d,%d)", i, c.Start, c.End, i-1, p.Start, p.End)
		}
		if ov := utf8.RuneCountInString(text[c.Start:p.End]); ov > overlap {
			return fmt.Errorf("chunks %d and %d overlap by %d characters, limit %d", i-1, i, ov, overlap)
		}
	}
	return nil
}

// atWordBoundary reports whether cutting text at byte offset i splits no
// word: whitespace is on one side, or a character of a script written
// without spaces.
func atWordBoundary(text string, i int) bool {
	if i <= 0 || i >= len(text) {
		return true
	}
	prev, _ := utf8.DecodeLastRuneInString(text[:i])
	next, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsSpace(prev) || unicode.IsSpace(next) || isCJK(prev) || isCJK(next)
}
