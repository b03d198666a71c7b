package rules

import (
	"strings"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// preferenceRules: likes, dislikes and habits (004 "I prefer X"), then
// instructions and constraints ("always/never X", "must X", "don't ever X").
// Order matters: the first rule that builds a draft wins.
func preferenceRules() []rule {
	affective := func(content, payload string) draft {
		return draft{typ: memory.TypePreference, class: classAffective, content: content,
			prefix: "preference", topic: topicOf(payload), payload: payload}
	}
	policy := func(content, payload string, c class) draft {
		return draft{typ: memory.TypePolicy, class: c, content: content, prefix: "policy",
			topic: payload, payload: payload}
	}
	directive := func(content, payload string) draft {
		return draft{typ: memory.TypePreference, class: classDirective, content: content,
			prefix: "preference", topic: payload, payload: payload}
	}
	return []rule{
		{name: RuleDislike, first: []string{"i'm", "i"}, keywords: []string{"fan of"},
			re: compile(`^i(?:'m| am) (not (?:a |an |much of a |the biggest )?(?:\w+ )?fan of (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return affective("User is "+r.g(1), r.gl(2)), !blockedPayload(r.gl(2), likeBlock)
			}},
		{name: RuleLike, first: []string{"i'm", "i"}, keywords: []string{"fan of"},
			re: compile(`^i(?:'m| am) ((?:a |an )?(?:\w+ )?fan of (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return affective("User is "+r.g(1), r.gl(2)), !blockedPayload(r.gl(2), likeBlock)
			}},
		{name: RulePrefer, first: []string{"i'd", "i"}, keywords: []string{"prefer"},
			re: compile(`^i(?:'d| would) ((?:\w+ )?prefer (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return affective("User would "+r.g(1), r.gl(2)), !blockedPayload(r.gl(2), likeBlock)
			}},
		{name: RulePrefer, first: []string{"i"}, keywords: []string{"prefer"},
			re: compile(`^i ((?:\w+ly |really |much |still |also |definitely |do |always |usually |generally |personally )?prefer (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return affective("User "+inflectPhrase(r.g(1)), r.gl(2)), !blockedPayload(r.gl(2), likeBlock)
			}},
		{name: RuleRather, first: []string{"i'd", "i"}, keywords: []string{"rather"},
			re: compile(`^i(?:'d| would) ((?:much |far |really )?rather (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return affective("User would "+r.g(1), r.gl(2)), !blockedPayload(r.gl(2), likeBlock)
			}},
		{name: RuleLike, first: []string{"i"}, keywords: []string{"like", "love", "enjoy", "adore", "appreciate"},
			re: compile(`^i ((?:\w+ly |really |just |also |still |do )?(?:like|love|enjoy|adore|appreciate) (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return affective("User "+inflectPhrase(r.g(1)), r.gl(2)), !blockedPayload(r.gl(2), likeBlock)
			}},
		{name: RuleDislike, first: []string{"i"}, keywords: []string{"hate", "dislike", "detest", "loathe", "stand", "bear", "like", "love", "enjoy", "want"},
			re: compile(`^i ((?:\w+ly |really |just |also |still )?)(hate|dislike|detest|loathe|can't stand|cannot stand|can't bear|don't like|do not like|dont like|don't love|do not love|don't enjoy|do not enjoy|don't want|do not want|dont want) (.+)$`),
			build: func(r *ruleCtx) (draft, bool) {
				verb := dislikeVerbs[normApos(r.gl(2))]
				p := r.gl(3)
				if verb == "" || strings.HasPrefix(verb, "does not want") && wantBlocked(p) {
					return draft{}, false
				}
				return affective("User "+r.g(1)+" "+verb+" "+r.g(3), p), !blockedPayload(p, likeBlock)
			}},
		{name: RuleFavourite, first: []string{"my"}, keywords: []string{"fav"},
			re: compile(`^my ((?:all-time |absolute |current )?(?:favou?rite|fave) (.{1,40}?) (?:is|are) (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				d := affective("User's "+r.g(1), r.gl(3))
				d.key = keyFor("preference", "favourite-"+slug(r.gl(2), 3))
				// "my favorite one to jam to": the one is named elsewhere.
				w := firstWord(r.gl(2))
				return d, w != "one" && w != "thing" && w != "part"
			}},
		{name: RuleHabit, first: []string{"i", "we"}, keywords: []string{"always", "never", "usually", "typically", "generally", "normally", "tend to", "rarely", "mostly", "often"},
			re: compile(`^(i|we) ((?:always|never|usually|typically|generally|normally|tend to|rarely|mostly|often) (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				p := r.gl(3)
				if narrative(p) {
					return draft{}, false
				}
				return draft{typ: memory.TypePreference, class: classHabit,
					content: subject3(r.gl(1)) + " " + inflectPhrase(r.g(2)),
					prefix:  "preference", topic: p, payload: p}, true
			}},
		{name: RuleDontEver, first: []string{"don't", "dont", "do", "never", "you", "we"}, keywords: []string{" ever"},
			re: compile(`^(?:you |we )?(?:do not|don't|dont|never|do not you|don't you),? ever (.+)$`),
			build: func(r *ruleCtx) (draft, bool) {
				return policy("Never "+r.g(1), r.gl(1), classDirective), !notImperative(r.gl(1))
			}},
		{name: RuleDontEver, first: []string{"you", "we"}, keywords: []string{"not ever"},
			re: compile(`^(?:you|we) (?:should|must) not ever (.+)$`),
			build: func(r *ruleCtx) (draft, bool) {
				return policy("Never "+r.g(1), r.gl(1), classDirective), true
			}},
		{name: RuleDontEver, first: []string{"under"}, keywords: []string{"circumstances"},
			re: compile(`^under no circumstances,? (?:should (?:you|we|anyone) |(?:do not|don't) |(?:you|we) (?:should|must) |(?:you|we) )?(.+)$`),
			build: func(r *ruleCtx) (draft, bool) {
				return policy("Never "+r.g(1), r.gl(1), classDirective), true
			}},
		{name: RuleMust, first: []string{"you", "we", "everyone", "everybody", "the", "all", "must", "mustn't", "always"}, keywords: []string{"must", "have to", "need to", "required to", "shall", "shan"},
			re: compile(`^(?:(you|we|everyone|everybody|the team|all of us) )?(must|mustn't|must not|have to always|need to always|always have to|always need to|are required to|is required to|shall not|shan't)(?: (always|never|not|ever))? (.+)$`),
			build: func(r *ruleCtx) (draft, bool) {
				subj, modal, adv, p := r.gl(1), normApos(r.gl(2)), r.gl(3), r.gl(4)
				switch {
				case speculative(p), subj == "" && strings.HasPrefix(p, "be "),
					subj == "you" && strings.HasPrefix(p, "be "), subj == "" && !imperativeVerbs[firstWord(p)],
					adv == "" && evaluative(p), narrative(p) && firstWord(p) != "have":
					return draft{}, false
				}
				neg := adv == "never" || adv == "not" || strings.Contains(modal, "not") || strings.Contains(modal, "n't")
				verb := "Always "
				if neg {
					verb = "Never "
				}
				return policy(verb+r.g(4), p, classDirective), true
			}},
		{name: RuleMust,
			keywords: []string{" must", " shall", " should always", " should never", " may never"},
			re:       compile(`^((?:[\w.+#/@-]+ ){0,5}?[\w.+#/@-]+) (must|mustn't|must not|must never|must always|shall not|shall|should always|should never|may never) (.+)$`),
			build: func(r *ruleCtx) (draft, bool) {
				subj, p := r.gl(1), r.gl(3)
				if pronounSubjects[firstWord(subj)] || speculative(p) || evaluative(p) ||
					narrative(p) && !strings.HasPrefix(p, "have") || personalSubject(subj) {
					return draft{}, false
				}
				d := policy(thirdPerson(r.orig), subj+" "+p, classStatement)
				d.payload = p
				return d, true
			}},
		{name: RuleRequired, first: []string{"it's", "it", "required", "mandatory", "essential", "imperative", "critical", "compulsory", "a"}, keywords: []string{"required", "mandatory", "essential", "imperative", "critical", "non-negotiable", "compulsory", "a must", "requirement"},
			re: compile(`^(?:it(?:'s| is) )?(?:absolutely )?(?:required|mandatory|essential|imperative|critical|non-negotiable|compulsory|a must|a hard requirement) (?:that|to) (.+)$`),
			build: func(r *ruleCtx) (draft, bool) {
				return policy(thirdPerson(r.orig), r.gl(1), classStatement), true
			}},
		{name: RuleRequired,
			keywords: []string{"required", "mandatory", "compulsory", "allowed", "forbidden", "prohibited", "banned", "permitted", "off-limits", "off limits", "non-negotiable", "acceptable"},
			re:       compile(`^((?:[\w.+#/@-]+ ){0,5}?[\w.+#/@-]+) (?:is|are) (?:always |strictly |absolutely )?(?:required|mandatory|compulsory|not allowed|forbidden|prohibited|banned|not permitted|disallowed|off-limits|off limits|non-negotiable|never allowed|not acceptable|unacceptable)(?: (.*))?$`),
			build: func(r *ruleCtx) (draft, bool) {
				subj := r.gl(1)
				if pronounSubjects[firstWord(subj)] || personalSubject(subj) {
					return draft{}, false
				}
				d := policy(thirdPerson(r.orig), subj, classStatement)
				d.payload = strings.TrimSpace(subj + " " + r.gl(2))
				return d, true
			}},
		{name: RuleRequired, first: []string{"no"}, keywords: []string{"allowed", "permitted", " ever", "circumstances"},
			re: compile(`^no ((?:[\w.+#/@-]+ ){0,5}?[\w.+#/@-]+) (?:allowed|permitted|ever|under any circumstances)$`),
			build: func(r *ruleCtx) (draft, bool) {
				return policy(r.orig, r.gl(1), classStatement), true
			}},
		{name: RuleAlways, first: []string{"always", "you"}, keywords: []string{"always"},
			re: compile(`^(?:you should |we should |you shall |should )?(always) (.+)$`),
			build: func(r *ruleCtx) (draft, bool) {
				return directive(capitalise(r.g(1))+" "+r.g(2), r.gl(2)), !notImperative(r.gl(2))
			}},
		{name: RuleNever, first: []string{"never", "you", "we"}, keywords: []string{"never"},
			re: compile(`^(?:you should |we should |you shall |should )?(never) (.+)$`),
			build: func(r *ruleCtx) (draft, bool) {
				return directive(capitalise(r.g(1))+" "+r.g(2), r.gl(2)), !notImperative(r.gl(2))
			}},
		{name: RuleMakeSure, first: []string{"make", "be", "ensure", "always", "remember", "don't", "do", "never"}, keywords: []string{"sure", "ensure", "remember", "forget"},
			re: compile(`^((?:always )?(?:make sure|be sure|ensure|remember|don't forget|do not forget|never forget)(?: to| that| you| we)? (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				// "make sure they get enough light" is about someone else.
				p := r.gl(2)
				return directive(r.g(1), p), !otherSubject[firstWord(p)] && !narrative(p)
			}},
		{name: RuleStopStart, first: []string{"stop", "quit", "start"},
			re: compile(`^((?:stop|quit) (\w+ing (.+)))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return directive(r.g(1), r.gl(2)), !blockedPayload(r.gl(3), likeBlock)
			}},
		{name: RuleStopStart, first: []string{"start"},
			re: compile(`^(start ((?:using|doing|adding|writing|including|putting|giving) (.+)))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return directive(r.g(1), r.gl(2)), !blockedPayload(r.gl(3), likeBlock)
			}},
	}
}

// otherSubject opens a clause about someone other than the user or agent.
var otherSubject = setOf("they", "it", "its", "it's", "yours", "i", "i'm", "everyone", "everybody",
	"he", "she", "he's", "she's", "they're", "someone", "somebody", "nobody", "this", "that", "there")

// personalSubject: "your shoes must …" is small talk, not a rule.
func personalSubject(subj string) bool {
	for _, w := range strings.Fields(subj) {
		switch w {
		case "your", "my", "his", "her", "their", "is", "are", "was", "were", "be", "a":
			return true
		}
	}
	return false
}

// dislikeVerbs puts the user's verb in the third person, keeping its words.
var dislikeVerbs = map[string]string{
	"hate": "hates", "dislike": "dislikes", "detest": "detests", "loathe": "loathes",
	"can't stand": "can't stand", "cannot stand": "cannot stand", "can't bear": "can't bear",
	"don't like": "does not like", "do not like": "does not like", "dont like": "does not like",
	"don't love": "does not love", "do not love": "does not love", "don't enjoy": "does not enjoy",
	"do not enjoy": "does not enjoy", "don't want": "does not want", "do not want": "does not want",
	"dont want": "does not want",
}

// wantBlocked: "I don't want to be rude", "… them to go through that" are
// feelings about a moment; "I don't want emojis", "… you to add comments" last.
func wantBlocked(p string) bool {
	if strings.HasPrefix(p, "you to ") {
		return false
	}
	return strings.HasPrefix(p, "to ") || strings.Contains(p, " to ")
}
