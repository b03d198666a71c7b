package promptctx

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/embed/minilm"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/store/local"
	"github.com/recollect-dev/recollect/pkg/topiary"
	"github.com/recollect-dev/recollect/pkg/topics"
)

// The model and tokenizer are loaded once per test binary: both are
// read-only and loading them is the slow part.
var (
	modelOnce sync.Once
	model     *minilm.Model
	modelErr  error
	tokOnce   sync.Once
	bpeTok    Tokenizer
	bpeErr    error
)

func loadModel(t testing.TB) *minilm.Model {
	modelOnce.Do(func() { model, modelErr = minilm.Load() })
	if modelErr != nil {
		t.Fatal(modelErr)
	}
	return model
}

func loadBPE(t testing.TB) Tokenizer {
	tokOnce.Do(func() { bpeTok, bpeErr = NewBPE() })
	if bpeErr != nil {
		t.Fatal(bpeErr)
	}
	return bpeTok
}

var testNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// env is a real local store, the built-in model, a Recaller and an
// Assembler over them.
type env struct {
	st    *local.Store
	a     *Assembler
	trees *treeStore
	now   time.Time
}

// treeStore holds topic trees in memory, as topiary.Trees holds them in
// JetStream; a tenant without one answers topiary.ErrNoTree.
type treeStore struct {
	mu    sync.Mutex
	trees map[string]topics.Tree
}

func (s *treeStore) Load(_ context.Context, tenant string) (topics.Tree, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.trees[tenant]
	if !ok {
		return topics.Tree{}, topiary.ErrNoTree
	}
	return t, nil
}

func recallConfig() recall.Config {
	var c recall.Config
	c.RegisterFlags("", pflag.NewFlagSet("recall", pflag.ContinueOnError))
	return c
}

func newEnv(t testing.TB, mod ...func(*Config)) *env {
	t.Helper()
	st, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	now := func() time.Time { return testNow }
	reg := domains.Builtin()
	r, err := recall.New(recallConfig(), st, loadModel(t), reg, now)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	for _, m := range mod {
		m(&cfg)
	}
	trees := &treeStore{trees: map[string]topics.Tree{}}
	a, err := New(cfg, st, r, trees, reg, loadBPE(t), now)
	if err != nil {
		t.Fatal(err)
	}
	return &env{st: st, a: a, trees: trees, now: testNow}
}

// mem is a valid memory of tenant acme, written an hour ago, with
// defaults that each test overrides.
func mem(content string, typ memory.Type, opts ...func(*memory.Memory)) memory.Memory {
	domain := memory.DomainGeneral
	switch typ {
	case memory.TypePolicy, memory.TypeWorkflow, memory.TypePitfall, memory.TypeProcedure:
		domain = memory.DomainToolUsage
	case memory.TypePreference, memory.TypeStyle:
		domain = memory.DomainUserPreferences
	}
	m := memory.Memory{Tenant: "acme", Namespace: memory.DefaultNamespace, Content: content, Domain: domain,
		Type: typ, Kind: typ.DefaultKind(), Layer: memory.LayerWorking, Importance: 0.5, Confidence: memory.ConfidenceExplicit,
		Source: memory.SourceAPI, CreatedAt: testNow.Add(-time.Hour), ModifiedAt: testNow.Add(-time.Hour)}
	for _, o := range opts {
		o(&m)
	}
	if m.ID == "" {
		m.ID = memory.MemoryID(m.Tenant, m.Namespace, m.Subject+"|"+m.Key, m.Content)
	}
	return m
}

func withImportance(v float64) func(*memory.Memory) {
	return func(m *memory.Memory) { m.Importance = v }
}
func withScope(g ...string) func(*memory.Memory)    { return func(m *memory.Memory) { m.Scope = g } }
func withSuccess(n int) func(*memory.Memory)        { return func(m *memory.Memory) { m.SuccessCount = n } }
func withSubject(s string) func(*memory.Memory)     { return func(m *memory.Memory) { m.Subject = s } }
func withKey(k string) func(*memory.Memory)         { return func(m *memory.Memory) { m.Key = k } }
func withLayer(l memory.Layer) func(*memory.Memory) { return func(m *memory.Memory) { m.Layer = l } }
func withTags(t ...string) func(*memory.Memory)     { return func(m *memory.Memory) { m.Tags = t } }
func withConfidence(c float64) func(*memory.Memory) {
	return func(m *memory.Memory) { m.Confidence = c }
}
func archived(m *memory.Memory) { m.Archived = true }
func withAge(d time.Duration) func(*memory.Memory) {
	return func(m *memory.Memory) { m.CreatedAt, m.ModifiedAt = testNow.Add(-d), testNow.Add(-d) }
}

