package rules

// Word tables. They are read-only after package initialisation; lookups go
// through the helpers below so that callers never mutate them.

// setOf builds a lookup set from a space-separated word list.
func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// stopWords carry no topic: a payload made only of them is too thin to keep
// ("I like it", "no, that's fine").
var stopWords = setOf(
	"a", "an", "the", "and", "or", "but", "nor", "so", "yet", "to", "of", "in", "on", "at", "by", "for",
	"from", "with", "without", "into", "onto", "over", "under", "about", "as", "than", "then", "that",
	"this", "these", "those", "it", "its", "it's", "is", "are", "was", "were", "be", "been", "being",
	"am", "do", "does", "did", "done", "i", "me", "my", "mine", "myself", "you", "your", "yours", "we",
	"us", "our", "ours", "they", "them", "their", "he", "him", "his", "she", "her", "what", "which",
	"who", "whom", "whose", "there", "here", "when", "where", "why", "how", "all", "any", "both",
	"each", "either", "neither", "some", "such", "no", "not", "only", "own", "same", "too", "very",
	"just", "also", "really", "quite", "rather", "one", "ones", "thing", "things", "stuff",
	"something", "anything", "everything", "nothing", "lot", "bit", "more", "most", "less", "much",
	"many", "please", "thanks", "thank", "ok", "okay", "yes", "yeah", "sure", "well", "maybe", "will",
	"would", "shall", "should", "can", "could", "may", "might", "must", "have", "has", "had", "get",
	"got", "i'm", "i'd", "i've", "i'll", "you're", "that's", "there's", "don't", "doesn't", "didn't",
	"can't", "won't", "way", "fine", "good", "great", "right", "wrong", "idea", "think", "mean",
	"meant", "know", "said", "say", "now", "again", "actually", "like", "kind", "sort", "u", "ya",
	"y'all", "guys", "lol", "haha",
)

// slugDrop are words a key never needs ("sign your commits" → "sign-commits").
var slugDrop = setOf("a", "an", "the", "my", "your", "our", "their", "his", "her", "its",
	"always", "never", "ever", "please", "really", "just", "also", "definitely", "actually",
	"all", "every", "each", "must", "should", "be")

// slugTrim are dropped only at the ends of a key ("push to main" keeps "to").
var slugTrim = setOf("to", "of", "in", "on", "at", "by", "for", "from", "with", "and", "or", "but",
	"than", "over", "into", "i", "you", "we", "it", "is", "are", "was", "do", "does", "not", "that",
	"this", "when", "if", "so", "as", "use", "using")

// toolWords mark commands, tools and build/test/deploy procedures: facts that
// mention them belong to the tool-usage domain (000).
var toolWords = setOf(
	"git", "github", "gitlab", "makefile", "npm", "pnpm", "yarn", "bun", "npx", "node", "deno",
	"cargo", "rustc", "rustup", "pip", "pipenv", "poetry", "uv", "conda", "docker", "dockerfile",
	"docker-compose", "kubectl", "k8s", "kubernetes", "helm", "terraform", "ansible", "ssh", "scp",
	"rsync", "curl", "wget", "bash", "zsh", "shell", "terminal", "cli", "cmake", "gradle", "gradlew",
	"mvn", "maven", "pytest", "jest", "vitest", "mocha", "eslint", "prettier", "gofmt", "goimports",
	"golangci-lint", "black", "ruff", "flake8", "mypy", "tsc", "webpack", "vite", "esbuild", "rollup",
	"brew", "apt", "apt-get", "yum", "dnf", "systemctl", "journalctl", "vim", "nvim", "neovim",
	"emacs", "vscode", "tmux", "grep", "rg", "ripgrep", "sed", "awk", "jq", "psql", "sqlite3",
	"redis-cli", "nix", "bazel", "ci", "jenkins", "circleci", "linter", "lint", "linting", "formatter",
	"compiler", "debugger", "rebuild", "tests", "testing", "deploy", "deploys", "deploying",
	"deployed", "deployment", "deployments", "commits", "committing", "force-push", "rebase",
	"rebasing", "pr", "prs", "migrate", "migration", "migrations", "staging", "prod", "production",
	"compile", "compiling", "pre-commit", "changelog", "semver", "cherry-pick", "makefiles", "venv",
	"virtualenv", "repo", "repos", "monorepo", "lockfile", "package.json", "go.mod", "dockerfiles",
	"gpg", "sbt", "dotnet", "nuget", "composer", "rake", "bundler", "gem", "kubeconfig", "argocd",
)

