package minilm

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxTokens is the model's sequence limit as used by sentence-transformers
// for all-MiniLM-L6-v2, [CLS] and [SEP] included.
const maxTokens = 256

// tokenizer is the BERT uncased WordPiece tokenizer described by
// tokenizer.json. It is immutable after construction.
type tokenizer struct {
	initial  map[string]int32 // pieces that start a word
	cont     map[string]int32 // "##" pieces, stored without the prefix
	maxPiece int              // longest piece in bytes, bounds the search
	maxChars int              // longer words become [UNK]
	unk      int32
	cls      int32
	sep      int32
	special  []specialToken // matched in the raw text, before normalisation
}

type specialToken struct {
	text string
	id   int32
}

// tokenizerFile is the subset of the Hugging Face tokenizers format this
// package implements; newTokenizer rejects anything else.
type tokenizerFile struct {
	AddedTokens []struct {
		ID         int32  `json:"id"`
		Content    string `json:"content"`
		Normalized bool   `json:"normalized"`
	} `json:"added_tokens"`
	Normalizer struct {
		Type               string `json:"type"`
		CleanText          bool   `json:"clean_text"`
		HandleChineseChars bool   `json:"handle_chinese_chars"`
		StripAccents       *bool  `json:"strip_accents"`
		Lowercase          bool   `json:"lowercase"`
	} `json:"normalizer"`
	PreTokenizer struct {
		Type string `json:"type"`
	} `json:"pre_tokenizer"`
	Model struct {
		Type     string           `json:"type"`
		UnkToken string           `json:"unk_token"`
		Prefix   string           `json:"continuing_subword_prefix"`
		MaxChars int              `json:"max_input_chars_per_word"`
		Vocab    map[string]int32 `json:"vocab"`
	} `json:"model"`
}

func newTokenizer(data []byte) (*tokenizer, error) {
	var f tokenizerFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("decode tokenizer.json: %w", err)
	}
	n := f.Normalizer
	stripAccents := n.StripAccents == nil && n.Lowercase || n.StripAccents != nil && *n.StripAccents
	if n.Type != "BertNormalizer" || !n.CleanText || !n.HandleChineseChars || !n.Lowercase || !stripAccents {
		return nil, fmt.Errorf("tokenizer.json: unsupported normalizer %+v", n)
	}
	if f.PreTokenizer.Type != "BertPreTokenizer" {
		return nil, fmt.Errorf("tokenizer.json: unsupported pre-tokenizer %q", f.PreTokenizer.Type)
	}
	m := f.Model
	if m.Type != "WordPiece" || m.Prefix != "##" || m.MaxChars <= 0 || len(m.Vocab) == 0 {
		return nil, fmt.Errorf("tokenizer.json: unsupported model %s (prefix %q, max chars %d, %d pieces)", m.Type, m.Prefix, m.MaxChars, len(m.Vocab))
	}
	t := &tokenizer{
		initial:  make(map[string]int32, len(m.Vocab)),
		cont:     make(map[string]int32, len(m.Vocab)/5),
		maxChars: m.MaxChars,
	}
	for piece, id := range m.Vocab {
		if id < 0 || int(id) >= vocabSize {
			return nil, fmt.Errorf("tokenizer.json: piece %q has id %d outside the vocabulary", piece, id)
		}
		if rest, ok := strings.CutPrefix(piece, m.Prefix); ok && rest != "" {
			t.cont[rest] = id
		} else {
			t.initial[piece] = id
		}
		t.maxPiece = max(t.maxPiece, len(piece))
	}
	for _, a := range f.AddedTokens {
		if a.Normalized || a.Content == "" {
			return nil, fmt.Errorf("tokenizer.json: unsupported added token %q", a.Content)
		}
		t.special = append(t.special, specialToken{text: a.Content, id: a.ID})
	}
	var ok bool
	if t.unk, ok = m.Vocab[m.UnkToken]; !ok {
		return nil, fmt.Errorf("tokenizer.json: no id for unknown token %q", m.UnkToken)
	}
	if t.cls, ok = m.Vocab["[CLS]"]; !ok {
		return nil, fmt.Errorf("tokenizer.json: no id for [CLS]")
	}
	if t.sep, ok = m.Vocab["[SEP]"]; !ok {
		return nil, fmt.Errorf("tokenizer.json: no id for [SEP]")
	}
	return t, nil
}

// encode returns the token ids of text: [CLS], at most maxTokens-2 pieces,
// [SEP]. Pieces past the limit are dropped, as the reference truncates.
func (t *tokenizer) encode(text string) []int32 {
	ids := make([]int32, 0, min(maxTokens, len(text)/3+8))
	ids = append(ids, t.cls)
	limit := maxTokens - 1
	for text != "" && len(ids) < limit {
		pos, tok := t.nextSpecial(text)
		if pos < 0 {
			ids = t.appendText(ids, text, limit)
			break
		}
		ids = t.appendText(ids, text[:pos], limit)
		if len(ids) < limit {
			ids = append(ids, tok.id)
		}
		text = text[pos+len(tok.text):]
	}
	return append(ids, t.sep)
}

// nextSpecial finds the leftmost, then longest, special token in text.
func (t *tokenizer) nextSpecial(text string) (int, specialToken) {
	best, bestTok := -1, specialToken{}
	for _, s := range t.special {
		i := strings.Index(text, s.text)
		if i < 0 {
			continue
		}
		if best < 0 || i < best || i == best && len(s.text) > len(bestTok.text) {
			best, bestTok = i, s
		}
	}
	return best, bestTok
}

// appendText normalises, splits and WordPiece-encodes text onto ids, up to
// limit ids in all.
func (t *tokenizer) appendText(ids []int32, text string, limit int) []int32 {
	if text == "" {
		return ids
	}
	splitWords(normalize(text), func(word string) bool {
		ids = t.appendWord(ids, word)
		return len(ids) < limit
	})
	if len(ids) > limit {
		ids = ids[:limit]
	}
	return ids
}

// appendWord is WordPiece: greedy longest match first, "##" pieces after
// the first; a word that cannot be covered, or is too long, is one [UNK].
func (t *tokenizer) appendWord(ids []int32, word string) []int32 {
	if utf8.RuneCountInString(word) > t.maxChars {
		return append(ids, t.unk)
	}
	mark := len(ids)
	for start := 0; start < len(word); {
		end := min(len(word), start+t.maxPiece)
		for end < len(word) && !utf8.RuneStart(word[end]) {
			end--
		}
		found := false
		for end > start {
			var id int32
			if start == 0 {
				id, found = t.initial[word[start:end]]
			} else {
				id, found = t.cont[word[start:end]]
			}
			if found {
				ids = append(ids, id)
				break
			}
			_, size := utf8.DecodeLastRuneInString(word[start:end])
			end -= size
		}
		if !found {
			return append(ids[:mark], t.unk)
		}
		start = end
	}
	return ids
}
