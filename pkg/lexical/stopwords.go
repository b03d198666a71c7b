package lexical

// stopwords are English function words, matched before stemming on the
// lowercase word with straight apostrophes. They carry no topic, so they
// neither match nor count towards a document's length; leaving them out
// also keeps the longest posting lists out of the index. Contractions are
// listed whole because the tokenizer keeps an apostrophe inside its word.
var stopwords = setOf(
	"a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
	"are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
	"but", "by", "can", "cannot", "could", "did", "do", "does", "doing", "down", "during", "each",
	"e.g", "etc", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her",
	"here", "hers", "herself", "him", "himself", "his", "how", "i", "i.e", "if", "in", "into",
	"is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not",
	"now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out",
	"over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their",
	"theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through",
	"to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where",
	"which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours",
	"yourself", "yourselves",
	"i'm", "i've", "i'd", "i'll", "you're", "you've", "you'll", "you'd", "he's", "he'd", "he'll",
	"she's", "she'd", "she'll", "it's", "it'd", "it'll", "we're", "we've", "we'd", "we'll",
	"they're", "they've", "they'd", "they'll", "that's", "that'll", "there's", "here's", "what's",
	"who's", "where's", "when's", "why's", "how's", "let's", "isn't", "aren't", "wasn't",
	"weren't", "hasn't", "haven't", "hadn't", "doesn't", "don't", "didn't", "won't", "wouldn't",
	"shan't", "shouldn't", "can't", "couldn't", "mustn't", "mightn't", "needn't", "should've",
	"would've", "could've", "ain't",
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// IsStopword reports whether w, a lowercase word with straight
// apostrophes, is one of the stopwords Terms drops.
func IsStopword(w string) bool { return stopwords[w] }
