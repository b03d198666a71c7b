package devchatgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// editorSlot is the user's own changing fact (a preference update).
var editorSlot = slot{kind: "editor",
	values: func(r *rand.Rand, _ project, n int, _ time.Time) []string {
		return distinct(r, []string{"VS Code", "Neovim", "GoLand", "Zed", "Emacs", "Helix"}, n)
	},
	say: func(r *rand.Rand, _ project, v, old string) exchange {
		if old == "" {
			return exchange{fmt.Sprintf("By the way, I do all my editing in %s, so tips for %s are welcome.", v, v),
				fmt.Sprintf("Good to know. In %s, format-on-save plus the language server covers most of what we need.", v)}
		}
		return exchange{fmt.Sprintf("I switched from %s to %s last weekend, so editor tips should be for %s from now on.", old, v, v),
			fmt.Sprintf("Welcome to %s! First thing: set up the language server and a keybinding for running the nearest test.", v)}
	},
	ask:        func(*rand.Rand, project) string { return "Which editor do I use now?" },
	askPast:    func(*rand.Rand, project) string { return "Which editor did I use before I switched?" },
	askHistory: func(*rand.Rand, project) string { return "Which editors have I used while we worked together?" },
}

// A fact is a one-off event: stated once, asked about once.
type fact struct {
	kind     string // error, artifact, decision, preference, static
	project  string // "" for the user's own
	ex       exchange
	answer   string // a phrase of the evidence turns
	question string
	// about is how a temporal question names it ("the error", "the
	// decision"); "" when it is not asked about by time.
	about string
}

type errorDef struct{ key, user, fix, answer string }

// errorsFor are errors met in a project's language with their fixes; key
// is how a question names the error without quoting it.
func errorsFor(r *rand.Rand, p project) []errorDef {
	comp, thing := pick(r, p.lang.components), pick(r, p.things)
	switch p.lang.name {
	case "Go":
		return []errorDef{
			{"the nil map panic", fmt.Sprintf("%s crashes on start:\n\n```\npanic: assignment to entry in nil map\n\ngoroutine 1 [running]:\nexample.com/%s/%s.(*Registry).Add(...)\n```", p.name, p.name, comp),
				fmt.Sprintf("The Registry's map is never created; initialise the map in the constructor:\n\n```go\nfunc NewRegistry() *Registry {\n\treturn &Registry{%ss: make(map[string]*%s)}\n}\n```", thing, title(thing)), "initialise the map in the constructor"},
			{"the data race the race detector found", fmt.Sprintf("`go test -race` fails in %s:\n\n```\nWARNING: DATA RACE\nWrite at 0x00c000124010 by goroutine 12:\n  example.com/%s/%s.(*Cache).Put()\n```", comp, p.name, comp),
				"Two goroutines write the cache map without a lock, so guard the cache with a mutex:\n\n```go\nfunc (c *Cache) Put(k string, v []byte) {\n\tc.mu.Lock()\n\tdefer c.mu.Unlock()\n\tc.items[k] = v\n}\n```", "guard the cache with a mutex"},
			{"the context deadline errors", fmt.Sprintf("Calls from %s to the %s API keep failing with `context deadline exceeded` after exactly 2s.", p.name, thing),
				"The client reuses the request context, which has a 2s budget. Give the outgoing call its own timeout:\n\n```go\nctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 10*time.Second)\ndefer cancel()\n```", "give the outgoing call its own timeout"},
			{"the import cycle", fmt.Sprintf("Build broke: `import cycle not allowed` between %s and internal/models.", comp),
				"Move the shared types into a leaf package (internal/types) that both import; neither should import the other.", "move the shared types into a leaf package"},
		}
	case "Python":
		return []errorDef{
			{"the datetime serialization error", fmt.Sprintf("The %s endpoint in %s fails:\n\n```\nTypeError: Object of type datetime is not JSON serializable\n```", thing, p.name),
				"json.dumps doesn't know datetimes, so pass a default that calls isoformat:\n\n```python\njson.dumps(payload, default=lambda o: o.isoformat())\n```", "pass a default that calls isoformat"},
			{"the missing module error", fmt.Sprintf("Running %s in the container gives `ModuleNotFoundError: No module named 'dateutil'`.", comp),
				"The package is python-dateutil and it's only in your local venv. Add python-dateutil to the dependencies in pyproject.toml and rebuild the image.", "add python-dateutil to the dependencies"},
			{"the recursion error", fmt.Sprintf("%s hits `RecursionError: maximum recursion depth exceeded` when walking nested %ss.", comp, thing),
				"The tree has a cycle. Track visited ids:\n\n```python\ndef walk(node, seen=None):\n    seen = seen or set()\n    if node.id in seen:\n        return\n    seen.add(node.id)\n    for child in node.children:\n        walk(child, seen)\n```", "track visited ids"},
			{"the database connection refused error", fmt.Sprintf("Tests in %s fail with `psycopg2.OperationalError: connection refused` on CI only.", p.name),
				"CI starts the tests before the database service is ready. Add a health check to the database service and wait for it:\n\n```yaml\noptions: >-\n  --health-cmd pg_isready --health-interval 2s\n```", "add a health check to the database service"},
		}
	}
	return []errorDef{
		{"the crash when the list is undefined", fmt.Sprintf("%s crashes: `TypeError: Cannot read properties of undefined (reading 'map')`.", comp),
			fmt.Sprintf("The %ss are undefined until the fetch resolves. Default to an empty list:\n\n```tsx\nconst items = data?.%ss ?? [];\nreturn items.map((it) => <Row key={it.id} item={it} />);\n```", thing, thing), "default to an empty list"},
		{"the CORS error", fmt.Sprintf("The browser blocks calls from %s: `No 'Access-Control-Allow-Origin' header is present on the requested resource`.", p.name),
			"The API has to allow the dev origin with the cors middleware. With Express:\n\n```ts\nimport cors from 'cors';\napp.use(cors({ origin: 'http://localhost:5173', credentials: true }));\n```", "allow the dev origin with the cors middleware"},
		{"the missing key warning", fmt.Sprintf("React keeps warning in %s: `Each child in a list should have a unique \"key\" prop.`", comp),
			fmt.Sprintf("Give each row a stable key, the %s id, not the array index.", thing), "a stable key"},
		{"the hydration mismatch", fmt.Sprintf("Next.js complains in %s: `Text content does not match server-rendered HTML`.", comp),
			"You render `new Date()` on the server and again on the client. Format the date on the client only, inside useEffect.", "format the date on the client only"},
	}
}

