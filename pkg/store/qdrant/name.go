package qdrant

import (
	"fmt"
	"strings"
)

// maxPrefixLen leaves room for the model and dims in Qdrant's 255-byte
// collection names.
const maxPrefixLen = 64

// maxModelLen caps the model part of a collection name.
const maxModelLen = 128

// CollectionName is the collection holding memories embedded by model at
// dim dimensions: prefix + the model lowercased with every run of other
// characters than letters, digits, _ and - turned into one "_" + "_" + dim.
// "sentence-transformers/all-MiniLM-L6-v2", 384 → "recollect_sentence-transformers_all-minilm-l6-v2_384".
func CollectionName(prefix, model string, dim int) string {
	var b strings.Builder
	sep := false
	for _, r := range strings.ToLower(strings.TrimSpace(model)) {
		if nameRune(r) {
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			sep = false
			b.WriteRune(r)
			continue
		}
		sep = true
	}
	m := b.String()
	if len(m) > maxModelLen {
		m = m[:maxModelLen]
	}
	if m == "" {
		m = "model"
	}
	return fmt.Sprintf("%s%s_%d", prefix, m, dim)
}

// nameRune reports whether r may appear in a collection name as is.
func nameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}
