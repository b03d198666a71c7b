package bench

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/recollect-dev/recollect/internal/cputime"
	"github.com/recollect-dev/recollect/pkg/embed/minilm"
)

// EmbedResult is what `recollect bench embed --json` prints.
type EmbedResult struct {
	Model                  string  `json:"model"`
	Batch                  int     `json:"batch"`
	Batches                int     `json:"batches"`
	TokensPerSentence      float64 `json:"tokens_per_sentence"`
	SentencesPerSec        float64 `json:"sentences_per_sec"`
	SentencesPerSecPerCore float64 `json:"sentences_per_sec_per_core"` // GOMAXPROCS=1
	QueryMsP50             float64 `json:"query_ms_p50"`
	QueryMsP99             float64 `json:"query_ms_p99"`
	Queries                int     `json:"queries"`
	RSSMB                  float64 `json:"rss_mb"` // peak resident memory (VmHWM)
	// ShortTokensPerSec is SentencesPerSec in tokens; Long the long-content
	// phase (nil when skipped).
	ShortTokensPerSec float64 `json:"short_tokens_per_sec"`
	// ShortTokensPerCPUSec is the same per second of the process's CPU
	// time (0 where unknown), steadier than wall time on a shared machine.
	ShortTokensPerCPUSec float64          `json:"short_tokens_per_cpu_sec"`
	Long                 *LongEmbedResult `json:"long,omitempty"`
	// The fields every bench command has: P50Ms and P99Ms are the single
	// query's (query_ms_p50, query_ms_p99), QPS the single queries per
	// second, Memories the sentences embedded in one timed run.
	P50Ms      float64 `json:"p50_ms"`
	P99Ms      float64 `json:"p99_ms"`
	QPS        float64 `json:"qps"`
	Memories   int     `json:"memories"`
	GOMAXPROCS int     `json:"gomaxprocs"`
	CPUs       int     `json:"cpus"`
	// Machine is where it ran: CPU, cores, Go version and the load at the end.
	Machine Machine `json:"machine"`
}

// embedSentences are memory-sized facts and short questions of 6 to 14
// tokens, what the embedder sees from extraction and recall.
var embedSentences = []string{
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
	"ClickHouse stores the usage events",
	"The user likes concise answers",
	"Migrations live in db/migrations",
	"The customer is on the enterprise plan",
	"Invoices are generated on the first of the month",
	"The mobile app is written in Kotlin",
	"The team meets every Tuesday at 10am",
	"The user is allergic to peanuts",
	"Kubernetes manifests are in deploy/k8s",
	"How do I build the project?",
	"What is the user's favourite editor?",
	"Where are the integration tests?",
	"Which port does the query service use?",
	"Backups run nightly at 2am UTC",
	"Carol is the on-call engineer this week",
	"Secrets are managed with Vault",
}

// BenchEmbed loads the built-in model and measures it in this process.
// With long > 0 it also embeds that many long messages (benchEmbedLong)
// and compares their throughput in tokens with the short batch's.
func BenchEmbed(ctx context.Context, batch, batches, queries, long int) (EmbedResult, error) {
	if batch < 1 || batches < 1 || queries < 1 || long < 0 {
		return EmbedResult{}, errNeed("batch, batches and queries >= 1, long-messages >= 0")
	}
	m, err := minilm.Load()
	if err != nil {
		return EmbedResult{}, err
	}
	texts := make([]string, batch)
	tokens := 0
	for i := range texts {
		texts[i] = embedSentences[i%len(embedSentences)]
		tokens += m.Tokens(texts[i])
	}
	res := EmbedResult{Model: m.Model(), Batch: batch, Batches: batches, Queries: queries,
		TokensPerSentence: float64(tokens) / float64(batch), GOMAXPROCS: runtime.GOMAXPROCS(0), CPUs: runtime.NumCPU()}

	var cpu time.Duration // of the last throughput run
	throughput := func() (float64, error) {
		if _, err := m.Embed(ctx, texts); err != nil { // warm the workspaces
			return 0, fmt.Errorf("embed warm-up batch: %w", err)
		}
		bar := phaseProgress(ctx, batches, fmt.Sprintf("embedding on %d cores", runtime.GOMAXPROCS(0)), "batches")
		defer bar.End()
		begin, cpu0 := time.Now(), cputime.Process()
		for range batches {
			if _, err := m.Embed(ctx, texts); err != nil {
				return 0, fmt.Errorf("embed batch: %w", err)
			}
			bar.Add(1)
		}
		cpu = cputime.Process() - cpu0
		return float64(batch*batches) / time.Since(begin).Seconds(), nil
	}
	if res.SentencesPerSec, err = throughput(); err != nil {
		return EmbedResult{}, err
	}
	res.ShortTokensPerSec = res.SentencesPerSec * res.TokensPerSentence
	res.ShortTokensPerCPUSec = perCPUSecond(float64(tokens*batches), cpu)
	if long > 0 {
		l, err := benchEmbedLong(ctx, m, long, texts, tokens)
		if err != nil {
			return EmbedResult{}, err
		}
		res.Long = &l
	}
	prev := runtime.GOMAXPROCS(1)
	res.SentencesPerSecPerCore, err = throughput()
	runtime.GOMAXPROCS(prev)
	if err != nil {
		return EmbedResult{}, err
	}

	lat := make([]time.Duration, queries)
	bar := phaseProgress(ctx, queries, "embedding queries", "queries")
	begin := time.Now()
	for i := range lat {
		q := []string{embedSentences[i%len(embedSentences)]}
		begin := time.Now()
		if _, err := m.Embed(ctx, q); err != nil {
			return EmbedResult{}, fmt.Errorf("embed query: %w", err)
		}
		lat[i] = time.Since(begin)
		bar.Add(1)
	}
	bar.End()
	res.QPS = float64(queries) / time.Since(begin).Seconds()
	sortDurations(lat)
	res.QueryMsP50, res.QueryMsP99 = percentile(lat, 50), percentile(lat, 99)
	res.P50Ms, res.P99Ms, res.Memories = res.QueryMsP50, res.QueryMsP99, batch*batches
	if res.RSSMB, err = peakRSSMB(); err != nil {
		return EmbedResult{}, err
	}
	return res, nil
}

// peakRSSMB reads the process's peak resident set (VmHWM) from procfs.
func peakRSSMB() (float64, error) { return procStatusMB("VmHWM:") }