type artifactDef struct{ name, request, code, answer string }

// artifactsFor are pieces of code the assistant writes on request; answer
// is a line only that code has.
func artifactsFor(r *rand.Rand, p project) []artifactDef {
	thing := pick(r, p.things)
	port := []string{"8080", "3000", "8000"}[len(p.name)%3]
	common := []artifactDef{
		{"Dockerfile", fmt.Sprintf("Can you write a Dockerfile for %s?", p.name),
			fmt.Sprintf("Here's a multi-stage one:\n\n```dockerfile\nFROM %s AS build\nWORKDIR /src\nCOPY . .\nRUN %s\n\nFROM gcr.io/distroless/base-debian12\nCOPY --from=build /out/%s /app\nEXPOSE %s\nUSER nonroot\nENTRYPOINT [\"/app\"]\n```", baseImage(p), buildCmd(p), p.name, port),
			"gcr.io/distroless/base-debian12"},
		{"SQL query for the monthly report", fmt.Sprintf("I need a SQL query for %s: total per month of %ss for the last year.", p.name, thing),
			fmt.Sprintf("```sql\nSELECT date_trunc('month', created_at) AS month,\n       count(*) AS %ss,\n       sum(amount_cents) / 100.0 AS total\nFROM %ss\nWHERE created_at >= now() - interval '12 months'\nGROUP BY 1\nORDER BY 1;\n```", thing, thing),
			"date_trunc('month', created_at)"},
		{"CI workflow", fmt.Sprintf("Write me a GitHub Actions workflow for %s that runs the tests on every push.", p.name),
			fmt.Sprintf("```yaml\nname: ci\non: [push, pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-%s@v5\n      - run: %s\n```", setupName(p), p.lang.testCmd),
			"on: [push, pull_request]"},
		{"backup script", fmt.Sprintf("Can you give me a shell script that backs up the %s database every night?", p.name),
			fmt.Sprintf("```bash\n#!/usr/bin/env bash\nset -euo pipefail\nstamp=$(date +%%Y-%%m-%%d)\npg_dump --format=custom \"$DATABASE_URL\" > \"/backups/%s-$stamp.dump\"\nfind /backups -name '%s-*.dump' -mtime +14 -delete\n```", p.name, p.name),
			"-mtime +14 -delete"},
		{"nginx config", fmt.Sprintf("I need an nginx server block in front of %s with gzip on.", p.name),
			fmt.Sprintf("```nginx\nserver {\n    listen 80;\n    server_name %s.example.com;\n    gzip on;\n    gzip_types application/json text/css application/javascript;\n    location / {\n        proxy_pass http://127.0.0.1:%s;\n        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;\n    }\n}\n```", p.name, port),
			"gzip_types application/json"},
	}
	var own artifactDef
	switch p.lang.name {
	case "Go":
		own = artifactDef{"request id middleware", fmt.Sprintf("Write an HTTP middleware for %s that adds a request id to every request.", p.name),
			"```go\nfunc RequestID(next http.Handler) http.Handler {\n\treturn http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {\n\t\tid := r.Header.Get(\"X-Request-Id\")\n\t\tif id == \"\" {\n\t\t\tid = uuid.NewString()\n\t\t}\n\t\tw.Header().Set(\"X-Request-Id\", id)\n\t\tnext.ServeHTTP(w, r.WithContext(withRequestID(r.Context(), id)))\n\t})\n}\n```",
			"func RequestID(next http.Handler) http.Handler"}
	case "Python":
		own = artifactDef{"retry decorator", fmt.Sprintf("Write a retry decorator for the flaky %s API calls in %s.", thing, p.name),
			"```python\ndef retry(times=3, delay=0.5):\n    def wrap(fn):\n        @functools.wraps(fn)\n        def inner(*args, **kwargs):\n            for attempt in range(times):\n                try:\n                    return fn(*args, **kwargs)\n                except (TimeoutError, ConnectionError):\n                    if attempt == times - 1:\n                        raise\n                    time.sleep(delay * 2 ** attempt)\n        return inner\n    return wrap\n```",
			"def retry(times=3, delay=0.5)"}
	default:
		own = artifactDef{"debounce hook", fmt.Sprintf("I need a React hook in %s that debounces the search input.", p.name),
			"```ts\nexport function useDebounced<T>(value: T, ms = 300): T {\n  const [v, setV] = useState(value);\n  useEffect(() => {\n    const t = setTimeout(() => setV(value), ms);\n    return () => clearTimeout(t);\n  }, [value, ms]);\n  return v;\n}\n```",
			"export function useDebounced<T>"}
	}
	return append(common, own)
}

