package filter

// triggerBits holds, per phrase (bit i for phrase i), whether a word of its
// first trigger group and of its second group occurs.
type triggerBits struct {
	first, second uint64
	secret        bool // a word that names a credential ("password", "token")
}

// triggerIndex maps a word to the phrases it triggers.
type triggerIndex struct {
	words  map[string]triggerBits
	paired uint64 // phrases with a second group
}

// newTriggerIndex indexes the phrases' trigger words (phrase i is bit i;
// there are at most 64) and the words that name credentials.
func newTriggerIndex(ps []phrase, secretWords []string) *triggerIndex {
	ti := &triggerIndex{words: map[string]triggerBits{}}
	for i, p := range ps {
		for _, w := range p.triggers {
			tb := ti.words[w]
			tb.first |= 1 << i
			ti.words[w] = tb
		}
		for _, w := range p.also {
			tb := ti.words[w]
			tb.second |= 1 << i
			ti.words[w] = tb
		}
		if p.also != nil {
			ti.paired |= 1 << i
		}
	}
	for _, w := range secretWords {
		tb := ti.words[w]
		tb.secret = true
		ti.words[w] = tb
	}
	return ti
}

// eligible lists the phrases whose trigger groups all occur.
func (ti *triggerIndex) eligible(b triggerBits) uint64 {
	return b.first &^ (ti.paired &^ b.second)
}
