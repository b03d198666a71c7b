package minilm

import (
	"context"
	"testing"
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

func BenchmarkEmbedQuery(b *testing.B) {
	m := testModel(b)
	ctx := context.Background()
	query := []string{"How do I build the project?"}
	if _, err := m.Embed(ctx, query); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.Embed(ctx, query); err != nil {
			b.Fatal(err)
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
