package filter

// Word tables for grounding. They are read-only after package
// initialisation.

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// stopWords carry no topic, so grounding does not count them. Negators and
// frequency adverbs are here too: a rewrite may say "never" for "don't
// ever", and the polarity check, not the overlap, judges negation.
var stopWords = setOf(
	"a", "an", "the", "and", "or", "but", "nor", "so", "yet", "to", "of", "in", "on", "at", "by", "for",
	"from", "with", "into", "onto", "over", "under", "about", "as", "than", "then", "that", "this",
	"these", "those", "it", "its", "it's", "is", "are", "was", "were", "be", "been", "being", "am",
	"do", "does", "did", "done", "doing", "i", "me", "my", "mine", "myself", "you", "your", "yours",
	"yourself", "we", "us", "our", "ours", "ourselves", "they", "them", "their", "theirs", "themselves",
	"he", "him", "his", "himself", "she", "her", "hers", "herself", "what", "which", "who", "whom",
	"whose", "there", "here", "when", "where", "why", "how", "all", "any", "both", "each", "either",
	"neither", "some", "such", "no", "not", "never", "nothing", "none", "only", "own", "same", "too",
	"very", "just", "also", "really", "quite", "rather", "ever", "always", "usually", "often",
	"sometimes", "generally", "typically", "normally", "mostly", "still", "already", "even", "much",
	"more", "most", "less", "many", "please", "will", "would", "shall", "should", "can", "could",
	"may", "might", "must", "have", "has", "had", "having", "i'm", "i'd", "i've", "i'll", "you're",
	"you've", "you'll", "you'd", "we're", "we've", "we'll", "we'd", "they're", "they've", "they'll",
	"he's", "she's", "that's", "there's", "what's", "let's", "isn't", "aren't", "wasn't", "weren't",
	"don't", "doesn't", "didn't", "can't", "cannot", "won't", "wouldn't", "shouldn't", "couldn't",
	"haven't", "hasn't", "hadn't", "mustn't", "dont", "doesnt", "didnt", "cant", "wont", "isnt",
	"arent", "im", "ive", "ok", "okay", "yes", "yeah", "actually", "if", "because", "while", "since",
	"via", "per", "s", "t", "pm", "etc", "ie", "eg", "anymore",
	// Subjects of third-person rewrites ("I prefer" → "User prefers",
	// "we use" → "The team uses"): never in the source, never counted.
	"user", "users", "user's", "team", "team's", "assistant", "speaker",
	// Reporting frames ("User said: I hate tabs", "User mentioned that …").
	"said", "says", "say", "stated", "states", "mentioned", "mentions", "noted", "notes", "told", "tells",
)

// negators flip the polarity of the word they govern.
var negators = setOf("not", "no", "never", "cannot", "nor", "neither", "don't", "doesn't", "didn't",
	"can't", "won't", "isn't", "aren't", "wasn't", "weren't", "wouldn't", "shouldn't", "couldn't",
	"haven't", "hasn't", "hadn't", "mustn't", "dont", "doesnt", "didnt", "cant", "wont", "isnt",
	"arent", "wasnt", "shouldnt", "wouldnt", "couldnt")

// polaritySkip are words between a negator and the word it governs
// ("don't ever really like").
var polaritySkip = setOf("ever", "really", "always", "even", "actually", "particularly", "quite",
	"be", "been", "have", "to", "a", "an", "the", "any", "at", "all", "so", "too", "very", "much",
	"you", "we", "i", "they", "it", "should", "will", "would")

// contrastWords make a fact contrastive ("prefers X over Y", "instead of
// npm"): such a fact may name the negated side without asserting it.
var contrastWords = setOf("instead", "rather", "over", "than", "avoid", "avoids", "avoided",
	"avoiding", "dislike", "dislikes", "disliked", "hate", "hates", "hated", "stop", "stops",
	"stopped", "against", "refuse", "refuses", "refused", "without", "except", "unlike", "but",
	"no", "not", "never", "nor", "neither", "cannot", "prefer", "prefers", "preferred", "replace",
	"replaces", "replaced", "switch", "switched", "switches", "vs", "versus", "anymore", "longer",
	"lack", "lacks", "lacking", "missing", "absence", "unable", "fails", "failed", "none", "quit", "quitting",
	"gave", "ditched", "dropped", "abandoned", "former", "formerly", "used", "previously", "until",
	"but", "however", "although", "though", "except", "unless")

