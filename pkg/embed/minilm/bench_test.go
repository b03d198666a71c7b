package minilm

import (
	"context"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/internal/cputime"
)

// shortSentences are memory-sized facts of 6 to 14 tokens.
var shortSentences = []string{
	"User prefers tabs over spaces",
	"npm run build compiles TypeScript to dist/",
	"The API server listens on port 8080",
	"Always run go vet before committing",
	"The staging database is read-only on Fridays",
	"Alice owns the billing service",
	"Deploys go through the release pipeline",
	"Use pnpm, not npm, in this repository",
	"The user's timezone is Europe/Berlin",
	"Tests must not sleep; poll with a deadline",
	"The cache is invalidated on every schema change",
	"Bob prefers short commit messages",
	"Logs are shipped to Loki via promtail",
	"The frontend uses React 18 with Vite",
	"Never force-push to the main branch",
	"Redis is only used for locks and debounce",
	"The project targets Go 1.26",
	"ClickHouse stores the usage events",
	"The user likes concise answers",
	"CI runs on two cores with 24 GB of RAM",
	"Migrations live in db/migrations",
	"Use slog with lowercase messages",
	"The customer is on the enterprise plan",
	"Invoices are generated on the first of the month",
	"The mobile app is written in Kotlin",
	"Feature flags are stored in LaunchDarkly",
	"The team meets every Tuesday at 10am",
	"Errors are wrapped with what was being done",
	"The user is allergic to peanuts",
	"Docker images are built with ko",
	"The main branch is protected",
	"Kubernetes manifests are in deploy/k8s",
	"How do I build the project?",
	"What is the user's favourite editor?",
	"Where are the integration tests?",
	"Which port does the query service use?",
	"The payment webhook retries five times",
	"Backups run nightly at 2am UTC",
	"The search index is rebuilt weekly",
	"Carol is the on-call engineer this week",
	"The user writes documentation in Markdown",
	"Secrets are managed with Vault",
	"The build fails without protoc installed",
	"Use table tests with t.Run",
	"The design doc lives in shared/DESIGN.md",
	"Rate limits are 100 requests per minute",
	"The user dislikes emoji in commit messages",
	"Metrics are scraped by Prometheus",
	"The linter config is in .golangci.yml",
	"Embeddings use all-MiniLM-L6-v2",
	"The tenant id comes from the API key",
	"Sessions expire after 30 minutes of inactivity",
	"The user speaks French and English",
	"Releases are tagged with semantic versions",
	"The queue is NATS JetStream",
	"Consolidation runs every hour",
	"The old endpoint is deprecated",
	"Dave prefers dark mode",
	"The user's dog is called Rex",
	"Code review needs two approvals",
	"The service is written in Go",
	"Memory records are capped at 8192 characters",
	"That is a happy person",
	"That is a very happy person",
}

func BenchmarkEmbedShort(b *testing.B) {
	m := testModel(b)
	ctx := context.Background()
	if _, err := m.Embed(ctx, shortSentences); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.Embed(ctx, shortSentences); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(shortSentences))/b.Elapsed().Seconds(), "sentences/s")
}

// benchEmbed embeds texts in a loop and reports, besides wall time, the
// process's CPU time per call: on a shared machine wall time mixes in the
// wait for a core, CPU time does not.
func benchEmbed(b *testing.B, texts []string) {
	benchEmbedModel(b, testModel(b), texts)
}

