package promptctx

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/topics"
)

func resumeEnv(t *testing.T) *env {
	e := newEnv(t)
	at := func(d time.Duration, session string) func(*memory.Memory) {
		return func(m *memory.Memory) {
			m.CreatedAt, m.ModifiedAt, m.Session = testNow.Add(-d), testNow.Add(-d), session
		}
	}
	e.put(t,
		// Core: weight = importance × kind boost × (1 + repetitions × 2.5).
		mem("Deploys go through the release pipeline, never by hand.", memory.TypeWorkflow, withLayer(memory.LayerCore), withImportance(0.9), withAge(30*24*time.Hour), withTags("trigger:deploy"), func(m *memory.Memory) { m.AccessCount = 5 }), // 1.17
		mem("The user is Alice, lead of the payments team.", memory.TypeEntity, withLayer(memory.LayerCore), withImportance(0.9), withAge(30*24*time.Hour)),                                                                                       // 0.9
		mem("Answers are short and in British English.", memory.TypePreference, withLayer(memory.LayerCore), withImportance(0.5), withAge(30*24*time.Hour), func(m *memory.Memory) { m.RepetitionCount = 2 }),                                     // 3.0
		mem("An archived core rule about Python 2.", memory.TypePolicy, withLayer(memory.LayerCore), withImportance(1), archived),
		// Recent: non-core, written within 24h.
		mem("Started migrating invoices to the new schema.", memory.TypeEpisode, at(time.Hour, "s1"), withTags("trigger:git-push"), func(m *memory.Memory) { m.AccessCount = 1 }),
		mem("Refund emails now go through the notifications service.", memory.TypeFact, at(10*time.Minute, "s2"), withTags("trigger:git-push", "trigger:lint"), func(m *memory.Memory) { m.AccessCount = 1 }),
		mem("The invoices migration needs a backfill job.", memory.TypeFact, at(3*time.Hour, "s1")),
		mem("Old news from last week.", memory.TypeFact, at(7*24*time.Hour, "s1")),
		mem("Another project's recent note.", memory.TypeFact, at(time.Hour, "s1"), func(m *memory.Memory) { m.Namespace = "other" }),
	)
	return e
}

func idOf(t *testing.T, e *env, content string) string {
	for _, m := range e.snapshot(t, "acme") {
		if m.Content == content {
			return m.ID
		}
	}
	t.Fatalf("no memory %q", content)
	return ""
}

