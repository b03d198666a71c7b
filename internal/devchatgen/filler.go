package devchatgen

import (
	"fmt"
	"math/rand/v2"
)

// filler is the everyday work between the facts: questions about code,
// tools and errors that no question asks about, and short turns.
func filler(r *rand.Rand, p project) exchange {
	if r.IntN(6) == 0 {
		return pick(r, smallTalk)
	}
	thing, other := pick(r, p.things), pick(r, p.things)
	n := 2 + r.IntN(40)
	var forms []func() exchange
	switch p.lang.name {
	case "Go":
		forms = []func() exchange{
			func() exchange {
				return exchange{fmt.Sprintf("How do I sort a slice of %ss by CreatedAt, newest first?", thing),
					fmt.Sprintf("Use slices.SortFunc with a comparison:\n\n```go\nslices.SortFunc(%ss, func(a, b %s) int {\n\treturn b.CreatedAt.Compare(a.CreatedAt)\n})\n```", thing, title(thing))}
			},
			func() exchange {
				return exchange{fmt.Sprintf("What's the idiomatic way to wrap the error when loading a %s fails?", thing),
					fmt.Sprintf("Say what you were doing and keep the cause:\n\n```go\n%s, err := s.load%s(ctx, id)\nif err != nil {\n\treturn fmt.Errorf(\"load %s %%s: %%w\", id, err)\n}\n```\n\nCallers can still use errors.Is(err, sql.ErrNoRows).", thing, title(thing), thing)}
			},
			func() exchange {
				return exchange{fmt.Sprintf("Can you turn this into a table test? It checks that Parse%s rejects %d bad inputs.", title(thing), n),
					fmt.Sprintf("```go\nfunc TestParse%sRejects(t *testing.T) {\n\tfor name, in := range map[string]string{\n\t\t\"empty\": \"\",\n\t\t\"spaces\": \"   \",\n\t\t\"too long\": strings.Repeat(\"x\", %d),\n\t} {\n\t\tt.Run(name, func(t *testing.T) {\n\t\t\tif _, err := Parse%s(in); err == nil {\n\t\t\t\tt.Fatal(\"no error\")\n\t\t\t}\n\t\t})\n\t}\n}\n```", title(thing), 200+n, title(thing))}
			},
			func() exchange {
				return exchange{fmt.Sprintf("How do I run %d workers over a channel of %s ids and wait for all of them?", n%8+2, other),
					fmt.Sprintf("errgroup with a limit does it:\n\n```go\ng, ctx := errgroup.WithContext(ctx)\ng.SetLimit(%d)\nfor id := range ids {\n\tg.Go(func() error { return process%s(ctx, id) })\n}\nreturn g.Wait()\n```", n%8+2, title(other))}
			},
			func() exchange {
				return exchange{"Is it fine to pass a *sql.Tx through the service layer?",
					fmt.Sprintf("Better to pass a small interface both *sql.DB and *sql.Tx satisfy, so the %s repository doesn't care which it gets:\n\n```go\ntype querier interface {\n\tQueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)\n\tExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)\n}\n```", thing)}
			},
		}
	case "Python":
		forms = []func() exchange{
			func() exchange {
				return exchange{fmt.Sprintf("How do I group a list of %s dicts by their status?", thing),
					fmt.Sprintf("```python\nfrom collections import defaultdict\n\nby_status = defaultdict(list)\nfor %s in %ss:\n    by_status[%s[\"status\"]].append(%s)\n```", thing, thing, thing, thing)}
			},
			func() exchange {
				return exchange{fmt.Sprintf("Write a pytest fixture that gives me %d fake %ss.", n, thing),
					fmt.Sprintf("```python\n@pytest.fixture\ndef %ss(faker):\n    return [{\"id\": i, \"name\": faker.word()} for i in range(%d)]\n```", thing, n)}
			},
			func() exchange {
				return exchange{fmt.Sprintf("How do I read a big CSV of %ss without loading it all?", other),
					fmt.Sprintf("Stream it with csv.DictReader and process row by row:\n\n```python\nwith open(path, newline=\"\") as f:\n    for row in csv.DictReader(f):\n        handle_%s(row)\n```\n\nWith pandas, `read_csv(path, chunksize=%d)` does the same in batches.", other, 1000*n)}
			},
			func() exchange {
				return exchange{"What's the cleanest way to add type hints to a function that returns either a value or None?",
					fmt.Sprintf("```python\ndef find_%s(%s_id: int) -> %s | None:\n    ...\n```\n\nOn 3.10+ the `X | None` form is preferred over Optional[X].", thing, thing, title(thing))}
			},
			func() exchange {
				return exchange{fmt.Sprintf("Can you explain why my list comprehension over %ss is slow?", thing),
					"Each iteration calls the database through a lazy relationship, so it's N+1 queries. Load the relation up front (selectinload in SQLAlchemy, prefetch_related in Django) and the loop becomes a pure Python pass."}
			},
		}
	default:
		forms = []func() exchange{
			func() exchange {
				return exchange{fmt.Sprintf("How do I type the props of a %sList component that takes an array and an onSelect callback?", title(thing)),
					fmt.Sprintf("```ts\ntype %sListProps = {\n  items: %s[];\n  onSelect: (id: string) => void;\n};\n\nexport function %sList({ items, onSelect }: %sListProps) {\n  return <ul>{items.map((it) => <li key={it.id} onClick={() => onSelect(it.id)}>{it.name}</li>)}</ul>;\n}\n```", title(thing), title(thing), title(thing), title(thing))}
			},
			func() exchange {
				return exchange{fmt.Sprintf("How can I cancel the %s fetch when the component unmounts?", other),
					fmt.Sprintf("Use an AbortController:\n\n```ts\nuseEffect(() => {\n  const ctrl = new AbortController();\n  fetch('/api/%ss', { signal: ctrl.signal }).then((r) => r.json()).then(set%ss);\n  return () => ctrl.abort();\n}, []);\n```", other, title(other))}
			},
			func() exchange {
				return exchange{fmt.Sprintf("Write a Jest-style test that the %s reducer adds an item.", thing),
					fmt.Sprintf("```ts\ntest('adds a %s', () => {\n  const state = reducer(initial, { type: 'add', %s: { id: '%d' } });\n  expect(state.items).toHaveLength(1);\n});\n```", thing, thing, n)}
			},
			func() exchange {
				return exchange{"What's the difference between useMemo and useCallback again?",
					"useMemo caches a computed value, useCallback caches a function identity. Use them when a child is memoised or a value is expensive; otherwise they just add noise."}
			},
			func() exchange {
				return exchange{fmt.Sprintf("How do I format a price in %s in euros with two decimals?", p.name),
					"```ts\nconst fmt = new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' });\nfmt.format(cents / 100);\n```"}
			},
		}
	}
	forms = append(forms,
		func() exchange {
			return exchange{fmt.Sprintf("How do I find which commit broke the %s tests?", p.name),
				fmt.Sprintf("git bisect with the test as the oracle:\n\n```bash\ngit bisect start HEAD v0.%d.0\ngit bisect run %s\n```", n%9+1, p.lang.testCmd)}
		},
		func() exchange {
			return exchange{fmt.Sprintf("Postgres question: how do I find the %d slowest queries?", n%10+5),
				fmt.Sprintf("```sql\nSELECT query, calls, mean_exec_time\nFROM pg_stat_statements\nORDER BY mean_exec_time DESC\nLIMIT %d;\n```\n\nYou need the pg_stat_statements extension loaded.", n%10+5)}
		},
		func() exchange {
			return exchange{"My docker build is slow because it reinstalls dependencies every time. Why?",
				"COPY . . comes before the install step, so any file change busts the cache. Copy the lock file first, install, then copy the rest."}
		},
		func() exchange {
			return exchange{fmt.Sprintf("Give me a one-liner to count the lines of code in %s, without tests.", p.name),
				fmt.Sprintf("```bash\ngit ls-files | grep -E '\\.(go|py|ts|tsx)$' | grep -v test | xargs wc -l | tail -1\n```\n\nLast time it was around %d00 lines for a project like this.", n)}
		},
	)
	return pick(r, forms)()
}

var smallTalk = []exchange{
	{"Thanks, that worked!", "Great, glad it's sorted."},
	{"ok, next thing", "Sure, go ahead."},
	{"Hmm, let me try that and get back to you.", "Take your time."},
	{"Brb, standup.", "No problem."},
	{"Tests are green now.", "Nice work."},
	{"That's for sure!", "Indeed."},
	{"Hey, what's up?", "Hi! What are we working on today?"},
	{"Coffee first, then code.", "Sounds like a plan."},
}
