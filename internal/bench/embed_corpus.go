package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Long, code-heavy messages for the long-content phase of bench embed and
// for bench drain: what a coding agent's long turns hold (prose, Go and
// Python blocks, stack traces, log lines), 1 to 8 KB each. Message i
// depends only on i; names and numbers drawn per message keep any two of
// them apart for dedup (their details differ).
const (
	LongMinBytes = 1024
	LongMaxBytes = 8192 // memory.MaxContentChars; the text is ASCII
	seedLong     = 0x5eed0010
)

var (
	longNouns = []string{"user", "cache", "order", "invoice", "session", "token", "queue", "worker", "shard", "tenant",
		"billing", "report", "parser", "stream", "index", "lease", "retry", "batch", "config", "schema", "ledger",
		"account", "webhook", "upload", "payment", "route", "metric", "snapshot", "cursor", "bucket", "replica", "job"}
	longVerbs = []string{"load", "store", "flush", "sync", "merge", "fetch", "parse", "encode", "resolve", "apply",
		"rotate", "compact", "publish", "reconcile", "validate", "drain", "refresh", "migrate", "render", "split"}
	longAdjs = []string{"stale", "pending", "partial", "expired", "duplicate", "missing", "corrupt", "slow", "empty",
		"unbounded", "concurrent", "nested", "cached", "retried", "orphaned", "locked"}
	longPkgs = []string{"internal/billing", "pkg/storage", "cmd/api", "services/auth", "lib/queue", "app/models",
		"internal/sync", "pkg/render", "src/workers", "api/handlers"}
)

// LongMessage returns message i: between LongMinBytes and LongMaxBytes of
// text, never cut inside a line.
func LongMessage(i int) string { return LongMessageMax(i, LongMaxBytes) }

// LongMessageMax is LongMessage with at most maxBytes (in [LongMinBytes,
// LongMaxBytes]).
func LongMessageMax(i, maxBytes int) string {
	r := rand.New(rand.NewPCG(seedLong, uint64(i)))
	g := longGen{r: r}
	target := LongMinBytes + r.IntN(maxBytes-LongMinBytes+1)
	var b strings.Builder
	b.WriteString(g.prose(2 + r.IntN(3)))
	for b.Len() < target {
		b.WriteString("\n\n")
		switch r.IntN(5) {
		case 0:
			b.WriteString(g.prose(3 + r.IntN(5)))
		case 1:
			b.WriteString(g.goBlock())
		case 2:
			b.WriteString(g.pyBlock())
		case 3:
			b.WriteString(g.stackTrace())
		default:
			b.WriteString(g.logLines())
		}
	}
	s := b.String()
	if len(s) > maxBytes {
		s = s[:strings.LastIndexByte(s[:maxBytes], '\n')]
	}
	return strings.TrimRight(s, "\n")
}

type longGen struct{ r *rand.Rand }

func (g longGen) pick(words []string) string { return words[g.r.IntN(len(words))] }