func TestResumeSections(t *testing.T) {
	e := resumeEnv(t)
	e.trees.trees["acme"] = topics.Tree{Tenant: "acme", Roots: []*topics.Node{
		{ID: "tparent", Name: "Billing work", Size: 3, MemoryIDs: []string{
			idOf(t, e, "Started migrating invoices to the new schema."), idOf(t, e, "The invoices migration needs a backfill job."),
			idOf(t, e, "Refund emails now go through the notifications service.")},
			Children: []*topics.Node{
				{ID: "tinvoices", Name: "Invoice \"migration\"", Size: 2, MemoryIDs: []string{
					idOf(t, e, "Started migrating invoices to the new schema."), idOf(t, e, "The invoices migration needs a backfill job.")}},
				{ID: "trefunds", Name: "Refunds", Size: 1, MemoryIDs: []string{idOf(t, e, "Refund emails now go through the notifications service.")}},
			}},
		{ID: "tother", Name: "Elsewhere", Size: 5, MemoryIDs: []string{idOf(t, e, "Another project's recent note."), "gone-1", "gone-2", "gone-3", "gone-4"}},
	}}
	before := e.snapshot(t, "acme")
	resp, err := e.a.Resume(t.Context(), ResumeRequest{Tenant: "acme", SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	sameMemories(t, before, e.snapshot(t, "acme")) // resume never touches access counts

	texts := func(ms []memory.Memory) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Content)
		}
		return out
	}
	if got, want := texts(resp.Core), []string{"Answers are short and in British English.", "Deploys go through the release pipeline, never by hand.", "The user is Alice, lead of the payments team."}; !slices.Equal(got, want) {
		t.Errorf("core %q, want %q", got, want)
	}
	if got, want := texts(resp.Recent), []string{"Started migrating invoices to the new schema.", "The invoices migration needs a backfill job.", "Refund emails now go through the notifications service."}; !slices.Equal(got, want) {
		t.Errorf("recent %q, want %q (session s1 first, then newest)", got, want)
	}
	if want := []TopicSummary{{ID: "tinvoices", Name: "Invoice \"migration\"", Size: 2}, {ID: "trefunds", Name: "Refunds", Size: 1}}; !slices.Equal(resp.Topics, want) {
		t.Errorf("topics %+v, want %+v (leaves, counted in the request's namespaces)", resp.Topics, want)
	}
	if want := []string{"deploy", "git-push", "lint"}; !slices.Equal(resp.Triggers, want) {
		t.Errorf("triggers %q, want %q", resp.Triggers, want)
	}
	for _, s := range []string{
		"=== Core (3) ===\n- Answers are short", "=== Recent (24h) ===\n- Started migrating", "=== Topics (Working: 4, Buffer: 0) ===\n",
		"tinvoices: \"Invoice 'migration'\" [2]\n", "\nTriggers: deploy, git-push, lint\n",
	} {
		if !strings.Contains(resp.Text, s) {
			t.Errorf("text lacks %q:\n%s", s, resp.Text)
		}
	}
	if got := loadBPE(t).Count(resp.Text); got != resp.Tokens || resp.Tokens > resp.Budget || resp.Budget != 3550 {
		t.Errorf("tokens %d (counted %d), budget %d", resp.Tokens, got, resp.Budget)
	}
	without, err := e.a.Resume(t.Context(), ResumeRequest{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(without.Recent); got[0] != "Refund emails now go through the notifications service." {
		t.Errorf("without a session, recent is newest first, got %q", got)
	}
}

func TestResumeNoTree(t *testing.T) {
	e := resumeEnv(t)
	resp, err := e.a.Resume(t.Context(), ResumeRequest{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Topics) != 0 || strings.Contains(resp.Text, "=== Topics") || len(resp.Core) != 3 {
		t.Fatalf("without a tree, Topics is omitted and the rest stays:\n%s", resp.Text)
	}
}

func TestResumeBudget(t *testing.T) {
	e := resumeEnv(t)
	var many []memory.Memory
	for i := range 60 {
		many = append(many, mem(strings.Repeat("word ", 10+i%7)+"core rule number "+string(rune('a'+i%26))+strings.Repeat("!", i), memory.TypePolicy,
			withLayer(memory.LayerCore), withImportance(float64(i%10)/10)))
	}
	if err := e.st.Upsert(t.Context(), many); err != nil { // resume needs no vectors
		t.Fatal(err)
	}
	tok := loadBPE(t)
	for _, budget := range []int{1, 20, 60, 200, 700, 3550, 8000} {
		resp, err := e.a.Resume(t.Context(), ResumeRequest{Tenant: "acme", Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		if got := tok.Count(resp.Text); got != resp.Tokens || got > budget {
			t.Fatalf("budget %d: tokens %d, counted %d", budget, resp.Tokens, got)
		}
		total := e.a.cfg.resumeBudget()
		for key, share := range map[string]int{SectionCore: e.a.cfg.ResumeCore, SectionRecent: e.a.cfg.ResumeRecent, SectionTopics: e.a.cfg.ResumeTopics, SectionTriggers: e.a.cfg.ResumeTriggers} {
			if limit := share * budget / total; resp.Sections[key] > limit {
				t.Fatalf("budget %d: section %s has %d tokens over its share %d", budget, key, resp.Sections[key], limit)
			}
		}
		for _, m := range resp.Core {
			if !strings.Contains(resp.Text, "- "+m.Content+"\n") {
				t.Fatalf("budget %d: core memory cut or missing: %q", budget, m.Content)
			}
		}
		if budget >= 700 && (len(resp.Core) == 0 || len(resp.Recent) == 0 || len(resp.Triggers) == 0) {
			t.Fatalf("budget %d: sections empty: %+v", budget, resp.Sections)
		}
	}
}

func TestResumeValidation(t *testing.T) {
	e := newEnv(t)
	for _, req := range []ResumeRequest{{Tenant: "a b"}, {Namespace: "a b"}, {Budget: -5}, {Budget: 1 << 20}, {SessionID: "a\nb"}} {
		if _, err := e.a.Resume(t.Context(), req); !errorsIsInvalid(err) {
			t.Errorf("%+v: error %v, want invalid", req, err)
		}
	}
}
