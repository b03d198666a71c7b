package extract

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
)

func compaction(id string, msgs []memory.Message) *memory.Event {
	return &memory.Event{ID: id, Type: memory.EventCompaction, Tenant: "acme", Namespace: "default", SessionID: "s1",
		Subject: "alice", TS: t0, Messages: msgs}
}

func conversation(n int) []memory.Message {
	var msgs []memory.Message
	for i := range n {
		role, content := "user", fmt.Sprintf("Message %d from the user about the billing service and its retries.", i)
		if i%2 == 1 {
			role, content = "assistant", fmt.Sprintf("Reply %d: I checked the billing service logs and the retry queue.", i)
		}
		msgs = append(msgs, memory.Message{ID: fmt.Sprintf("m%d", i), Role: role, Content: content})
	}
	msgs[0].Content = prefTurn
	msgs[2].Content = apiTurn
	return slices.Insert(msgs, 3, memory.Message{Role: "tool", Content: "tool output: OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"})
}

// TestCompaction extracts compacted messages once per cycle: rule facts,
// one transcript memory per message (tagged, episodic, the message before
// it as evidence) and the model's facts; the same cycle sent again calls
// the model no more.
func TestCompaction(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.srv.Handle(script(goodAnswers))
	msgs := conversation(12)
	h.mustHandle(compaction("c1", msgs))

	said := byRule(h.facts(), producerTranscript)
	if len(said) != 12 {
		t.Fatalf("transcript memories = %d, want 12 (12 messages, the tool message left out)", len(said))
	}
	for _, c := range said {
		m := c.Memory
		if m.Type != memory.TypeEpisode || m.Kind != memory.KindEpisodic || !slices.Contains(m.Tags, recall.TranscriptTag) ||
			m.Source != memory.SourceCompaction || m.Key != "transcript/s1" || m.Session != "s1" {
			t.Fatalf("transcript memory = %+v", m)
		}
		if strings.Contains(m.Content, "sk-proj") || strings.Contains(m.Content, "tool output") {
			t.Fatal("a tool message reached the transcript")
		}
	}
	for _, c := range said[:2] {
		role, _, _ := strings.Cut(c.Memory.Content, ":")
		if got := c.Memory.SpeakerRole(); got != role {
			t.Fatalf("%q: role tag %q, want %q (tags %v)", c.Memory.Content, got, role, c.Memory.Tags)
		}
	}
	if said[0].Memory.Content != "user: "+prefTurn || said[1].Memory.Evidence != "user: "+prefTurn ||
		!strings.HasPrefix(said[1].Memory.Content, "assistant: Reply 1") {
		t.Fatalf("first two: %q / %q (evidence %q)", said[0].Memory.Content, said[1].Memory.Content, said[1].Memory.Evidence)
	}
	if len(byRule(h.facts(), producerLLM)) == 0 || len(h.srv.Requests()) != 3 {
		t.Fatalf("model facts %d, calls %d", len(byRule(h.facts(), producerLLM)), len(h.srv.Requests()))
	}
	for _, r := range h.srv.Requests() {
		if strings.Contains(r.LastUser(), "sk-proj") {
			t.Fatal("a tool message reached the model")
		}
	}
	n := len(byRule(h.facts(), producerLLM))
	h.mustHandle(compaction("c1-resent", msgs))
	if len(h.srv.Requests()) != 3 {
		t.Fatalf("the same compaction cycle called the model again (%d calls)", len(h.srv.Requests()))
	}
	if h.counter(h.x.m.extractions, triggerCompaction, "skipped") != 1 {
		t.Fatal("skip not counted")
	}
	if len(byRule(h.facts(), producerLLM)) != n {
		t.Fatal("model facts published again")
	}
	h.mustHandle(compaction("c2", conversation(4)))
	if len(h.srv.Requests()) != 6 {
		t.Fatalf("a new compaction cycle was not extracted (%d calls)", len(h.srv.Requests()))
	}
}