func baseImage(p project) string {
	switch p.lang.name {
	case "Go":
		return "golang:1.23"
	case "Python":
		return "python:3.12-slim"
	}
	return "node:20-alpine"
}

func buildCmd(p project) string {
	switch p.lang.name {
	case "Go":
		return "CGO_ENABLED=0 go build -o /out/" + p.name + " ./cmd/server"
	case "Python":
		return "pip install --target /out/" + p.name + " ."
	}
	return "npm ci && npm run build && cp -r dist /out/" + p.name
}

type decisionDef struct{ topic, statement, answer string }

func decisionsFor(r *rand.Rand, p project) []decisionDef {
	thing := pick(r, p.things)
	return []decisionDef{
		{fmt.Sprintf("pagination for the %ss endpoint", thing), fmt.Sprintf("the %ss endpoint uses cursor-based pagination keyed on (created_at, id), no offsets", thing), "cursor-based pagination"},
		{"how to store money amounts", "amounts are stored as integer cents in BIGINT columns, never floats", "integer cents"},
		{"the primary key format", "new tables get UUIDv7 primary keys so they sort by creation time", "UUIDv7"},
		{"the merge strategy for pull requests", "we squash-merge every pull request and keep main linear", "squash-merge"},
		{"retries for calls to the payment provider", "retry with exponential backoff, at most 5 attempts, capped at 30 seconds", "exponential backoff"},
		{"the API versioning scheme", "breaking changes go under a /v2 path prefix, the old routes stay for six months", "/v2 path prefix"},
		{"time zones", "everything is stored in UTC and converted in the UI only", "stored in UTC"},
		{"feature flags", "feature flags live in a flags table and are read once at startup", "flags table"},
	}
}

type preferenceDef struct{ question, statement, answer string }

var preferences = []preferenceDef{
	{"How do I like my commit messages written?", "please write my commit messages in Conventional Commits style (feat:, fix:, chore:)", "Conventional Commits"},
	{"What kind of tests do I prefer?", "I prefer table-driven tests over one test function per case", "table-driven tests"},
	{"How should answers to me be formatted?", "keep answers short and put the code first, explanations after", "code first"},
	{"Which shell do I use?", "my shell is fish, so please give me fish syntax for env vars", "fish"},
	{"How do I name my git branches?", "I name branches like feature/<ticket>-<short-slug>", "feature/<ticket>-<short-slug>"},
	{"Which time zone am I in?", "I'm on Lisbon time, so schedule anything in WET", "Lisbon time"},
	{"What JavaScript style do I use?", "my JS style is 2 spaces, single quotes and no semicolons", "single quotes and no semicolons"},
	{"Do I want comments in generated code?", "I don't want comments in generated code unless they explain a why", "unless they explain a why"},
}

type staticDef struct{ question, statement, answer string }

func staticsFor(r *rand.Rand, p project) []staticDef {
	hour := fmt.Sprintf("%02d:%02d UTC", 1+r.IntN(5), 15*r.IntN(4))
	return []staticDef{
		{fmt.Sprintf("What is the S3 bucket for the exports of %s?", p.name), fmt.Sprintf("%s writes its exports to the S3 bucket %s-exports-prod", p.name, p.name), p.name + "-exports-prod"},
		{fmt.Sprintf("When does the nightly job of %s run?", p.name), fmt.Sprintf("the nightly job of %s runs at %s", p.name, hour), hour},
		{fmt.Sprintf("Which Slack channel gets the alerts of %s?", p.name), fmt.Sprintf("alerts for %s go to the #%s-alerts Slack channel", p.name, p.name), "#" + p.name + "-alerts"},
		{fmt.Sprintf("What is the staging host of %s?", p.name), fmt.Sprintf("staging for %s lives at staging-%s.internal.example.net", p.name, p.name), "staging-" + p.name + ".internal.example.net"},
	}
}

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