// weakToolWords are tool words with an everyday meaning ("make sure",
// "build relationships", "push yourself"): two of them, or one with a strong
// signal, are needed ("make test", "push to main").
var weakToolWords = setOf("make", "build", "builds", "building", "test", "push", "pushes", "pushing",
	"release", "releases", "releasing", "branch", "branches", "commit", "tag", "tags", "hook", "hooks",
	"script", "scripts", "command", "commands", "install", "installing", "env", "pipeline",
	"pipelines", "merge", "merging", "checkout", "stash", "main", "master", "origin", "upstream",
	"dependency", "dependencies", "server", "locally", "code", "codebase", "branching")

// notMakeTarget: "make sure", "make it" are not the make tool.
var notMakeTarget = setOf("sure", "it", "them", "this", "that", "a", "an", "the", "me", "us", "you",
	"your", "my", "our", "things", "something", "everything", "time", "progress", "space", "room",
	"friends", "fun", "changes", "decisions", "mistakes", "sense", "money", "up", "peace", "do")

// toolBigrams are two-word tool mentions whose first word is too common alone.
var toolBigrams = setOf("go test", "go build", "go run", "go vet", "go mod", "go get", "go generate",
	"go install", "pull request", "pull requests", "merge request", "merge requests", "force push",
	"make test", "make build", "make lint", "make check", "make install", "make all",
	"force pushes", "force pushing", "force-pushing", "type hints",
	"github actions", "code review", "unit tests", "integration tests", "test suite", "type check")

// fileExts mark file names and globs ("*.go", "main.py").
var fileExts = setOf("go", "py", "js", "mjs", "cjs", "ts", "tsx", "jsx", "rs", "java", "rb", "sh",
	"bash", "zsh", "yaml", "yml", "json", "toml", "md", "sql", "env", "lock", "mod", "sum", "c", "h",
	"cc", "cpp", "hpp", "cs", "php", "swift", "kt", "kts", "tf", "proto", "html", "css", "scss",
	"vue", "svelte", "ini", "cfg", "conf", "xml", "gradle", "lua", "ex", "exs", "erl", "zig", "dart",
	"ipynb", "txt", "csv", "dockerfile")

// category is a topic a preference is commonly about. Keys use the category
// so that later statements about the same topic land on the same key.
type category struct {
	name    string
	style   bool // a style topic stays in user-preferences even when tools are named
	phrases []string
}