// TestCompactionModelDownIsRetried fails every call: the event's error is
// transient (redelivered later), and nothing is marked done.
func TestCompactionModelDownIsRetried(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.srv.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Status(503) })
	err := h.handle(compaction("c1", conversation(4)))
	if err == nil || !strings.Contains(err.Error(), "unavailable") {
		t.Fatalf("err = %v", err)
	}
	h.srv.Handle(script(goodAnswers))
	h.mustHandle(compaction("c1", conversation(4)))
	if len(byRule(h.facts(), producerLLM)) == 0 {
		t.Fatal("redelivery did not extract")
	}
}

// TestSessionEnd extracts the event's messages plus buffered turns they
// lack, then forgets the session.
func TestSessionEnd(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.srv.Handle(script(goodAnswers))
	h.mustHandle(h.turn("t1", "user", prefTurn))
	h.mustHandle(h.turn("t2", "user", apiTurn))
	h.waitScheduled("s1")
	end := &memory.Event{ID: "end", Type: memory.EventSessionEnd, Tenant: "acme", Namespace: "default", SessionID: "s1",
		Subject: "alice", TS: h.clock.Now(), Messages: []memory.Message{{ID: "t1", Role: "user", Content: prefTurn}}}
	h.mustHandle(end)
	reqs := h.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("calls = %d", len(reqs))
	}
	for _, r := range reqs {
		if strings.Count(r.LastUser(), prefTurn) != 1 || !strings.Contains(r.LastUser(), apiTurn) {
			t.Fatalf("%s call does not hold the whole conversation once:\n%s", domainOf(r), r.LastUser())
		}
	}
	for _, f := range byRule(h.facts(), producerLLM) {
		if f.Memory.Source != memory.SourceExit || f.SourceEvent != "acme:end" {
			t.Fatalf("fact source %s event %s", f.Memory.Source, f.SourceEvent)
		}
	}
	if _, ok := h.session("s1"); ok {
		t.Fatal("session buffer kept after the session ended")
	}
	eventually(t, "schedule forgets the session", func() error {
		if _, ok := h.x.sched.snapshot(sessionKey("acme", "default", "s1")); ok {
			return errString("still scheduled")
		}
		return nil
	})
	h.clock.Add(time.Hour)
	if h.runDue() != 0 || len(h.srv.Requests()) != 3 {
		t.Fatal("the ended session was extracted again")
	}
	h.mustHandle(end) // redelivered
	if len(h.srv.Requests()) != 3 {
		t.Fatal("a redelivered session end called the model again")
	}
}

// TestSessionEndWaitsForRunningExtraction: while the session's lease is
// held, the end is retried later rather than run beside it.
func TestSessionEndWaitsForRunningExtraction(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	l, err := h.x.locks.Acquire(t.Context(), leaseKey(sessionKey("acme", "default", "s1")), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Release(t.Context()) }()
	end := &memory.Event{ID: "end", Type: memory.EventSessionEnd, Tenant: "acme", SessionID: "s1", TS: t0,
		Messages: []memory.Message{{Role: "user", Content: prefTurn}}}
	if err := h.handle(end); err == nil {
		t.Fatal("session end ran beside a held lease")
	}
}

