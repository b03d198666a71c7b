package promptctx

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/scope"
)

// corpusPool is what random corpora are drawn from: realistic memories of
// mixed lengths about a few themes, so queries find some of them.
var corpusPool = []string{
	"Never commit secrets or API keys to the repository.",
	"Always run make test before pushing to main.",
	"The auth service is separate from the API gateway and owns sessions.",
	"User prefers tabs over spaces for indentation.",
	"User likes a dark terminal theme.",
	"The billing service runs on Kubernetes in the eu-west cluster.",
	"Production deploys of the billing service need approval from the on-call engineer.",
	"To deploy the billing service, run make release and then kubectl apply the billing manifests.",
	"Deploy the billing service to production with helm upgrade billing ./chart --atomic.",
	"User writes short, terse messages.",
	"Do not use init functions in Go packages; wire dependencies explicitly in main.",
	"Python code must pass ruff before it is committed.",
	"Errors are wrapped with fmt.Errorf and the %w verb, naming what was being done.",
	"The frontend is a React app built with Vite and served from the CDN.",
	"To release the frontend: npm run build, upload dist to the bucket, then invalidate the CDN cache.",
	"The database is PostgreSQL 15 with logical replication to the analytics cluster.",
	"Migrations run with goose up from the migrations directory before each deploy.",
	"User prefers concise answers without long explanations, and code over prose when possible.",
	"The team holds a release review every Thursday afternoon; releases freeze on Friday.",
	"Flaky test TestLeaseExpiry fails under -race on two cores; rerun it before assuming a regression.",
	"The API rate limit is 100 requests per minute per key.",
	"Redis is used for debounce locks and leases, never as a source of truth.",
	"Logs are JSON on stderr with trace_id; never log request bodies because they may contain personal data.",
	"User's name is Alice and she leads the payments team in Berlin.",
	"The payments team owns the billing, invoicing and refunds services.",
	"When the build cache acts strangely, clean it with go clean -cache and rebuild.",
	"Use table tests with t.Run for every new test in the Go code base.",
	"Architecture: ingest, extractor, embedder, consolidator, topiary and query talk over NATS JetStream.",
	"The staging environment mirrors production but with one replica per service.",
	"User dislikes emoji in commit messages.",
	"Commit messages start with the package name, a colon and a lowercase summary.",
	"Kubernetes manifests live in deploy/ and are applied by Argo CD after merge.",
	"On-call rotation changes every Monday at 09:00 Berlin time.",
	"Style: dry humour, rarely uses exclamation marks.",
	"The invoice PDF generator is a separate Node service called paperboy.",
	"A long note about the incident of March: the billing queue backed up for four hours because the consumer's ack wait was shorter than its handler timeout, so every message was redelivered while still being processed; the fix was to set AckWait above the handler timeout and to call InProgress during long model calls.",
	"Never run database migrations by hand in production; use the migrate job.",
	"The search service indexes documents with BM25 and dense vectors and fuses the two.",
	"User wants answers in British English.",
	"The mobile app talks only to the API gateway, never to services directly.",
}

var corpusQueries = []string{
	"", "How do we deploy the billing service?", "how should I format commit messages",
	"What database do we use and how are migrations run?", "Who owns payments?", "frontend release steps",
	"why did the billing queue back up in March", "indentation",
}

var corpusFiles = []string{"", "pkg/billing/deploy.go", "web/src/App.tsx", "scripts/tool.py", "deploy/billing.yaml"}

var corpusScopes = [][]string{nil, nil, nil, {"**/*.go"}, {"**/*.py"}, {"web/**"}, {"deploy/*.yaml", "*.md"}, {"[bad"}}