// categories are tried in order; the first one with a phrase in the payload wins.
var categories = []category{
	{"commit-messages", true, []string{"commit message", "commit messages", "conventional commits", "commit style"}},
	{"code-comments", true, []string{"comments", "comment", "docstrings", "docstring"}},
	{"indentation", true, []string{"tab", "tabs", "spaces", "indent", "indents", "indentation", "indenting"}},
	{"package-manager", false, []string{"npm", "pnpm", "yarn", "bun"}},
	{"editor", false, []string{"vim", "nvim", "neovim", "emacs", "vscode", "vs code", "intellij", "goland", "nano", "helix", "zed"}},
	{"quote-style", true, []string{"single quotes", "double quotes", "single-quoted", "double-quoted"}},
	{"semicolons", true, []string{"semicolon", "semicolons"}},
	{"naming", true, []string{"camelcase", "camel case", "snake_case", "snake case", "snakecase", "kebab-case", "kebab case", "pascalcase", "pascal case", "naming"}},
	{"emoji", true, []string{"emoji", "emojis", "emoticons"}},
	{"response-language", true, []string{"english", "spanish", "french", "german", "italian", "portuguese", "dutch", "japanese", "chinese", "korean", "russian", "polish", "british spelling", "american spelling"}},
	{"verbosity", true, []string{"concise", "brief", "terse", "succinct", "verbose", "verbosity", "detailed", "lengthy", "long-winded", "wordy", "brevity", "short answers", "short responses", "shorter answers", "shorter responses", "long answers", "long responses"}},
	{"formatting", true, []string{"markdown", "bullet", "bullets", "bullet points", "tables", "headings", "headers", "formatting", "numbered lists"}},
	{"tone", true, []string{"formal", "informal", "casual", "tone", "sarcasm", "jokes", "humor", "humour", "friendly", "polite"}},
	{"dark-mode", true, []string{"dark mode", "dark theme", "light mode", "light theme"}},
}

// facet is an attribute a statement about a category can be about: "short
// commit messages" and "no emojis in commit messages" are two facts about
// commit messages (length, emoji), not one updated fact. A category's key
// takes the first facet (in this order) its statement names, unless the
// facet is the category itself (verbosity is already about length).
type facet struct {
	name  string
	own   string // the category that is this attribute
	words []string
}

var facets = []facet{
	{"length", "verbosity", []string{"short", "shorter", "shortest", "long", "longer", "concise", "brief", "briefer",
		"terse", "succinct", "verbose", "lengthy", "wordy", "one-line", "oneline", "one-liner", "one-liners",
		"single-line", "length", "characters", "chars"}},
	{"emoji", "emoji", []string{"emoji", "emojis", "emoticons", "gitmoji"}},
	{"convention", "", []string{"conventional", "convention", "conventions", "format", "formatted", "template",
		"prefix", "prefixes", "prefixed", "imperative", "tense", "capitalized", "capitalised", "lowercase", "uppercase"}},
	{"reference", "", []string{"ticket", "tickets", "jira", "reference", "references", "link", "links"}},
	{"language", "response-language", []string{"english", "spanish", "french", "german", "italian", "portuguese",
		"dutch", "japanese", "chinese", "korean", "russian", "polish"}},
	{"tone", "tone", []string{"formal", "informal", "casual", "friendly", "polite", "humor", "humour", "jokes", "sarcasm"}},
	{"signing", "", []string{"signed", "signoff", "sign-off", "gpg", "dco"}},
}

// facetIndex maps a facet word to the facet's position.
var facetIndex = func() map[string]int {
	idx := map[string]int{}
	for i, f := range facets {
		for _, w := range f.words {
			idx[w] = i
		}
	}
	return idx
}()

// facetOf returns the first facet (in table order) the words name, other
// than the category's own attribute; "" when there is none.
func facetOf(ws []string, c *category) string {
	best := len(facets)
	for _, raw := range ws {
		if i, ok := facetIndex[trimToken(raw)]; ok && i < best && facets[i].own != c.name {
			best = i
		}
	}
	if best == len(facets) {
		return ""
	}
	return facets[best].name
}

// proceduralWords make a tool directive a workflow ("run make test before committing").
var proceduralWords = setOf("before", "after", "prior", "first", "then", "once", "whenever", "every", "each", "until", "when")