// TestStylesAndDirective reinforces style observations and synthesises a
// personality directive once there are three, again only when they change.
func TestStylesAndDirective(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	var directives atomic.Int32
	styleAnswer := factsJSON(
		map[string]any{"key": "style/terse", "value": "The user writes short, terse messages.", "type": "style", "explicit": false},
		map[string]any{"key": "style/lowercase", "value": "The user types in lowercase without punctuation.", "type": "style"},
		map[string]any{"key": "style/direct", "value": "The user asks direct questions without pleasantries.", "type": "style",
			"evidence": "not in the conversation"},
	)
	h.srv.Handle(func(r llmtest.Request) llmtest.Reply {
		switch domainOf(r) {
		case "user-preferences":
			return llmtest.Text(styleAnswer)
		case "personality":
			n := directives.Add(1)
			return llmtest.Text(fmt.Sprintf("You keep replies short and plain (version %d). Skip pleasantries and get to the point; the user reads in lowercase and wants answers, not ceremony.", n))
		}
		return llmtest.Text(`{"facts": []}`)
	})
	h.mustHandle(h.turn("t1", "user", "ok do it"))
	h.clock.Add(DefaultDebounce)
	h.runDue()
	styles := 0
	var directive []memory.FactMessage
	for _, f := range h.facts() {
		switch {
		case f.Memory.Key == DirectiveKey:
			directive = append(directive, f)
		case f.Memory.Type == memory.TypeStyle:
			styles++
			if f.Memory.ID != keyedID(&origin{tenant: "acme", namespace: "default", subject: "alice"}, f.Memory.Key) {
				t.Errorf("style %s not keyed by its key", f.Memory.Key)
			}
			if f.Memory.Key == "style/direct" && f.Memory.Evidence != "" {
				t.Error("ungrounded evidence kept on a style observation")
			}
		}
	}
	if styles != 3 || len(directive) != 1 {
		t.Fatalf("styles %d, directives %d", styles, len(directive))
	}
	d := directive[0].Memory
	if d.Layer != memory.LayerCore || d.Type != memory.TypeStyle || d.Domain != "user-preferences" || !strings.Contains(d.Content, "version 1") {
		t.Fatalf("directive = %+v", d)
	}
	req := h.srv.Requests()[len(h.srv.Requests())-1]
	if !strings.Contains(req.LastUser(), "- style/terse: The user writes short, terse messages. (observed 1 times)") {
		t.Fatalf("synthesis prompt:\n%s", req.LastUser())
	}
	if recs := h.usage.records("personality"); len(recs) != 1 {
		t.Fatalf("personality usage records = %d", len(recs))
	}

	// The same observations from a new turn reinforce them: counts change,
	// so the directive is synthesised again under the same id.
	h.mustHandle(h.turn("t2", "user", "fine"))
	h.clock.Add(DefaultDebounce)
	h.runDue()
	st, _, _, err := h.x.styles.get(t.Context(), stateKey(stylePrefix, "acme", "default", "alice"))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Obs) != 3 || st.Obs[0].Count != 2 || st.Obs[0].Value != "The user writes short, terse messages." {
		t.Fatalf("observations = %+v", st.Obs)
	}
	if directives.Load() != 2 {
		t.Fatalf("directives synthesised = %d, want 2", directives.Load())
	}
	var ids []string
	for _, f := range h.facts() {
		if f.Memory.Key == DirectiveKey {
			ids = append(ids, f.Memory.ID)
		}
	}
	if len(ids) != 2 || ids[0] != ids[1] {
		t.Fatalf("directive ids = %v, want two versions of one memory", ids)
	}
}

// TestNamedTurnKeepsItsRole: a turn whose agent names the speaker is
// stored as "Ann: …" and tagged with the role, so that recall can still
// tell the user's turns from the assistant's.
func TestNamedTurnKeepsItsRole(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.srv.Handle(script(goodAnswers))
	ann := h.turn("t1", "user", prefTurn)
	ann.Name = "Ann"
	bot := h.turn("t2", "assistant", "Noted.")
	bot.Name = "Helper"
	h.mustHandle(ann)
	h.mustHandle(bot)
	want := map[string]string{"Ann: " + prefTurn: "user", "Helper: Noted.": "assistant"}
	for _, c := range byRule(h.facts(), producerTranscript) {
		role, ok := want[c.Memory.Content]
		if !ok {
			t.Fatalf("unexpected transcript memory %q", c.Memory.Content)
		}
		if got := c.Memory.SpeakerRole(); got != role {
			t.Errorf("%q: role %q, want %q (tags %v)", c.Memory.Content, got, role, c.Memory.Tags)
		}
		delete(want, c.Memory.Content)
	}
	if len(want) > 0 {
		t.Fatalf("not stored as transcript memories: %v", want)
	}
}
