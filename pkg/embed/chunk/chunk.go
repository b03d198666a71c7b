// Package chunk splits long text into overlapping chunks on sentence
// boundaries, so each chunk fits an embedding model's input and a fact that
// straddles a boundary is still whole in one of the two chunks (Nebo's
// chunker: 1600 characters, ~400 tokens, with 320 characters of overlap).
//
// Lengths are counted in characters (runes); offsets are byte offsets into
// the original string, so text[c.Start:c.End] == c.Text.
package chunk

import "unicode/utf8"

// Chunk is one piece of the original text.
type Chunk struct {
	Text  string // text[Start:End], unmodified (trailing whitespace kept)
	Start int    // byte offset of the first byte in the original text
	End   int    // byte offset just past the last byte
	Index int    // position in the sequence, from 0
}

// Splitter splits text with fixed limits; it is immutable and safe for
// concurrent use.
type Splitter struct {
	max     int
	overlap int
	fits    func(string) bool
}

// New returns a Splitter for cfg.
func New(cfg Config) (*Splitter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Splitter{max: cfg.MaxChars, overlap: cfg.OverlapChars, fits: cfg.Fits}, nil
}

// Split splits text with the default limits (1600 characters, 320 overlap).
func Split(text string) []Chunk {
	return (&Splitter{max: DefaultMaxChars, overlap: DefaultOverlapChars}).Split(text)
}

// Split returns the chunks of text. Together they cover it: the first starts
// at 0, the last ends at len(text), and each starts no later than the
// previous one ends. Every chunk has at most MaxChars characters and shares
// at most OverlapChars characters with the previous one; the shared part is
// made of whole sentences (or, inside an over-long sentence, whole words), so
// there is none when the previous chunk's last sentence alone is longer than
// OverlapChars. Chunks end at sentence boundaries when a sentence fits, at
// word boundaries otherwise; only a single word longer than MaxChars is cut
// inside. Empty text has no chunks. With Config.Fits, when the model would
// truncate a chunk, text is split again with both limits a quarter smaller,
// until every chunk fits (or the limit reaches minFitChars): the chunks keep
// every property above, under the smaller limits.
func (s *Splitter) Split(text string) []Chunk {
	cs := s.split(text)
	if s.fits == nil {
		return cs
	}
	for cur := s; cur.max > minFitChars && !s.allFit(cs); {
		m := max(minFitChars, cur.max*3/4)
		cur = &Splitter{max: m, overlap: min(cur.overlap, m/5)}
		cs = cur.split(text)
	}
	return cs
}

// minFitChars is the shortest limit fitting goes down to: a text that
// short the model truncates only when it is about one token per character
// (a hex dump), and splitting further would only make noise.
const minFitChars = 64

func (s *Splitter) allFit(cs []Chunk) bool {
	for _, c := range cs {
		if !s.fits(c.Text) {
			return false
		}
	}
	return true
}

// split is Split without fitting.
func (s *Splitter) split(text string) []Chunk {
	if text == "" {
		return nil
	}
	if utf8.RuneCountInString(text) <= s.max {
		return []Chunk{{Text: text, Start: 0, End: len(text)}}
	}
	ps := pieces(text, s.max)
	var out []Chunk
	for i := 0; i < len(ps); {
		// Each piece fits on its own, so a chunk always takes at least one.
		j, size := i, 0
		for j < len(ps) && size+ps[j].runes <= s.max {
			size += ps[j].runes
			j++
		}
		start, end := ps[i].start, ps[j-1].end
		out = append(out, Chunk{Text: text[start:end], Start: start, End: end, Index: len(out)})
		if j == len(ps) {
			break
		}
		i = s.overlapStart(ps, i, j)
	}
	return out
}

// overlapStart picks where the chunk after ps[i:j] begins: the earliest
// piece such that the pieces from it to j-1 fit in the overlap, and the next
// chunk still has room for piece j. It is always after i, so splitting
// advances.
func (s *Splitter) overlapStart(ps []piece, i, j int) int {
	k, ov := j, 0
	for k-1 > i && ov+ps[k-1].runes <= s.overlap {
		ov += ps[k-1].runes
		k--
	}
	for k < j && ov+ps[j].runes > s.max {
		ov -= ps[k].runes
		k++
	}
	return k
}