// TestContextBudgetRandomCorpora checks the invariants of every answer
// over many random corpora and budgets: the exact count is within budget,
// so is the sum of the layers, no memory twice, nothing archived, nothing
// scoped elsewhere, nothing of another subject; and across the runs every
// layer is used, so the checks are not vacuous.
func TestContextBudgetRandomCorpora(t *testing.T) {
	e := newEnv(t)
	vecs, err := loadModel(t).Embed(context.Background(), corpusPool)
	if err != nil {
		t.Fatal(err)
	}
	types := []memory.Type{memory.TypePolicy, memory.TypeWorkflow, memory.TypePitfall, memory.TypeArchitecture, memory.TypeDecision,
		memory.TypePreference, memory.TypeFact, memory.TypeEntity, memory.TypeStyle, memory.TypeArtifact, memory.TypeEpisode, memory.TypeProcedure}
	used := map[string]int{}
	for run := range 30 {
		rng := rand.New(rand.NewPCG(uint64(run), 7))
		tenant := fmt.Sprintf("t%d", run)
		var mems []memory.Memory
		for i, j := range rng.Perm(len(corpusPool))[:10+rng.IntN(len(corpusPool)-10)] {
			typ := types[rng.IntN(len(types))]
			m := mem(corpusPool[j], typ, func(m *memory.Memory) {
				m.Tenant = tenant
				m.Importance = rng.Float64()
				m.Confidence = []float64{0, memory.ConfidenceInferred, memory.ConfidenceUnknown, memory.ConfidenceExplicit}[rng.IntN(4)]
				m.AccessCount, m.RepetitionCount, m.SuccessCount = rng.IntN(20), rng.IntN(4), rng.IntN(3)
				m.Scope = corpusScopes[rng.IntN(len(corpusScopes))]
				m.Subject = []string{"", "alice", "bob", memory.LoreSubject}[rng.IntN(4)]
				m.Namespace = []string{memory.DefaultNamespace, "proj", "other"}[rng.IntN(3)]
				m.Layer = []memory.Layer{memory.LayerBuffer, memory.LayerWorking, memory.LayerCore}[rng.IntN(3)]
				m.Archived = rng.IntN(6) == 0
				age := time.Duration(rng.IntN(400*24)) * time.Hour
				m.CreatedAt, m.ModifiedAt = testNow.Add(-age), testNow.Add(-age)
				if rng.IntN(8) == 0 {
					m.Tags = []string{recall.TranscriptTag}
				}
				if rng.IntN(10) == 0 {
					m.Key = DirectiveKey
				}
				m.ID = fmt.Sprintf("%s-m%02d", tenant, i)
			})
			m.Vector = vecs[j]
			mems = append(mems, m)
		}
		if err := e.st.Upsert(context.Background(), mems); err != nil {
			t.Fatal(err)
		}
		byID := map[string]memory.Memory{}
		for _, m := range mems {
			byID[m.ID] = m
		}
		for q := range 4 {
			req := ContextRequest{Tenant: tenant, Query: corpusQueries[rng.IntN(len(corpusQueries))],
				Subject: []string{"", "alice"}[rng.IntN(2)], Namespace: []string{"", "proj"}[rng.IntN(2)],
				FilePath: corpusFiles[rng.IntN(len(corpusFiles))], Budget: 1 + rng.IntN(1200)}
			t.Run(fmt.Sprintf("run%d/q%d", run, q), func(t *testing.T) {
				resp := e.context(t, req) // checks budget, sums, duplicates, archived, text
				for _, inc := range resp.Memories {
					m := byID[inc.Memory.ID]
					if transcript := m.Transcript(); transcript != (inc.Layer == LayerConversations) {
						t.Fatalf("%s (transcript %v) in layer %s: transcripts are quoted in %s only", m.ID, transcript, inc.Layer, LayerConversations)
					}
					if m.Archived || len(m.Tags) > 0 && !m.Transcript() || scope.FitOf(m.Scope, scope.Clean(req.FilePath)) == scope.Out {
						t.Fatalf("%s should not be injected: archived %v tags %q scope %q for %q", m.ID, m.Archived, m.Tags, m.Scope, req.FilePath)
					}
					if req.Subject != "" && m.Subject != req.Subject && m.Subject != "" && m.Subject != memory.LoreSubject {
						t.Fatalf("%s of subject %q injected for %q", m.ID, m.Subject, req.Subject)
					}
					if m.Namespace == "other" {
						t.Fatalf("%s of namespace other injected", m.ID)
					}
					if inc.Layer == LayerKnown && confidence(&m) < 0.65 {
						t.Fatalf("%s below the confidence floor in What You Know", m.ID)
					}
					used[inc.Layer]++
				}
				if strings.Count(resp.Context, "## ") < len(nonEmpty(resp.Layers)) {
					t.Fatalf("a layer without its heading:\n%s", resp.Context)
				}
			})
		}
	}
	for _, l := range []string{LayerBaseline, LayerContextual, LayerProcedures, LayerDirective, LayerKnown} {
		if used[l] == 0 {
			t.Errorf("no run put anything in layer %s: %v", l, used)
		}
	}
}

func nonEmpty(m map[string]int) []string {
	var out []string
	for k, v := range m {
		if v > 0 {
			out = append(out, k)
		}
	}
	return out
}