// ident is a camelCase name of two or three words.
func (g longGen) ident(exported bool) string {
	parts := []string{g.pick(longVerbs), g.pick(longNouns)}
	if g.r.IntN(2) == 0 {
		parts = append(parts, g.pick(longNouns))
	}
	for i := range parts {
		if i > 0 || exported {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

func (g longGen) snake() string { return g.pick(longVerbs) + "_" + g.pick(longNouns) }

func (g longGen) prose(sentences int) string {
	templates := []string{
		"The %s %s fails when the %s is %s, so %s never finishes.",
		"I think %s should %s the %s before it calls %s.",
		"After the deploy the %s looked %s and %d requests timed out after %d ms.",
		"We moved %s into %s because the %s kept getting %s.",
		"Can you check why %s returns a %s %s on tenant %d?",
		"The fix is to %s the %s inside %s and retry at most %d times.",
	}
	var b strings.Builder
	for s := range sentences {
		if s > 0 {
			b.WriteByte(' ')
		}
		switch t := g.r.IntN(len(templates)); t {
		case 0:
			fmt.Fprintf(&b, templates[t], g.pick(longNouns), g.pick(longVerbs), g.pick(longNouns), g.pick(longAdjs), g.ident(false))
		case 1:
			fmt.Fprintf(&b, templates[t], g.ident(true), g.pick(longVerbs), g.pick(longNouns), g.ident(false))
		case 2:
			fmt.Fprintf(&b, templates[t], g.pick(longNouns), g.pick(longAdjs), 10+g.r.IntN(5000), 100+g.r.IntN(30000))
		case 3:
			fmt.Fprintf(&b, templates[t], g.ident(true), g.pick(longPkgs), g.pick(longNouns), g.pick(longAdjs))
		case 4:
			fmt.Fprintf(&b, templates[t], g.ident(true), g.pick(longAdjs), g.pick(longNouns), 1000+g.r.IntN(90000))
		default:
			fmt.Fprintf(&b, templates[t], g.pick(longVerbs), g.pick(longNouns), g.ident(true), 2+g.r.IntN(9))
		}
	}
	return b.String()
}

func (g longGen) goBlock() string {
	fn, typ, arg := g.ident(true), g.ident(true), g.pick(longNouns)
	var b strings.Builder
	fmt.Fprintf(&b, "```go\n// %s %ss the %s %s of %s.\n", fn, g.pick(longVerbs), g.pick(longAdjs), g.pick(longNouns), arg)
	fmt.Fprintf(&b, "func (s *%s) %s(ctx context.Context, %s []%s) (int, error) {\n", typ, fn, arg, g.ident(true))
	fmt.Fprintf(&b, "\tn := 0\n\tfor i, it := range %s {\n", arg)
	fmt.Fprintf(&b, "\t\tif err := s.%s(ctx, it); err != nil {\n", g.ident(false))
	fmt.Fprintf(&b, "\t\t\treturn n, fmt.Errorf(\"%s %s %%d: %%w\", i, err)\n\t\t}\n", g.pick(longVerbs), arg)
	fmt.Fprintf(&b, "\t\tif it.%s > %d {\n\t\t\ts.%s.Add(%d)\n\t\t}\n\t\tn++\n\t}\n", g.ident(true), g.r.IntN(10000), g.ident(false), 1+g.r.IntN(64))
	fmt.Fprintf(&b, "\treturn n, s.%s(ctx)\n}\n```", g.ident(false))
	return b.String()
}

func (g longGen) pyBlock() string {
	fn, cls := g.snake(), g.ident(true)
	var b strings.Builder
	fmt.Fprintf(&b, "```python\nclass %s:\n    def %s(self, %s, limit=%d):\n", cls, fn, g.pick(longNouns), 10+g.r.IntN(990))
	fmt.Fprintf(&b, "        \"\"\"%s the %s %s.\"\"\"\n", strings.ToUpper(g.pick(longVerbs)[:1])+g.pick(longVerbs)[1:], g.pick(longAdjs), g.pick(longNouns))
	fmt.Fprintf(&b, "        rows = self.%s.%s(limit=limit)\n", g.pick(longNouns), g.snake())
	fmt.Fprintf(&b, "        for row in rows:\n            if row.%s is None:\n                raise ValueError(f\"%s {row.id} has no %s\")\n",
		g.pick(longNouns), g.pick(longNouns), g.pick(longNouns))
	fmt.Fprintf(&b, "            self.%s(row, retries=%d)\n        return len(rows)\n```", g.snake(), 1+g.r.IntN(8))
	return b.String()
}

func (g longGen) stackTrace() string {
	var b strings.Builder
	fmt.Fprintf(&b, "```\npanic: runtime error: %s\n\ngoroutine %d [running]:\n",
		[]string{"invalid memory address or nil pointer dereference", "index out of range [3] with length 3", "slice bounds out of range"}[g.r.IntN(3)],
		1+g.r.IntN(900))
	for range 3 + g.r.IntN(5) {
		pkg := g.pick(longPkgs)
		fmt.Fprintf(&b, "example.com/app/%s.(*%s).%s(0x%x, 0x%x)\n\t/src/app/%s/%s.go:%d +0x%x\n",
			pkg, g.ident(true), g.ident(true), 0xc000100000+g.r.IntN(1<<20), g.r.IntN(1<<16), pkg, g.snake(), 10+g.r.IntN(900), g.r.IntN(0x400))
	}
	b.WriteString("```")
	return b.String()
}

func (g longGen) logLines() string {
	var b strings.Builder
	b.WriteString("```\n")
	for range 3 + g.r.IntN(6) {
		fmt.Fprintf(&b, "2026-11-%02dT%02d:%02d:%02d.%03dZ %s %s=%s %s=%d msg=\"%s %s %s\" took=%dms\n",
			1+g.r.IntN(28), g.r.IntN(24), g.r.IntN(60), g.r.IntN(60), g.r.IntN(1000),
			[]string{"INFO", "WARN", "ERROR", "DEBUG"}[g.r.IntN(4)], g.pick(longNouns), g.ident(false), g.pick(longNouns), g.r.IntN(100000),
			g.pick(longVerbs), g.pick(longAdjs), g.pick(longNouns), g.r.IntN(5000))
	}
	b.WriteString("```")
	return b.String()
}