// imperativeVerbs start an instruction ("use pnpm not npm").
var imperativeVerbs = setOf(
	"use", "run", "write", "keep", "add", "avoid", "put", "make", "respond", "reply", "answer",
	"format", "include", "call", "name", "check", "test", "commit", "push", "pull", "sign", "lint",
	"ask", "explain", "show", "give", "start", "stop", "default", "stick", "follow", "document",
	"wrap", "indent", "sort", "send", "deploy", "build", "install", "update", "squash", "rebase",
	"merge", "open", "create", "remove", "delete", "verify", "cite", "mention", "do", "try", "limit",
	"prefix", "tag", "review", "pin", "set", "store", "log", "return", "handle", "treat", "assume",
	"address", "refer", "speak", "talk", "summarize", "summarise", "skip", "leave", "prefer", "go",
	"switch", "move", "target", "rename", "split", "place", "choose", "pick", "print", "save",
	"read", "reference", "link", "quote", "capitalize", "capitalise", "spell", "translate", "mark",
	"label", "don't", "dont", "never", "always", "double-check", "prioritize", "prioritise", "ping",
	"notify", "tell", "let", "rebuild", "restart", "clean", "bump", "release", "upgrade", "downgrade",
	"configure", "enable", "disable", "prefer", "reuse", "inline", "extract", "type", "annotate",
	"wait", "favor", "favour", "require", "communicate", "structure", "break", "ship",
)

// questionStarters open a question even without a question mark.
var questionStarters = setOf("do", "does", "did", "would", "should", "could", "can", "is", "are",
	"was", "were", "what", "why", "how", "where", "which", "who", "whose", "whom", "shall", "will",
	"have", "has", "am", "isn't", "aren't", "doesn't", "didn't", "won't", "wouldn't", "shouldn't",
	"couldn't", "can't", "wanna", "any", "anyone")

// auxiliaries follow "when" in a question ("when do we deploy").
var auxiliaries = setOf("do", "does", "did", "is", "are", "was", "were", "will", "would", "should",
	"can", "could", "shall", "has", "have")

// subordinators open a condition that attaches to its main clause.
var subordinators = setOf("if", "when", "whenever", "before", "after", "once", "unless", "while",
	"since", "because", "although", "though", "until", "every", "each")

// clauseStarters begin a new capturable clause after ", and", " but", ";" …
var clauseStarters = setOf("i", "i'm", "i'd", "i've", "my", "we", "we're", "we've", "we'd", "our",
	"always", "never", "please", "don't", "dont", "you", "make", "remember", "from", "going",
	"actually", "call", "let's", "under", "ensure", "stop", "it's")

// markerSentences stand alone and flag the sentence after them ("No. Use pnpm.").
var markerSentences = map[string]flag{
	"no": flagCorrection, "nope": flagCorrection, "nah": flagCorrection, "wrong": flagCorrection,
	"actually": flagCorrection, "correction": flagCorrection, "not quite": flagCorrection,
	"that's wrong": flagCorrection, "that is wrong": flagCorrection, "incorrect": flagCorrection,
	"no no": flagCorrection, "that's not right": flagCorrection, "that is not right": flagCorrection,
	"remember": flagRemember, "remember this": flagRemember, "note": flagRemember,
	"important": flagRemember, "fyi": flagRemember, "for the record": flagRemember,
	"keep in mind": flagRemember, "note to self": flagRemember, "please remember": flagRemember,
	"rule": flagPolicy, "required": flagPolicy, "constraint": flagPolicy, "hard rule": flagPolicy,
	"requirement": flagPolicy, "policy": flagPolicy,
	"from now on": flagDurable, "going forward": flagDurable, "in the future": flagDurable,
	"moving forward": flagDurable,
}

// fillerPhrases are polite or empty replies that are never facts.
var fillerPhrases = setOf("no problem", "no worries", "no thanks", "no thank you", "no need",
	"no idea", "no way", "that's fine", "that is fine", "it's fine", "it is fine", "all good",
	"never mind", "nevermind", "not really", "not yet", "not now", "not sure", "i don't know",
	"i don't think so", "i do not think so")

// abbreviations end with a dot that does not end a sentence.
var abbreviations = setOf("e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "st", "approx", "cf",
	"eg", "ie", "jr", "sr", "inc", "ltd", "co", "fig", "v")