// put embeds and stores memories.
func (e *env) put(t testing.TB, mems ...memory.Memory) {
	t.Helper()
	texts := make([]string, len(mems))
	for i, m := range mems {
		texts[i] = m.Content
	}
	vecs, err := loadModel(t).Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range mems {
		mems[i].Vector = vecs[i]
	}
	if err := e.st.Upsert(context.Background(), mems); err != nil {
		t.Fatal(err)
	}
}

// snapshot reads every memory of a tenant, archived ones included.
func (e *env) snapshot(t testing.TB, tenant string) []memory.Memory {
	t.Helper()
	var out []memory.Memory
	if err := e.st.Scroll(context.Background(), tenant, store.Filter{IncludeArchived: true, IncludeSuperseded: true}, func(m memory.Memory) error {
		out = append(out, m)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func (e *env) context(t testing.TB, req ContextRequest) ContextResponse {
	t.Helper()
	if req.Tenant == "" {
		req.Tenant = "acme"
	}
	resp, err := e.a.Context(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	checkContext(t, e.a.tok, resp)
	return resp
}

// checkContext asserts what every context answer must hold: the exact
// count within budget, layers summing within it, every memory once, none
// archived, and every listed memory's text in the block.
func checkContext(t testing.TB, tok Tokenizer, resp ContextResponse) {
	t.Helper()
	if got := tok.Count(resp.Context); got != resp.Tokens {
		t.Fatalf("tokens %d, but the context counts %d", resp.Tokens, got)
	}
	if resp.Tokens > resp.Budget {
		t.Fatalf("tokens %d over budget %d:\n%s", resp.Tokens, resp.Budget, resp.Context)
	}
	sum := 0
	for _, n := range resp.Layers {
		sum += n
	}
	if sum > resp.Budget {
		t.Fatalf("layers %v sum to %d, over budget %d", resp.Layers, sum, resp.Budget)
	}
	seen := map[string]string{}
	for _, inc := range resp.Memories {
		if l, ok := seen[inc.Memory.ID]; ok {
			t.Fatalf("memory %s in %s and %s", inc.Memory.ID, l, inc.Layer)
		}
		seen[inc.Memory.ID] = inc.Layer
		if inc.Memory.Archived {
			t.Fatalf("archived memory %s in %s", inc.Memory.ID, inc.Layer)
		}
		if inc.Memory.Vector != nil {
			t.Fatalf("memory %s carries its vector", inc.Memory.ID)
		}
		if !containsText(resp.Context, flatten(inc.Memory.Content)) {
			t.Fatalf("memory %q listed in %s but not in the block:\n%s", inc.Memory.Content, inc.Layer, resp.Context)
		}
	}
}

func containsText(block, s string) bool { return len(s) > 0 && strings.Contains(block, s) }

func layerOf(resp ContextResponse, content string) string {
	for _, inc := range resp.Memories {
		if inc.Memory.Content == content {
			return inc.Layer
		}
	}
	return ""
}

func contents(resp ContextResponse, layer string) []string {
	var out []string
	for _, inc := range resp.Memories {
		if inc.Layer == layer {
			out = append(out, inc.Memory.Content)
		}
	}
	return out
}

func sameMemories(t testing.TB, before, after []memory.Memory) {
	t.Helper()
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("the store changed:\nbefore %+v\nafter  %+v", before, after)
	}
}

func asFieldError(err error, fe **memory.FieldError) bool { return errors.As(err, fe) }

func errorsIsInvalid(err error) bool { return errors.Is(err, memory.ErrInvalid) }