func benchEmbedModel(b *testing.B, m *Model, texts []string) {
	ctx := context.Background()
	if _, err := m.Embed(ctx, texts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := int64(cputime.Process())
	for b.Loop() {
		if _, err := m.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(int64(cputime.Process())-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkEmbedQuery is one 9-token query.
func BenchmarkEmbedQuery(b *testing.B) {
	benchEmbed(b, []string{"How do I build the project?"})
}

// BenchmarkEmbedQuery16 is one 16-token query.
func BenchmarkEmbedQuery16(b *testing.B) {
	benchEmbed(b, []string{"Which port does the query service listen on in the staging cluster today?"})
}

// BenchmarkEmbedBatch32 is a batch of 32 short sentences.
func BenchmarkEmbedBatch32(b *testing.B) {
	benchEmbed(b, shortSentences[:32])
}

// benchInputs are what the precision and kernel benchmarks embed.
var benchInputs = []struct {
	name  string
	texts []string
}{
	{"query9", []string{"How do I build the project?"}},
	{"query16", []string{"Which port does the query service listen on in the staging cluster today?"}},
	{"batch32", shortSentences[:32]},
}

// BenchmarkEmbedPrecision runs the same inputs in each weight format, one
// after the other, so that -count interleaves them.
func BenchmarkEmbedPrecision(b *testing.B) {
	for _, in := range benchInputs {
		for _, prec := range []precision{precF32, precF16, precInt} {
			b.Run(in.name+"/"+prec.String(), func(b *testing.B) {
				benchEmbedModel(b, testModelPrecision(b, prec), in.texts)
			})
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := Load(); err != nil {
			b.Fatal(err)
		}
	}
}

// longCodeText is about 1600 characters of code and prose, what the
// embedder's chunker gives the model for a long code-heavy memory: more
// than 256 tokens, so the model reads a full-length sequence.
const longCodeText = "The retry loop in syncLedger fails when the cursor is stale, so flushBilling never finishes. " +
	"```go\nfunc (s *LedgerStore) SyncLedger(ctx context.Context, rows []LedgerRow) (int, error) {\n\tn := 0\n" +
	"\tfor i, r := range rows {\n\t\tif err := s.applyRow(ctx, r); err != nil {\n\t\t\treturn n, fmt.Errorf(\"apply row %d: %w\", i, err)\n" +
	"\t\t}\n\t\tif r.Amount > 4096 {\n\t\t\ts.bigRows.Add(1)\n\t\t}\n\t\tn++\n\t}\n\treturn n, s.flush(ctx)\n}\n```\n" +
	"panic: runtime error: invalid memory address or nil pointer dereference\n\ngoroutine 17 [running]:\n" +
	"example.com/app/internal/billing.(*LedgerStore).SyncLedger(0xc000120000, 0x1f)\n\t/src/app/internal/billing/ledger.go:88 +0x1d4\n" +
	"example.com/app/lib/queue.(*Worker).Drain(0xc000188000)\n\t/src/app/lib/queue/worker.go:214 +0x9a\n" +
	"2026-11-03T10:22:41.118Z WARN ledger tenant=4411 msg=\"flush pending rows\" took=812ms\n" +
	"2026-11-03T10:22:42.007Z ERROR ledger tenant=4411 msg=\"sync failed: context deadline exceeded\" took=30000ms\n" +
	"```python\nclass InvoiceExporter:\n    def export_batch(self, invoices, limit=500):\n        rows = self.store.fetch_pending(limit=limit)\n" +
	"        for row in rows:\n            if row.total is None:\n                raise ValueError(f\"invoice {row.id} has no total\")\n" +
	"            self.publish_row(row, retries=3)\n        return len(rows)\n```\n" +
	"I think the exporter should lock the ledger before it calls publish_row, and retry at most 5 times."

// BenchmarkEmbedLong is a batch of 8 full-length (256-token) sequences,
// against BenchmarkEmbedBatch64's short sentences: compare cpu-ns/token.
func BenchmarkEmbedLong(b *testing.B) {
	texts := make([]string, 8)
	for i := range texts {
		texts[i] = strings.Repeat("x", i) + longCodeText
	}
	benchEmbedTokens(b, texts)
}

// BenchmarkEmbedBatch64 is the batch of 64 short sentences bench embed
// measures, reported per token.
func BenchmarkEmbedBatch64(b *testing.B) {
	benchEmbedTokens(b, shortSentences[:64])
}

func benchEmbedTokens(b *testing.B, texts []string) {
	m := testModel(b)
	tokens := 0
	for _, t := range texts {
		tokens += m.Tokens(t)
	}
	ctx := context.Background()
	if _, err := m.Embed(ctx, texts); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0 := int64(cputime.Process())
	for b.Loop() {
		if _, err := m.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(int64(cputime.Process())-cpu0)/float64(b.N*tokens), "cpu-ns/token")
	b.ReportMetric(float64(tokens), "tokens/op")
}

// BenchmarkEmbedKernels runs the integer model on each kernel set this CPU
// has (avx512vnni, avx2, go), so that -count interleaves them.
func BenchmarkEmbedKernels(b *testing.B) {
	for _, ks := range kernels() {
		if ks.name == "go" {
			continue
		}
		m, err := load(ks, precInt)
		if err != nil {
			b.Fatal(err)
		}
		for _, in := range benchInputs {
			b.Run(ks.name+"/"+in.name, func(b *testing.B) { benchEmbedModel(b, m, in.texts) })
		}
	}
}
