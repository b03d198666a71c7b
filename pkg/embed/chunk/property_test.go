package chunk

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// randomText mixes Latin words (at most 12 characters), CJK runs, sentence
// and clause punctuation of both scripts, line and paragraph breaks, and
// long stretches without any punctuation.
func randomText(rng *rand.Rand, chars int) string {
	var b strings.Builder
	han := []rune("的一是不了人我在有他这中大来上个国到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坏兴切推爸随既")
	kana := []rune("あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん")
	for utf8.RuneCountInString(b.String()) < chars {
		switch k := rng.IntN(20); {
		case k < 11:
			n := 1 + rng.IntN(12)
			for range n {
				b.WriteByte(byte('a' + rng.IntN(26)))
			}
			b.WriteByte(' ')
		case k < 13:
			pool := han
			if rng.IntN(2) == 0 {
				pool = kana
			}
			for range 1 + rng.IntN(30) {
				b.WriteRune(pool[rng.IntN(len(pool))])
			}
		case k < 16:
			b.WriteString([]string{". ", "! ", "? ", "。", "！", "？", `." `, "」。", "... "}[rng.IntN(9)])
		case k < 18:
			b.WriteString([]string{", ", "; ", "，", "、", " — "}[rng.IntN(5)])
		default:
			b.WriteString([]string{"\n", "\n\n", "\n \n", "3.14 ", "e.g. "}[rng.IntN(5)])
		}
	}
	return b.String()
}

// TestSplitProperties checks, for many random texts and limits, that chunks
// cover the text, fit the limit, overlap within bounds, never split a word
// (no generated word is longer than the limit) and end on a sentence
// boundary unless the sentence itself is longer than the limit.
func TestSplitProperties(t *testing.T) {
	configs := []Config{DefaultConfig(), {MaxChars: 200, OverlapChars: 40}, {MaxChars: 40, OverlapChars: 10}, {MaxChars: 20, OverlapChars: 0}, {MaxChars: 13, OverlapChars: 12}}
	for _, cfg := range configs {
		t.Run(fmt.Sprintf("max%d_overlap%d", cfg.MaxChars, cfg.OverlapChars), func(t *testing.T) {
			s, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(cfg.MaxChars), uint64(cfg.OverlapChars)))
			multi := 0
			for iter := range 300 {
				text := randomText(rng, rng.IntN(cfg.MaxChars*6))
				cs := s.Split(text)
				if err := checkChunks(text, cs, cfg.MaxChars, cfg.OverlapChars); err != nil {
					t.Fatalf("text %d (%q): %v", iter, text, err)
				}
				if len(cs) > 1 {
					multi++
				}
				ends := sentenceEnds(text)
				for i, c := range cs {
					if !atWordBoundary(text, c.Start) || !atWordBoundary(text, c.End) {
						t.Fatalf("text %d: chunk %d [%d,%d) splits a word: %q", iter, i, c.Start, c.End, c.Text)
					}
					if i == len(cs)-1 {
						continue
					}
					if k, found := slices.BinarySearch(ends, c.End); !found {
						sentStart := 0
						if k > 0 {
							sentStart = ends[k-1]
						}
						if n := utf8.RuneCountInString(text[sentStart:ends[k]]); n <= cfg.MaxChars {
							t.Fatalf("text %d: chunk %d ends inside a sentence of %d characters that fits: %q", iter, i, n, text[sentStart:ends[k]])
						}
					}
				}
			}
			if multi < 100 {
				t.Fatalf("only %d of 300 texts were split into several chunks; the generator is too easy", multi)
			}
		})
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("Hello there. General Kenobi! You are a bold one.", 10, 3)
	f.Add("今天天气很好。我们去公园。然后回家吃饭。", 5, 2)
	f.Add(strings.Repeat("x", 100), 7, 6)
	f.Add("a\n\nb\n\n\n\nc. . . ! ?", 2, 1)
	f.Add("\xff\xfe invalid utf8 . bytes", 4, 1)
	f.Fuzz(func(t *testing.T, text string, max, overlap int) {
		cfg := Config{MaxChars: 1 + abs(max)%300, OverlapChars: abs(overlap) % 300}
		cfg.OverlapChars %= cfg.MaxChars
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkChunks(text, s.Split(text), cfg.MaxChars, cfg.OverlapChars); err != nil {
			t.Fatal(err)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}

// With Fits, every chunk fits the model (here: at most 60 bytes, a stand-in
// for a token count) and the chunks keep Split's properties under the
// limits the fitting settled on.
func TestSplitFitsTheModel(t *testing.T) {
	fits := func(s string) bool { return len(s) <= 60 }
	s, err := New(Config{MaxChars: 400, OverlapChars: 80, Fits: fits})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	refit := 0
	for iter := range 200 {
		text := randomText(rng, rng.IntN(2000))
		cs := s.Split(text)
		if err := checkChunks(text, cs, 400, 80); err != nil {
			t.Fatalf("text %d (%q): %v", iter, text, err)
		}
		for i, c := range cs {
			if !fits(c.Text) && utf8.RuneCountInString(c.Text) > minFitChars {
				t.Fatalf("text %d: chunk %d (%d bytes) does not fit: %q", iter, i, len(c.Text), c.Text)
			}
		}
		if len(cs) > len((&Splitter{max: 400, overlap: 80}).Split(text)) {
			refit++
		}
	}
	if refit < 50 {
		t.Fatalf("only %d of 200 texts needed smaller chunks; the test proves nothing", refit)
	}
	// Text that fits is split exactly as without Fits.
	short := "One sentence. Another one."
	if got := s.Split(short); len(got) != 1 || got[0].Text != short {
		t.Fatalf("short text split into %q", texts(got))
	}
}