// numberWords are matched as digits so "two cats" grounds "2 cats". "one"
// is left out: it is more often a pronoun.
var numberWords = map[string]string{
	"zero": "0", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
	"eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13",
	"fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18",
	"nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60",
	"seventy": "70", "eighty": "80", "ninety": "90",
}

// irregular maps common irregular forms (and British spellings) to the base
// word, which is then stemmed, so "User wrote" grounds "I write".
var irregular = map[string]string{
	"ran": "run", "wrote": "write", "written": "write", "chose": "choose", "chosen": "choose",
	"took": "take", "taken": "take", "made": "make", "built": "build", "bought": "buy",
	"thought": "think", "knew": "know", "known": "know", "went": "go", "gone": "go", "got": "get",
	"gotten": "get", "gave": "give", "given": "give", "told": "tell", "said": "say", "kept": "keep",
	"left": "leave", "felt": "feel", "met": "meet", "sent": "send", "spent": "spend", "lost": "lose",
	"paid": "pay", "found": "find", "began": "begin", "begun": "begin", "drove": "drive",
	"driven": "drive", "ate": "eat", "eaten": "eat", "saw": "see", "seen": "see", "children": "child",
	"people": "person", "men": "man", "women": "woman", "brought": "bring", "taught": "teach",
	"caught": "catch", "held": "hold", "led": "lead", "read": "read", "heard": "hear", "sold": "sell",
	"won": "win", "broke": "break", "broken": "break", "spoke": "speak", "spoken": "speak",
	"forgot": "forget", "forgotten": "forget", "fell": "fall", "fallen": "fall", "grew": "grow",
	"grown": "grow", "flew": "fly", "flown": "fly", "swam": "swim", "sang": "sing", "sung": "sing",
	"favourite": "favorite", "favourites": "favorite", "colour": "color",
	"colours": "color", "behaviour": "behavior", "flavour": "flavor", "organise": "organize",
	"organised": "organize", "analyse": "analyze", "analysed": "analyze", "centre": "center",
	"licence": "license", "cancelled": "cancel", "travelled": "travel", "travelling": "travel",
	// Abbreviated days and months that are not words themselves.
	"tue": "tuesday", "tues": "tuesday", "thu": "thursday", "thur": "thursday", "thurs": "thursday",
	"fri": "friday", "jan": "january", "feb": "february", "apr": "april", "aug": "august",
	"sept": "september", "oct": "october", "nov": "november", "dec": "december",
}

// wordInfo is what grounding knows about a word: its flags (fStop, fNeg,
// fContrast, fNum) and the base to use instead of it (digits for a number
// word, the base of an irregular form).
type wordInfo struct {
	flags tflag
	base  string // the key of a stop word or number; the base of an irregular form
	stem  string // stem(base) for a content word
}

// wordTable merges the tables above so a word costs one lookup.
var wordTable = buildWordTable()

func buildWordTable() map[string]wordInfo {
	t := map[string]wordInfo{}
	set := func(w string, f tflag, base string) {
		info := t[w]
		info.flags |= f
		if base != "" {
			info.base = base
		} else if info.base == "" {
			info.base = w
		}
		t[w] = info
	}
	for w := range stopWords {
		set(w, fStop, "")
	}
	for w := range negators {
		set(w, fStop|fNeg, "")
	}
	for w := range contrastWords {
		set(w, fContrast, "")
	}
	for w, d := range numberWords {
		set(w, fNum, d)
	}
	for w, base := range irregular {
		set(w, 0, base)
	}
	for w, info := range t {
		if info.flags&(fStop|fNum) == 0 {
			info.stem = stem(info.base)
			t[w] = info
		}
	}
	return t
}
