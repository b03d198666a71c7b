package chunk

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func mustSplitter(t *testing.T, max, overlap int) *Splitter {
	t.Helper()
	s, err := New(Config{MaxChars: max, OverlapChars: overlap})
	if err != nil {
		t.Fatalf("new splitter: %v", err)
	}
	return s
}

func texts(cs []Chunk) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Text
	}
	return out
}

func TestSplitExamples(t *testing.T) {
	tests := []struct {
		name         string
		text         string
		max, overlap int
		want         []string
	}{
		{name: "empty", text: "", max: 20, overlap: 5, want: nil},
		{name: "short", text: "One sentence.", max: 20, overlap: 5, want: []string{"One sentence."}},
		{name: "exactly the limit", text: strings.Repeat("a", 20), max: 20, overlap: 5, want: []string{strings.Repeat("a", 20)}},
		{
			name: "sentences with overlap", max: 24, overlap: 8,
			text: "Aaa bbb. Ccc ddd. Eee fff. Ggg hhh. Iii.",
			// Each sentence with its space is 9 characters: two fit in 24,
			// three do not, and the overlap (8) holds none of them.
			want: []string{"Aaa bbb. Ccc ddd. ", "Eee fff. Ggg hhh. Iii."},
		},
		{
			name: "overlap of whole sentences", max: 30, overlap: 10,
			text: "One. Two. Three. Four. Five. Six. Seven. Eight.",
			want: []string{"One. Two. Three. Four. Five. ", "Five. Six. Seven. Eight."},
		},
		{
			name: "no sentence punctuation cuts at spaces", max: 12, overlap: 0,
			text: "alpha beta gamma delta epsilon zeta",
			want: []string{"alpha beta ", "gamma delta ", "epsilon zeta"},
		},
		{
			name: "one word longer than the limit is cut inside", max: 10, overlap: 2,
			text: strings.Repeat("x", 25),
			want: []string{strings.Repeat("x", 10), strings.Repeat("x", 10), strings.Repeat("x", 5)},
		},
		{
			name: "CJK terminal punctuation needs no space", max: 8, overlap: 3,
			text: "今天天气很好。我们去公园。然后回家吃饭。",
			want: []string{"今天天气很好。", "我们去公园。", "然后回家吃饭。"},
		},
		{
			name: "CJK without punctuation cuts between characters", max: 5, overlap: 0,
			text: "一二三四五六七八九十十一",
			want: []string{"一二三四五", "六七八九十", "十一"},
		},
		{
			name: "blank line ends a paragraph without punctuation", max: 20, overlap: 0,
			text: "first paragraph\n\nsecond paragraph\n\nthird",
			want: []string{"first paragraph\n\n", "second paragraph\n\n", "third"},
		},
		{
			name: "decimals and inner dots are not sentence ends", max: 24, overlap: 0,
			text: "Pi is 3.14 and e.g. two. Next one here.",
			want: []string{"Pi is 3.14 and e.g. ", "two. Next one here."},
		},
		{
			name: "closing quote stays with its sentence", max: 20, overlap: 0,
			text: `He said "stop." Then he left.`,
			want: []string{`He said "stop." `, "Then he left."},
		},
		{
			name: "clause mark preferred over a later space", max: 30, overlap: 0,
			text: "we went home, and after that we all had dinner together",
			want: []string{"we went home, and after that ", "we all had dinner together"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := mustSplitter(t, tc.max, tc.overlap).Split(tc.text)
			if err := checkChunks(tc.text, cs, tc.max, tc.overlap); err != nil {
				t.Fatal(err)
			}
			if got := texts(cs); !slices.Equal(got, tc.want) {
				t.Fatalf("chunks\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestSplitOffsetsAreBytes(t *testing.T) {
	text := strings.Repeat("Ünïcödé wörds hérè. ", 200) + strings.Repeat("日本語の文です。", 100)
	cs := Split(text)
	if len(cs) < 3 {
		t.Fatalf("got %d chunks of %d characters, want several", len(cs), utf8.RuneCountInString(text))
	}
	if err := checkChunks(text, cs, DefaultMaxChars, DefaultOverlapChars); err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if !utf8.ValidString(c.Text) {
			t.Fatalf("chunk %d [%d,%d) is not valid UTF-8", c.Index, c.Start, c.End)
		}
	}
}

func TestSplitProseOverlapsOnSentences(t *testing.T) {
	var b strings.Builder
	for i := range 60 {
		b.WriteString(strings.Repeat("word ", 8+i%7))
		b.WriteString("end. ")
	}
	text := b.String()
	cs := Split(text)
	if len(cs) < 2 {
		t.Fatalf("got %d chunks, want at least 2", len(cs))
	}
	if err := checkChunks(text, cs, DefaultMaxChars, DefaultOverlapChars); err != nil {
		t.Fatal(err)
	}
	for i, c := range cs {
		if i > 0 {
			if !strings.HasSuffix(text[:c.Start], "end. ") {
				t.Errorf("chunk %d starts mid-sentence: %q", i, text[max(0, c.Start-10):c.Start+10])
			}
			if ov := cs[i-1].End - c.Start; ov <= 0 {
				t.Errorf("chunks %d and %d do not overlap", i-1, i)
			}
		}
		if i < len(cs)-1 && !strings.HasSuffix(c.Text, "end. ") {
			t.Errorf("chunk %d ends mid-sentence: %q", i, c.Text[len(c.Text)-10:])
		}
	}
}

func TestSplitLongSentenceAsLastPieceLeavesNoOverlap(t *testing.T) {
	// The sentence ending the first chunk is longer than the overlap, so
	// the second chunk starts right after it.
	long := strings.Repeat("b", 15) + ". "
	text := "Aa. " + long + "Cc dd ee ff."
	s := mustSplitter(t, 24, 10)
	cs := s.Split(text)
	if err := checkChunks(text, cs, 24, 10); err != nil {
		t.Fatal(err)
	}
	want := []string{"Aa. " + long, "Cc dd ee ff."}
	if got := texts(cs); !slices.Equal(got, want) {
		t.Fatalf("chunks\n got %q\nwant %q", got, want)
	}
}

func TestSplitterDefaultsMatchSplit(t *testing.T) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 120)
	s := mustSplitter(t, DefaultMaxChars, DefaultOverlapChars)
	if a, b := s.Split(text), Split(text); !slices.Equal(a, b) {
		t.Fatalf("Split and the default Splitter differ: %d vs %d chunks", len(a), len(b))
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"defaults", DefaultConfig(), true},
		{"no overlap", Config{MaxChars: 10, OverlapChars: 0}, true},
		{"zero max", Config{MaxChars: 0}, false},
		{"negative overlap", Config{MaxChars: 10, OverlapChars: -1}, false},
		{"overlap equal to max", Config{MaxChars: 10, OverlapChars: 10}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if (err == nil) != tc.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tc.ok)
			}
			if _, nerr := New(tc.cfg); (nerr == nil) != tc.ok {
				t.Fatalf("New() = %v, want ok=%v", nerr, tc.ok)
			}
		})
	}
}

func TestEmbedText(t *testing.T) {
	tests := []struct {
		name, key, content string
		short              int
		want               string
	}{
		{"short gets the key", "user/editor", "prefers vim", 300, "user/editor: prefers vim"},
		{"no key", "", "prefers vim", 300, "prefers vim"},
		{"long is content alone", "k", strings.Repeat("a", 301), 300, strings.Repeat("a", 301)},
		{"limit is inclusive", "k", strings.Repeat("a", 300), 300, "k: " + strings.Repeat("a", 300)},
		{"characters not bytes", "k", strings.Repeat("é", 300), 300, "k: " + strings.Repeat("é", 300)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := EmbedText(tc.key, tc.content, tc.short); got != tc.want {
				t.Fatalf("EmbedText = %q, want %q", got, tc.want)
			}
		})
	}
}
