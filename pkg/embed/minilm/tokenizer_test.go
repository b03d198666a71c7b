package minilm

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

func testTokenizer(t testing.TB) *tokenizer {
	t.Helper()
	tok, err := newTokenizer([]byte(tokenizerFileData))
	if err != nil {
		t.Fatalf("tokenizer: %v", err)
	}
	return tok
}

// Ids checked by hand against vocab in tokenizer.json and against the
// reference tokenizer (Hugging Face tokenizers 0.23).
func TestTokenizerCases(t *testing.T) {
	tok := testTokenizer(t)
	cases := []struct {
		name, text string
		want       []int32
	}{
		{"empty", "", []int32{101, 102}},
		{"only spaces", "   ", []int32{101, 102}},
		{"punctuation", "Hello, World!", []int32{101, 7592, 1010, 2088, 999, 102}}, // hello , world !
		{"golden query", "How do I build the project?", []int32{101, 2129, 2079, 1045, 3857, 1996, 2622, 1029, 102}},
		// héllo→hello, wörld→world, ÇA→ca, naïve→naive, café→cafe
		{"accents", "Héllo wörld, ÇA VA? naïve café", []int32{101, 7592, 2088, 1010, 6187, 12436, 1029, 15743, 7668, 102}},
		{"combining mark", "e\u0301 (combining)", []int32{101, 1041, 1006, 11566, 1007, 102}},
		// one token per ideograph; 爱 and 门 are not in the vocabulary
		{"cjk", "我爱北京天安门", []int32{101, 1855, 100, 1781, 1755, 1811, 1820, 100, 102}},
		// ideographs split; the kana run is one word: の ##テ ##キ ##ス ##ト
		{"japanese", "日本語のテキスト", []int32{101, 1864, 1876, 1950, 1671, 30239, 30227, 30233, 30240, 102}},
		{"wordpiece", "unaffable", []int32{101, 14477, 20961, 3468, 102}}, // una ##ffa ##ble
		{"unknown word", "hello😀world 🥰", []int32{101, 100, 100, 102}},
		{"ascii symbols", "$5.00 ~ 10% @home #tag", []int32{101, 1002, 1019, 1012, 4002, 1066, 2184, 1003, 1030, 2188, 1001, 6415, 102}},
		{"apostrophe and dash", "don't stop-believing!!!", []int32{101, 2123, 1005, 1056, 2644, 1011, 8929, 999, 999, 999, 102}},
		// control characters and the soft hyphen vanish, whitespace splits
		{"cleaning", "tab\there\nnewline\x00nul\u00adsoft", []int32{101, 21628, 2182, 2047, 4179, 11231, 4877, 15794, 102}},
		{"unicode punctuation", "Ünïcödé — “quotes” …", []int32{101, 27260, 1517, 1523, 16614, 1524, 1529, 102}},
		{"special tokens in text", "[CLS] hi [SEP][MASK]x", []int32{101, 101, 7632, 102, 103, 1060, 102}},
		{"100 chars is a word", "a" + strings.Repeat("b", 99), append(append([]int32{101, 11113}, repeatID(10322, 49)...), 102)},
		{"101 chars is unknown", "a" + strings.Repeat("b", 100), []int32{101, 100, 102}},
		{"invalid utf-8 dropped", "ab\xffcd", []int32{101, 5925, 2094, 102}}, // as "abcd": abc ##d
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := tok.encode(c.text); !slices.Equal(got, c.want) {
				t.Errorf("encode(%q)\n got %v\nwant %v", c.text, got, c.want)
			}
		})
	}
}

func repeatID(id int32, n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = id
	}
	return out
}

func TestTokenizerTruncates(t *testing.T) {
	tok := testTokenizer(t)
	cases := []struct {
		name string
		text string
	}{
		{"words", strings.Repeat("hello world ", 300)},
		{"special token at the limit", strings.Repeat("hi ", 254) + "[SEP] more"},
		{"long words", strings.Repeat("unaffable ", 200)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := tok.encode(c.text)
			if len(got) != maxTokens {
				t.Fatalf("%d tokens, want %d", len(got), maxTokens)
			}
			if got[0] != 101 || got[maxTokens-1] != 102 {
				t.Errorf("first %d, last %d; want [CLS] 101 and [SEP] 102", got[0], got[maxTokens-1])
			}
			full := tok.encode(c.text[:len(c.text)/2])
			if n := min(len(full), maxTokens) - 1; !slices.Equal(got[:n], full[:n]) {
				t.Errorf("truncated ids are not a prefix of the untruncated ones")
			}
		})
	}
	// 300 words of one piece each: [CLS] + 254 words + [SEP].
	got := tok.encode(strings.Repeat("hello ", 300))
	if got[254] != 7592 {
		t.Errorf("token 254 = %d, want hello (7592)", got[254])
	}
}

// TestTokenizerReference replays ids produced by the reference tokenizer
// (Hugging Face tokenizers 0.23 with this tokenizer.json, truncation 256)
// for random mixes of every character class and for a sample of all code
// points up to U+2FFFF.
func TestTokenizerReference(t *testing.T) {
	tok := testTokenizer(t)
	f, err := os.Open("testdata/tokenizer_reference.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var row [2]json.RawMessage
		var text string
		var want []int32
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		if err := json.Unmarshal(row[0], &text); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		if err := json.Unmarshal(row[1], &want); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		n++
		if got := tok.encode(text); !slices.Equal(got, want) {
			t.Errorf("line %d: encode(%q)\n got %v\nwant %v", n, text, got, want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 800 {
		t.Fatalf("only %d reference cases read", n)
	}
}

func TestTokenizerRejectsUnsupportedConfig(t *testing.T) {
	cases := []struct {
		name, from, to string
	}{
		{"normalizer", `"type":"BertNormalizer"`, `"type":"NFKC"`},
		{"no lowercase", `"lowercase":true`, `"lowercase":false`},
		{"pre-tokenizer", `"type":"BertPreTokenizer"`, `"type":"Whitespace"`},
		{"model", `"type":"WordPiece","unk_token"`, `"type":"BPE","unk_token"`},
		{"not json", `{`, `[`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := strings.Replace(tokenizerFileData, c.from, c.to, 1)
			if data == tokenizerFileData {
				t.Fatalf("%q not found in tokenizer.json", c.from)
			}
			if _, err := newTokenizer([]byte(data)); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func BenchmarkTokenize(b *testing.B) {
	tok := testTokenizer(b)
	for b.Loop() {
		for _, s := range shortSentences {
			tok.encode(s)
		}
	}
}
