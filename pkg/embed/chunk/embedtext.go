package chunk

import "unicode/utf8"

// EmbedText is the text embedded for a memory's content. A short memory (at
// most short characters) is embedded as "key: content": the key adds the
// topic words a query is likely to use, which a one-line fact often lacks.
// A longer memory, or one without a key, is embedded as its content alone;
// the key would dilute it, and content longer than a chunk is embedded
// chunk by chunk (Split) instead of through this.
func EmbedText(key, content string, short int) string {
	if key != "" && utf8.RuneCountInString(content) <= short {
		return key + ": " + content
	}
	return content
}
