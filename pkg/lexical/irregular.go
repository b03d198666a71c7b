package lexical

import (
	"slices"
	"strings"
)

// Porter2 brings "drawing" and "draws" to "draw" but leaves "drew" and
// "drawn" as they are: the irregular forms of English verbs never meet their
// verb in the index. A question asks in the present or with the bare verb
// ("What does her drawing symbolise?", "Where did she go?", "What did he
// buy?") while a conversation tells in the past ("I drew it", "I went to
// Woodhaven", "I bought a kayak"), so the lexical channel missed the turn
// that answers. QueryVector therefore adds, for a query term that is one of
// these verbs in any form, the stems of its other forms, each with the
// term's weight. Only the query side: documents are indexed as before, so
// no stored index changes meaning and every store (the local engine,
// Qdrant) gains it at once. Forms that are mostly other words are left out
// ("left", "lay", "bit", "rose", "ground", "wound"; "saw" the tool is rare
// enough to keep); forms that are stopwords ("did", "was", "had") need
// nothing. The light
// verbs — come, feel, find, get, give, go, keep, know, make, mean, say, see,
// show, take, tell, think — are left out too: "went", "got" or "made" is in
// a good share of any narrative's turns, and with them the expansion cost
// LoCoMo dev 0.0065 recall_any@10 (0.8697 → 0.8632) where without them it
// gains (→ 0.8711, nDCG@10 0.6896 → 0.6912; DevChat and its classes level
// or up; docs/BENCHMARKS.md).
var irregularVerbs = []string{
	"arise arose arisen", "awake awoke awoken", "bear bore borne", "beat beaten", "become became",
	"begin began begun", "bend bent", "bet", "bind bound", "bite bitten", "bleed bled", "blow blew blown",
	"break broke broken", "breed bred", "bring brought", "build built", "burn burnt", "buy bought",
	"catch caught", "choose chose chosen", "cling clung", "creep crept", "deal dealt",
	"dig dug", "draw drew drawn", "dream dreamt", "drink drank drunk", "drive drove driven",
	"eat ate eaten", "fall fell fallen", "feed fed", "fight fought",
	"flee fled", "fly flew flown", "forbid forbade forbidden", "forget forgot forgotten",
	"forgive forgave forgiven", "freeze froze frozen",
	"grow grew grown", "hang hung", "hear heard", "hide hid hidden",
	"hold held", "kneel knelt", "lead led", "lean leant", "leap leapt",
	"learn learnt", "lend lent", "lose lost", "meet met",
	"mistake mistook mistaken", "overcome overcame", "pay paid", "ride rode ridden", "ring rang rung",
	"rise risen", "run ran", "seek sought", "sell sold", "send sent",
	"sew sewn", "shake shook shaken", "shine shone", "shoot shot", "shrink shrank shrunk",
	"sing sang sung", "sink sank sunk", "sit sat", "sleep slept", "slide slid", "speak spoke spoken",
	"speed sped", "spend spent", "spin spun", "spit spat", "spring sprang sprung", "stand stood",
	"steal stole stolen", "stick stuck", "sting stung", "stink stank stunk", "strike struck",
	"strive strove striven", "swear swore sworn", "sweep swept", "swim swam swum", "swing swung",
	"teach taught", "tear tore torn", "throw threw thrown",
	"understand understood", "wake woke woken", "wear wore worn", "weave wove woven", "weep wept",
	"win won", "withdraw withdrew withdrawn", "write wrote written",
}

// verbForms maps the stem of each form of an irregular verb to the stems of
// its other forms.
var verbForms = func() map[string][]string {
	out := map[string][]string{}
	for _, line := range irregularVerbs {
		var stems []string
		for _, w := range strings.Fields(line) {
			if s := stem(w); !slices.Contains(stems, s) {
				stems = append(stems, s)
			}
		}
		for _, s := range stems {
			for _, o := range stems {
				if o != s && !slices.Contains(out[s], o) {
					out[s] = append(out[s], o)
				}
			}
		}
	}
	return out
}()
