package promptctx

import (
	"fmt"

	"github.com/tiktoken-go/tokenizer/codec"
)

// Tokenizer counts the tokens a text costs in a prompt.
type Tokenizer interface {
	Count(text string) int
}

// bpe is OpenAI's cl100k_base byte-pair encoding. Its vocabulary is
// compiled into the binary (github.com/tiktoken-go/tokenizer), so nothing is
// fetched at run time.
type bpe struct {
	codec *codec.Codec
}

// NewBPE returns the cl100k_base tokenizer. It is safe for concurrent use.
func NewBPE() (Tokenizer, error) {
	c := codec.NewCl100kBase()
	if n, err := c.Count("hello world"); err != nil || n != 2 {
		return nil, fmt.Errorf("load cl100k_base: self-check counted %d tokens for %q (%v)", n, "hello world", err)
	}
	return bpe{codec: c}, nil
}

// Count returns the number of tokens of text. The codec only fails on
// invalid UTF-8 in strict mode, which is not used; should it fail anyway,
// the byte length is returned: byte-level BPE never needs more tokens than
// bytes, so budgets stay safe.
func (b bpe) Count(text string) int {
	n, err := b.codec.Count(text)
	if err != nil {
		return len(text)
	}
	return n
}

// Name is the encoding's name, reported with every answer.
func (b bpe) Name() string { return b.codec.GetName() }
