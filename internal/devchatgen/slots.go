package devchatgen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"
)

// A slot is a fact about a project that changes over the conversation: the
// first exchange states it, later ones replace it. Update questions ask for
// the current value; temporal ones for the first; multi-session ones for
// the history.
type slot struct {
	kind string
	// values gives n distinct values in the order they hold; at is the
	// first statement's session date (deadlines are dates after it).
	values func(r *rand.Rand, p project, n int, at time.Time) []string
	// say states v (old is the value it replaces, "" the first time).
	say func(r *rand.Rand, p project, v, old string) exchange
	// ask, askPast and askHistory phrase the three questions.
	ask, askPast, askHistory func(r *rand.Rand, p project) string
}

// exchange is a user turn and the assistant's answer.
type exchange struct{ user, assistant string }

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// distinct picks n different elements of xs in a random order.
func distinct[T any](r *rand.Rand, xs []T, n int) []T {
	idx := r.Perm(len(xs))[:min(n, len(xs))]
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

func ask(forms ...string) func(r *rand.Rand, p project) string {
	return func(r *rand.Rand, p project) string { return fmt.Sprintf(pick(r, forms), p.name) }
}

var slots = []slot{
	{kind: "port",
		values: func(r *rand.Rand, p project, n int, _ time.Time) []string {
			return distinct(r, []string{"8080", "8081", "3000", "5000", "8443", "9090", "7070", "8000", "4000", "5173", "8787", "9443"}, n)
		},
		say: func(r *rand.Rand, p project, v, old string) exchange {
			cfg := portConfig(p, v)
			if old == "" {
				return exchange{fmt.Sprintf(pick(r, []string{
					"For context: %s listens on port %s in dev, it's set in %s.",
					"Quick note, I run %s locally on port %s (see %s).",
					"%s binds its HTTP server to port %s; the value comes from %s."}), p.name, v, p.lang.config),
					fmt.Sprintf("Got it, port %s for %s. For reference this is the setting:\n\n%s\n\nIf you run it in Docker, publish the same port.", v, p.name, cfg)}
			}
			return exchange{fmt.Sprintf(pick(r, []string{
				"Heads up: I moved %s from port %s to %s because %s.",
				"Changed the port of %s: it was %s, now it's %s, since %s."}), p.name, old, v, pick(r, portReasons)),
				fmt.Sprintf("Makes sense. Update %s like this so the new port %s is used everywhere:\n\n%s\n\nRemember the health check URL in the compose file too.", p.lang.config, v, cfg)}
		},
		ask:        ask("Which port does %s listen on?", "What port is %s running on these days?", "On which port do I reach %s locally?"),
		askPast:    ask("Which port did %s use originally, before we moved it?", "What was the first port we used for %s?"),
		askHistory: ask("Which ports has %s used over time?", "List every port %s has run on."),
	},
	{kind: "version",
		values: func(r *rand.Rand, p project, n int, _ time.Time) []string {
			start := r.IntN(max(1, len(p.lang.versions)-n+1))
			return append([]string(nil), p.lang.versions[start:min(len(p.lang.versions), start+n)]...)
		},
		say: func(r *rand.Rand, p project, v, old string) exchange {
			if old == "" {
				return exchange{fmt.Sprintf("Background: %s runs on %s %s right now (%s pins it).", p.name, p.lang.name, v, p.lang.pin),
					fmt.Sprintf("Noted, %s %s. The pin looks like this:\n\n%s", p.lang.name, v, versionPin(p, v))}
			}
			return exchange{fmt.Sprintf(pick(r, []string{
				"I upgraded %s from %s %s to %s today, CI image included.",
				"Bumped %s off %s %s; it's on %s now."}), p.name, p.lang.name, old, v),
				fmt.Sprintf("Nice. Make sure the workflow uses %s %s as well:\n\n```yaml\n- uses: actions/setup-%s@v5\n  with:\n    %s-version: '%s'\n```", p.lang.name, v, setupName(p), setupName(p), v)}
		},
		ask: func(r *rand.Rand, p project) string {
			return fmt.Sprintf("Which %s version is %s on?", p.lang.name, p.name)
		},
		askPast: func(r *rand.Rand, p project) string {
			return fmt.Sprintf("Which %s version was %s on before the upgrade?", p.lang.name, p.name)
		},
		askHistory: func(r *rand.Rand, p project) string {
			return fmt.Sprintf("Which %s versions has %s gone through?", p.lang.name, p.name)
		},
	},
	{kind: "coverage",
		values: func(r *rand.Rand, p project, n int, _ time.Time) []string {
			v, out := 41+r.IntN(25), []string{}
			for range n {
				out = append(out, strconv.Itoa(v)+"%")
				v += 5 + r.IntN(12)
			}
			return out
		},
		say: func(r *rand.Rand, p project, v, old string) exchange {
			run := fmt.Sprintf("```\n$ %s\ntotal coverage: %s of statements\n```", p.lang.testCmd, v)
			if old == "" {
				return exchange{fmt.Sprintf(pick(r, []string{"CI says test coverage on %s is %s.", "The coverage report for %s came back at %s."}), p.name, v),
					fmt.Sprintf("That's the baseline then:\n\n%s\n\nThe untested parts are mostly error paths; table tests would cover them cheaply.", run)}
			}
			line := fmt.Sprintf("Coverage on %s went from %s to %s after the new tests.", p.name, old, v)
			if r.IntN(2) == 0 {
				line = fmt.Sprintf("%s is at %s test coverage now, up from %s.", p.name, v, old)
			}
			return exchange{line,
				fmt.Sprintf("Good progress. The latest run:\n\n%s\n\nI'd gate CI at a floor a little under %s so it can't slide back.", run, v)}
		},
		ask:        ask("What is the test coverage of %s now?", "How high is %s's test coverage currently?"),
		askPast:    ask("What was the test coverage of %s when we first measured it?"),
		askHistory: ask("How has the test coverage of %s changed over time?"),
	},
	{kind: "library",
		values: func(r *rand.Rand, p project, n int, _ time.Time) []string {
			return distinct(r, libraries[p.lang.name][libraryPurpose(p)], n)
		},
		say: func(r *rand.Rand, p project, v, old string) exchange {
			purpose := libraryPurpose(p)
			if old == "" {
				return exchange{fmt.Sprintf(pick(r, []string{"Let's go with %s for %s in %s.", "Decision: %s handles %s in %s."}), v, purpose, p.name),
					fmt.Sprintf("Sounds good, %s it is. Minimal setup:\n\n%s", v, librarySnippet(p, v))}
			}
			return exchange{fmt.Sprintf("I'm replacing %s with %s for %s in %s: %s.", old, v, purpose, p.name, pick(r, libraryReasons)),
				fmt.Sprintf("Fair. Switching to %s mostly touches the wiring:\n\n%s\n\nRemove the old dependency once the tests pass.", v, librarySnippet(p, v))}
		},
		ask: func(r *rand.Rand, p project) string {
			return fmt.Sprintf("Which library does %s use for %s?", p.name, libraryPurpose(p))
		},
		askPast: func(r *rand.Rand, p project) string {
			return fmt.Sprintf("Which library did we pick first for %s in %s?", libraryPurpose(p), p.name)
		},
		askHistory: func(r *rand.Rand, p project) string {
			return fmt.Sprintf("Which libraries have we used for %s in %s?", libraryPurpose(p), p.name)
		},
	},
	{kind: "deadline",
		values: func(r *rand.Rand, p project, n int, at time.Time) []string {
			d, out := at.AddDate(0, 0, 14+r.IntN(20)), []string{}
			for range n {
				out = append(out, d.Format("January 2"))
				d = d.AddDate(0, 0, 5+r.IntN(15))
			}
			return out
		},
		say: func(r *rand.Rand, p project, v, old string) exchange {
			m := milestone(p)
			if old == "" {
				return exchange{fmt.Sprintf("The %s for %s is due on %s, so that's our target.", m, p.name, v),
					fmt.Sprintf("OK, %s for the %s. I'd freeze features a week before and spend that week on the test plan.", v, m)}
			}
			return exchange{fmt.Sprintf(pick(r, []string{"The %s for %s slipped from %s to %s.", "New date: the %s of %s moved off %s, it's %s now."}), m, p.name, old, v),
				fmt.Sprintf("That buys time. With %s as the new date, the load tests can go in before the freeze.", v)}
		},
		ask: func(r *rand.Rand, p project) string {
			return fmt.Sprintf("When is the %s for %s due?", milestone(p), p.name)
		},
		askPast: func(r *rand.Rand, p project) string {
			return fmt.Sprintf("What was the original date for the %s of %s?", milestone(p), p.name)
		},
		askHistory: func(r *rand.Rand, p project) string {
			return fmt.Sprintf("How has the date of the %s for %s moved?", milestone(p), p.name)
		},
	},
	{kind: "database",
		values: func(r *rand.Rand, p project, n int, _ time.Time) []string {
			return distinct(r, []string{"PostgreSQL 14", "PostgreSQL 16", "MySQL 8.0", "SQLite", "MariaDB 10.11", "CockroachDB"}, n)
		},
		say: func(r *rand.Rand, p project, v, old string) exchange {
			if old == "" {
				return exchange{fmt.Sprintf("%s keeps its data in %s.", p.name, v),
					fmt.Sprintf("Noted, %s. The connection string goes in %s:\n\n```\nDATABASE_URL=%s\n```", v, p.lang.config, dsn(p, v))}
			}
			return exchange{fmt.Sprintf("We migrated %s from %s to %s over the weekend.", p.name, old, v),
				fmt.Sprintf("Smooth, hopefully. With %s the DSN becomes:\n\n```\nDATABASE_URL=%s\n```\n\nCheck the migration tool's dialect setting as well.", v, dsn(p, v))}
		},
		ask:        ask("Which database does %s use?", "What database is %s on now?"),
		askPast:    ask("Which database did %s use before the migration?"),
		askHistory: ask("Which databases has %s run on?"),
	},
	{kind: "setting",
		values: func(r *rand.Rand, p project, n int, _ time.Time) []string {
			s := setting(p)
			return s.values[:n]
		},
		say: func(r *rand.Rand, p project, v, old string) exchange {
			s := setting(p)
			snippet := fmt.Sprintf("```yaml\n%s: %s\n```", s.key, v)
			if old == "" {
				return exchange{fmt.Sprintf("%s has its %s set to %s.", p.name, s.name, v),
					fmt.Sprintf("OK. In config that's:\n\n%s\n\nWe can tune it once there's load data.", snippet)}
			}
			return exchange{fmt.Sprintf("I raised the %s of %s from %s to %s after %s.", s.name, p.name, old, v, pick(r, settingReasons)),
				fmt.Sprintf("Reasonable. The new config:\n\n%s\n\nKeep an eye on the p99 after the change.", snippet)}
		},
		ask: func(r *rand.Rand, p project) string {
			return fmt.Sprintf("What is the %s of %s set to?", setting(p).name, p.name)
		},
		askPast: func(r *rand.Rand, p project) string {
			return fmt.Sprintf("What was the %s of %s before I raised it?", setting(p).name, p.name)
		},
		askHistory: func(r *rand.Rand, p project) string {
			return fmt.Sprintf("What values has the %s of %s had?", setting(p).name, p.name)
		},
	},
}

var portReasons = []string{"something else on my laptop grabbed the old one", "ops reserved the old port for the sidecar",
	"it clashed with the Grafana container", "the load balancer only forwards a fixed set of ports"}

var libraryReasons = []string{"it's lighter and has fewer dependencies", "its typing is much better", "the old one is barely maintained",
	"the team already knows it from another service", "benchmarks showed it is faster for our case"}

var settingReasons = []string{"the timeouts during the nightly import", "the connection pool ran dry under load",
	"the queue backed up on Monday", "a customer complained about slow pages"}

func setupName(p project) string {
	switch p.lang.name {
	case "Go":
		return "go"
	case "Python":
		return "python"
	}
	return "node"
}

func portConfig(p project, v string) string {
	switch p.lang.name {
	case "Go":
		return fmt.Sprintf("```yaml\nserver:\n  port: %s\n  read_timeout: 5s\n```", v)
	case "Python":
		return fmt.Sprintf("```\nPORT=%s\nWORKERS=2\n```", v)
	}
	return fmt.Sprintf("```\nPORT=%s\nNEXT_PUBLIC_API_BASE=http://localhost:%s\n```", v, v)
}

func versionPin(p project, v string) string {
	switch p.lang.name {
	case "Go":
		return fmt.Sprintf("```\nmodule example.com/%s\n\ngo %s\n```", p.name, v)
	case "Python":
		return fmt.Sprintf("```toml\n[project]\nname = \"%s\"\nrequires-python = \">=%s\"\n```", p.name, v)
	}
	return fmt.Sprintf("```\n$ cat .nvmrc\n%s\n```", v)
}

var libraries = map[string]map[string][]string{
	"Go": {"HTTP routing": {"chi", "gorilla/mux", "echo", "gin"}, "structured logging": {"zap", "zerolog", "log/slog"},
		"config loading": {"viper", "koanf", "envconfig"}, "database access": {"sqlx", "pgx", "GORM", "sqlc"}},
	"Python": {"the ORM": {"SQLAlchemy", "Peewee", "Tortoise ORM"}, "outgoing HTTP calls": {"requests", "httpx", "aiohttp"},
		"background jobs": {"Celery", "RQ", "Dramatiq"}, "data validation": {"pydantic", "marshmallow", "attrs"}},
	"Node": {"state management": {"Redux Toolkit", "Zustand", "Jotai"}, "unit tests": {"Jest", "Vitest", "Mocha"},
		"data fetching": {"SWR", "TanStack Query", "RTK Query"}, "form handling": {"React Hook Form", "Formik", "Final Form"}},
}

// libraryPurpose is the one purpose a project's library slot is about,
// fixed by the project so that questions stay unambiguous.
func libraryPurpose(p project) string {
	purposes := []string{}
	for k := range libraries[p.lang.name] {
		purposes = append(purposes, k)
	}
	sortStrings(purposes)
	return purposes[len(p.name)%len(purposes)]
}

func librarySnippet(p project, lib string) string {
	switch p.lang.name {
	case "Go":
		return fmt.Sprintf("```go\n// go get %s\nimport %q\n\nfunc setup() error {\n\t// wire %s into main.go\n\treturn nil\n}\n```", lib, lib, lib)
	case "Python":
		return fmt.Sprintf("```python\n# pip install %s\nimport %s\n```", lib, pyImport(lib))
	}
	return fmt.Sprintf("```ts\n// npm install %s\nimport * as lib from '%s';\n```", lib, jsImport(lib))
}

func pyImport(lib string) string {
	switch lib {
	case "Tortoise ORM":
		return "tortoise"
	case "SQLAlchemy":
		return "sqlalchemy"
	case "Peewee":
		return "peewee"
	case "Celery":
		return "celery"
	case "RQ":
		return "rq"
	case "Dramatiq":
		return "dramatiq"
	}
	return lib
}

func jsImport(lib string) string {
	m := map[string]string{"Redux Toolkit": "@reduxjs/toolkit", "Zustand": "zustand", "Jotai": "jotai", "Jest": "jest", "Vitest": "vitest",
		"Mocha": "mocha", "SWR": "swr", "TanStack Query": "@tanstack/react-query", "RTK Query": "@reduxjs/toolkit/query/react",
		"React Hook Form": "react-hook-form", "Formik": "formik", "Final Form": "react-final-form"}
	return m[lib]
}

func milestone(p project) string {
	ms := []string{"beta release", "public launch", "security review", "v2 cutover", "client demo"}
	return ms[(len(p.name)+int(p.name[0]))%len(ms)]
}

func dsn(p project, db string) string {
	name := p.name
	switch {
	case db == "SQLite":
		return "sqlite:///var/lib/" + name + "/data.db"
	case db == "MySQL 8.0" || db == "MariaDB 10.11":
		return "mysql://app@localhost:3306/" + name
	case db == "CockroachDB":
		return "postgresql://app@localhost:26257/" + name + "?sslmode=disable"
	}
	return "postgres://app@localhost:5432/" + name + "?sslmode=disable"
}

type settingDef struct {
	name, key string
	values    []string
}

func setting(p project) settingDef {
	defs := []settingDef{
		{"maximum number of DB connections", "max_open_conns", []string{"20", "50", "120"}},
		{"request timeout", "request_timeout", []string{"5s", "15s", "30s"}},
		{"worker concurrency", "concurrency", []string{"4", "12", "32"}},
		{"cache TTL", "cache_ttl", []string{"60s", "5m", "15m"}},
	}
	return defs[int(p.name[len(p.name)-1])%len(defs)]
}
