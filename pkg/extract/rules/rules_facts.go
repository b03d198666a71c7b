package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// factRules: self-disclosure (001's "my name is", "I work at", "call me"),
// tools and project facts ("we use", "our API uses"), decisions and
// "not X but Y" corrections.
func factRules() []rule {
	profile := func(content, key, payload string) draft {
		return draft{typ: memory.TypeFact, class: classProfile, content: clip(content),
			key: keyFor("profile", key), payload: payload}
	}
	decision := func(content, payload string) draft {
		return draft{typ: memory.TypeDecision, class: classDecision, content: content,
			prefix: "decision", topic: decisionTopic(payload), payload: payload}
	}
	return []rule{
		{name: RuleName, first: []string{"my"}, keywords: []string{"name"},
			re: compile(`^my (?:full |first |real |given |actual )?name(?:'s| is) (.+)$`),
			build: func(r *ruleCtx) (draft, bool) {
				name := nameOf(r.g(1))
				if name == "" || strings.HasPrefix(r.gl(1), "not") {
					return draft{}, false
				}
				d := profile("User's name is "+name, "name", asciiLower(name))
				d.minContent = -1
				return d, true
			}},
		{name: RuleCallMe, first: []string{"call", "you", "just", "i"}, keywords: []string{"call me"},
			re: compile(`^(?:you can |you may |you should |just )?call me (.+)$`),
			build: func(r *ruleCtx) (draft, bool) {
				name := nameOf(r.g(1))
				if name == "" || callBlock[firstWord(asciiLower(name))] {
					return draft{}, false
				}
				d := profile("Call the user "+name, "preferred-name", asciiLower(name))
				d.minContent = -1
				return d, true
			}},
		{name: RuleCallMe, first: []string{"i"}, keywords: []string{"go by"},
			re: compile(`^i go by (.+)$`),
			build: func(r *ruleCtx) (draft, bool) {
				name := nameOf(r.g(1))
				d := profile("Call the user "+name, "preferred-name", asciiLower(name))
				d.minContent = -1
				return d, name != ""
			}},
		{name: RuleAllergy, first: []string{"i'm", "i"}, keywords: []string{"allergic"},
			re: compile(`^i(?:'m| am) ((?:\w+ )?allergic to (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return profile("User is "+r.g(1), "allergies", r.gl(2)), true
			}},
		{name: RuleAllergy, first: []string{"i"}, keywords: []string{"allerg"},
			re: compile(`^i (have (?:a |an )?(?:\w+ )?(.+) allerg(?:y|ies))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return profile("User "+inflectPhrase(r.g(1)), "allergies", r.gl(2)), true
			}},
		{name: RuleLocation, first: []string{"i"}, keywords: []string{"live in"},
			re: compile(`^i (?:currently |now |also )?(live in (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return profile("User "+inflectPhrase(r.g(1)), "location", r.gl(2)), true
			}},
		{name: RuleLocation, first: []string{"i'm", "i"}, keywords: []string{"based", "located", "living", "staying"},
			re: compile(`^i(?:'m| am) (?:currently |now )?((?:based|located|living|staying) in (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return profile("User is "+r.g(1), "location", r.gl(2)), true
			}},
		{name: RuleLocation, first: []string{"i'm", "i"}, keywords: []string{"from"},
			re: compile(`^i(?:'m| am) (?:originally )?(from (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return profile("User is "+r.g(1), "origin", r.gl(2)), !strings.HasPrefix(r.gl(2), "the ")
			}},
		{name: RuleEmployer, first: []string{"i"}, keywords: []string{"work at", "work for"},
			re: compile(`^i (?:currently |now |also )?(work (?:at|for) (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return profile("User "+inflectPhrase(r.g(1)), "employer", r.gl(2)), true
			}},
		{name: RuleEmployer, first: []string{"i'm", "i"}, keywords: []string{"working", "employed"},
			re: compile(`^i(?:'m| am) (?:currently |now )?((?:working|employed) (?:at|for) (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return profile("User is "+r.g(1), "employer", r.gl(2)), true
			}},
		{name: RuleEmployer, first: []string{"my"}, keywords: []string{"company", "employer"},
			re: compile(`^my ((?:company|employer) is (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return profile("User's "+r.g(1), "employer", r.gl(2)), true
			}},
		{name: RuleRole, first: []string{"i"}, keywords: []string{"work as"},
			re: compile(`^i work as ((?:a |an )?(.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return profile("User works as "+r.g(1), "role", r.gl(2)), wordCount(r.g(2)) <= 8
			}},
		{name: RuleRole, first: []string{"my"}, keywords: []string{"job", "role", "title", "position", "occupation", "profession"},
			re: compile(`^my ((?:job|role|title|job title|position|occupation|profession) is (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return profile("User's "+r.g(1), "role", r.gl(2)), true
			}},
		{name: RuleRole, first: []string{"i'm", "i"}, keywords: []string{" a ", " an "},
			re: compile(`^i(?:'m| am) (?:currently |now |also )?((?:a|an) (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				p := r.gl(2)
				if roleBlock[firstWord(p)] || wordCount(p) > 8 || strings.Contains(p, " who ") {
					return draft{}, false
				}
				return profile("User is "+r.g(1), "role", p), true
			}},
		{name: RuleRelation, first: []string{"my"},
			re: compile(`^my ((wife|husband|partner|girlfriend|boyfriend|fiancee|fiance|son|daughter|kid|child|brother|sister|mom|mum|mother|dad|father|boss|manager|cofounder|co-founder|colleague|coworker|teammate|dog|cat|pet|team lead|tech lead)(?:'s name is| is called| is named| is) )(.+)$`),
			build: func(r *ruleCtx) (draft, bool) {
				name := nameOf(r.g(3))
				if !startsUpper(name) {
					return draft{}, false
				}
				prefix := "person"
				if rel := r.gl(2); rel == "dog" || rel == "cat" || rel == "pet" {
					prefix = "pet"
				}
				return draft{typ: memory.TypeEntity, class: classProfile, content: "User's " + r.g(1) + " " + name,
					key: keyFor(prefix, r.gl(2)), payload: asciiLower(name), minContent: -1}, true
			}},
		{name: RuleProfile, first: []string{"my"},
			re: compile(`^my (((?:pronouns|native language|first language|mother tongue|timezone|time zone|birthday|nationality|team|department|github handle|github username|username|handle|preferred language)) (?:is|are) (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				p := r.gl(3)
				d := profile("User's "+r.g(1), slug(r.gl(2), 3), p)
				d.minContent = -1
				return d, !strings.HasPrefix(p, "like ") && !evaluative("be "+p) && !vagueOpeners[firstWord(p)]
			}},
		{name: RuleUse, first: []string{"i", "i'm", "we", "we're"}, keywords: []string{"use", "using", "work", "cod", "program", "develop", "build", "deploy", "host", "run"},
			re: compile(`^(i|we)(?:'m|'re| am| are)? (?:mainly |primarily |currently |now |also |only |exclusively |mostly )?(use|using|work with|working with|code in|coding in|program in|develop in|develop with|developing in|build with|building with|deploy to|deploy on|deploying to|host on|run on|running on) (.+)$`),
			build: func(r *ruleCtx) (draft, bool) {
				p := r.gl(3)
				if blockedPayload(p, likeBlock) || strings.HasPrefix(p, "my ") {
					return draft{}, false
				}
				verb := r.g(2)
				if strings.HasSuffix(firstWord(r.gl(2)), "ing") {
					verb = "is " + verb
				} else {
					verb = inflectPhrase(verb)
				}
				return draft{typ: memory.TypeFact, class: classStatement,
					content: subject3(r.gl(1)) + " " + verb + " " + r.g(3),
					prefix:  "stack", toolPrefix: "tool", topic: p, payload: p}, true
			}},
		{name: RuleProject, first: []string{"our", "this", "the"}, keywords: []string{"uses", "built", "written", "runs", "hosted", "deployed", "depends", "targets", "talks", "stores", "lives", "based", "relies", "supports", "connects", "powered", "backed", "speaks"},
			re: compile(`^(our|this|the) ((?:[\w.+#-]+ ){0,2}?[\w.+#-]+) (uses|is built with|is built on|is written in|runs on|runs in|is hosted on|is hosted at|is hosted in|is deployed to|is deployed on|depends on|targets|talks to|stores|lives in|is based on|relies on|supports|connects to|is powered by|is backed by|speaks) (.+)$`),
			build: func(r *ruleCtx) (draft, bool) {
				det, subj := r.gl(1), r.gl(2)
				ws := strings.Fields(subj)
				if det != "our" && !projectNouns[ws[len(ws)-1]] {
					return draft{}, false
				}
				content := r.orig
				if det == "our" {
					content = "The " + r.orig[r.m[4]:]
				}
				thing := slug(subj, 3)
				if thing == "project" {
					thing = "" // "project/uses", not "project/project/uses"
				}
				return draft{typ: memory.TypeFact, class: classStatement, content: content,
					key: keyFor("project", thing+"/"+slug(r.gl(3), 3)), payload: r.gl(4)}, true
			}},
		{name: RuleDecision, first: []string{"we", "i", "we've", "i've"}, keywords: []string{"decided", "agreed", "chose", "opted", "settled", "committed"},
			re: compile(`^(we|i)(?:'ve| have)? ((?:decided|agreed|chose|opted|settled|committed)(?: on| to| that| for| upon)? (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				// "I decided to take a break" is an episode; the user's
				// decisions count when they choose something.
				if r.gl(1) == "i" && !decisionVerbs[firstWord(r.gl(3))] && !strings.Contains(r.gl(2), " on ") {
					return draft{}, false
				}
				return decision(subject3(r.gl(1))+" "+r.g(2), r.gl(3)), !blockedPayload(r.gl(3), likeBlock)
			}},
		{name: RuleDecision, first: []string{"we", "i", "we're", "i'm"}, keywords: []string{"going", "switching", "moving", "migrating", "standardi", "sticking"},
			re: compile(`^(we|i)(?:'re| are|'m| am) ((?:going (?:to go )?with|going to use|switching to|moving to|migrating to|standardi[sz]ing on|sticking with) (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return decision(subject3(r.gl(1))+" is "+r.g(2), r.gl(3)), !blockedPayload(r.gl(3), likeBlock)
			}},
		{name: RuleDecision, first: []string{"we", "we'll"}, keywords: []string{"will", "ll "},
			re: compile(`^we(?:'ll| will) ((?:go with|use|switch to|move to|stick with|migrate to|standardi[sz]e on) (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return decision("The team will "+r.g(1), r.gl(2)), !blockedPayload(r.gl(2), likeBlock)
			}},
		{name: RuleDecision, first: []string{"we", "i"}, keywords: []string{"went", "switched", "moved", "migrated", "picked", "settled"},
			re: compile(`^(we|i) ((?:went with|switched to|moved to|migrated to|picked|settled on) (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return decision(subject3(r.gl(1))+" "+r.g(2), r.gl(3)), !blockedPayload(r.gl(3), likeBlock) &&
					!strings.HasPrefix(r.gl(3), "up ")
			}},
		{name: RuleDecision, first: []string{"the", "our", "decision", "final"}, keywords: []string{"decision"},
			re: compile(`^(?:the |our )?((?:final )?decision (?:is|was) (?:to )?(.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return decision("The "+r.g(1), r.gl(2)), true
			}},
		{name: RuleDecision, first: []string{"let's"},
			re: compile(`^let's ((?:go with|stick with|standardi[sz]e on|settle on) (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				return decision("Decided to "+r.g(1), r.gl(2)), !blockedPayload(r.gl(2), likeBlock)
			}},
		{name: RuleNoLonger, keywords: []string{" no longer "},
			re: compile(`^((?:[\w.+#/@-]+ ){0,5}?[\w.+#/@-]+) (?:is|are) no longer (.+)$`),
			build: func(r *ruleCtx) (draft, bool) {
				subj := r.gl(1)
				if pronounSubjects[firstWord(subj)] || personalSubject(subj) {
					return draft{}, false
				}
				return draft{typ: memory.TypeFact, class: classStatement, content: thirdPerson(r.orig),
					key: keyFor("fact", slug(subj, 3)), payload: subj + " " + r.gl(2)}, true
			}},
		{name: RuleMovedFrom, first: []string{"we", "i", "we've", "i've", "the", "our"}, keywords: []string{" from "},
			re: compile(`^(we|i|the team|our team)(?:'ve| have)? ((?:moved|switched|migrated|changed|upgraded|went) (?:([\w.+#/@-]+) )?from (.+?) to (.+))$`),
			build: func(r *ruleCtx) (draft, bool) {
				what, to := r.gl(3), r.gl(5)
				topic := what
				if topic == "" || topic == "over" || topic == "everything" {
					topic = decisionTopic(to)
				}
				return draft{typ: memory.TypeDecision, class: classDecision, content: subject3(r.gl(1)) + " " + r.g(2),
					prefix: "decision", topic: topic, payload: r.gl(4) + " " + to}, !blockedPayload(to, likeBlock)
			}},
		{name: RuleCorrectNotBut, first: []string{"not", "it's", "it", "that's", "that"}, keywords: []string{" but"},
			re: compile(`^(?:it(?:'s| is| was) |that(?:'s| is| was) )?not (.+?),? but (?:rather |instead )?(.+)$`),
			build: func(r *ruleCtx) (draft, bool) {
				p := r.gl(2)
				// "Not Jenkins but GitHub Actions." names no subject: a
				// fragment the transcript keeps with its context.
				if firstWord(r.low) == "not" {
					return draft{}, false
				}
				// "not just X but Y" emphasises; it corrects nothing.
				switch firstWord(r.gl(1)) {
				case "just", "only", "merely", "simply", "even", "necessarily", "always", "that", "so", "too", "really", "sure":
					return draft{}, false
				}
				d := draft{typ: memory.TypeFact, class: classStatement, content: thirdPerson(r.orig),
					prefix: "fact", topic: p, payload: r.gl(1) + " " + p}
				if imperativeVerbs[firstWord(p)] {
					d.typ, d.class, d.prefix, d.topic = memory.TypeDecision, classDirective, "decision", decisionTopic(p)
				}
				return d, true
			}},
	}
}

// clip ends a self-disclosure at its first aside: "User is working at
// Stripe now, previously at Shopify" → "User is working at Stripe now".
func clip(s string) string {
	for _, sep := range []string{", ", " - ", " – ", " — ", "; ", " (", " but ", " though "} {
		if i := strings.Index(s, sep); i > 0 {
			s = s[:i]
		}
	}
	return s
}

// vagueOpeners begin descriptions rather than values ("my team is so …").
var vagueOpeners = setOf("so", "very", "really", "such", "too", "here", "there", "always", "never",
	"not", "kind", "pretty", "super", "like", "just", "still", "also", "getting", "doing", "going")

// callBlock: "call me back", "call me crazy" are not names.
var callBlock = setOf("back", "later", "when", "if", "at", "tomorrow", "tonight", "on", "crazy",
	"old-fashioned", "paranoid", "lazy", "whatever", "anytime", "maybe", "in", "after", "before",
	"now", "a", "an", "the", "out", "again", "asap", "soon", "sometime", "stupid", "picky", "weird")

// roleBlock: "I'm a bit confused" is a mood, not a role.
var roleBlock = setOf("bit", "little", "lot", "tad", "huge", "big", "quick", "sec", "second",
	"moment", "minute", "fast", "slow", "total", "complete", "fan", "while", "few", "couple",
	"good", "bad", "terrible", "great", "real", "very", "question", "problem", "kind", "sort",
	"type", "part", "fool", "mess", "pain", "hurry", "rush", "position", "mood", "loss", "way",
	"lot", "step", "hundred", "thousand", "million", "tiny", "slightly", "bunch", "number", "result")

// projectNouns can follow "the"/"this" in a project fact ("the API uses …").
var projectNouns = setOf("project", "app", "application", "api", "service", "services", "backend",
	"frontend", "stack", "codebase", "repo", "repository", "monorepo", "team", "company", "database",
	"db", "product", "system", "ci", "pipeline", "cluster", "website", "site", "server", "infra",
	"infrastructure", "build", "library", "sdk", "cli", "platform", "architecture", "code",
	"deployment", "worker", "workers", "queue", "cache", "auth", "frontend", "mobile", "web")

// decisionTopic keys a decision by its object: "use postgres" → "postgres".
func decisionTopic(low string) string {
	for {
		w, rest := splitWord(low)
		if !decisionVerbs[w] || rest == "" {
			return low
		}
		low = rest
	}
}

var decisionVerbs = setOf("use", "go", "with", "switch", "move", "migrate", "adopt", "stick", "to",
	"on", "standardize", "standardise", "pick", "choose", "keep", "using", "drop", "replace", "deprecate")

func startsUpper(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}
