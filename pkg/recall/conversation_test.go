package recall_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/embedtest"
	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/store/local"
)

// said is one message of a conversation stored as a transcript memory.
type said struct {
	id, session, line string // line is "speaker: text"
	role              string // the speaker's role tag (memory.RoleTag), "" for none
}

// conversationRecaller stores the messages as the embedder does (one
// transcript memory each, a second apart, the message before it in its
// session as its context) and returns a Recaller over them.
func conversationRecaller(t testing.TB, msgs []said) *recall.Recaller {
	t.Helper()
	ctx := context.Background()
	st, err := local.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	start := testNow.Add(-24 * time.Hour)
	before := map[string]string{}
	var batch []memory.Memory
	for i, m := range msgs {
		vecs, _ := embedtest.Terms{}.Embed(ctx, []string{m.line})
		tags := []string{memory.TranscriptTag}
		if m.role != "" {
			tags = append(tags, memory.RoleTag(m.role))
		}
		at := start.Add(time.Duration(i) * time.Second)
		batch = append(batch, memory.Memory{ID: m.id, Tenant: "acme", Namespace: memory.DefaultNamespace,
			Session: m.session, Key: "transcript/" + m.session, Content: m.line, Evidence: before[m.session],
			Domain: "general", Type: memory.TypeEpisode, Kind: memory.KindEpisodic, Layer: memory.LayerBuffer,
			Importance: 0.2, Tags: tags, CreatedAt: at, ModifiedAt: at, ValidFrom: at, Vector: vecs[0]})
		before[m.session] = memory.TranscriptContext(m.line)
	}
	if err := st.Upsert(ctx, batch); err != nil {
		t.Fatal(err)
	}
	cfg := recall.Config{PerDomain: 10, MaxResults: 10, MinRelevance: 0.05, Candidates: 50}
	r, err := recall.New(cfg, st, embedtest.Terms{}, domains.Builtin(), func() time.Time { return testNow })
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func recallIDs(t *testing.T, r *recall.Recaller, query string) ([]string, recall.Response) {
	t.Helper()
	resp, err := r.Recall(context.Background(), recall.Request{Tenant: "acme", Query: query, K: 10, PerDomain: 10, Dry: true})
	if err != nil {
		t.Fatalf("recall %q: %v", query, err)
	}
	return ids(resp), resp
}

// filler is small talk of the other sessions, so that the terms of the
// turns under test are rare in the tenant.
func filler(n int) []said {
	var out []said
	for i := range n {
		out = append(out, said{id: fmt.Sprintf("f%d", i), session: "s9", line: fmt.Sprintf("Cy: weather note %d about clouds", i)})
	}
	return out
}

// TestNamedSpeakerTurnsFirst: a question naming one of the speakers
// favours that speaker's turns over the turns addressing them, which
// repeat the name and the question's words.
func TestNamedSpeakerTurnsFirst(t *testing.T) {
	msgs := append(filler(6),
		said{id: "ann", session: "s1", line: "Ann: I adopted a kitten last spring, a tabby."},
		said{id: "bob", session: "s2", line: "Bob: Ann, did you adopt the kitten from the shelter yet?"},
	)
	r := conversationRecaller(t, msgs)
	got, resp := recallIDs(t, r, "Which kitten did Ann adopt from the shelter?")
	if len(got) < 2 || got[0] != "ann" {
		t.Fatalf("ranking = %v, want Ann's own turn first", got)
	}
	for _, res := range resp.Memories {
		if res.Memory.ID == "bob" && (res.Speaker == 0 || res.Speaker >= 1) {
			t.Errorf("Bob's turn has speaker factor %v, want below 1", res.Speaker)
		}
	}
}

// TestReplyAboveItsQuestion: the turn answering a question turn ranks
// above it, though the question turn holds the query's words.
func TestReplyAboveItsQuestion(t *testing.T) {
	msgs := append(filler(6),
		said{id: "q", session: "s1", line: "Ann: What is your favourite novel to read?"},
		said{id: "a", session: "s1", line: "Bob: Charlotte's Web, every single year."},
		said{id: "x", session: "s2", line: "Bob: I read the news every morning."},
	)
	r := conversationRecaller(t, msgs)
	got, _ := recallIDs(t, r, "What is the favourite novel to read?")
	qi, ai := slices.Index(got, "q"), slices.Index(got, "a")
	if ai < 0 || qi >= 0 && ai > qi {
		t.Fatalf("ranking = %v, want the reply a above the question q", got)
	}
}

// TestTurnsOfOneSessionDoNotCompete: two turns of one session share the
// transcript's key but are not versions of one fact: the later one does
// not outrank the earlier by newer-wins.
func TestTurnsOfOneSessionDoNotCompete(t *testing.T) {
	msgs := append(filler(6),
		said{id: "early", session: "s1", line: "Ann: The staging database runs on port 5432 today."},
		said{id: "mid", session: "s1", line: "Bob: Nice."},
		said{id: "late", session: "s1", line: "Ann: The staging server is slow."},
	)
	r := conversationRecaller(t, msgs)
	got, resp := recallIDs(t, r, "which port does the staging database run on")
	if len(got) == 0 || got[0] != "early" {
		t.Fatalf("ranking = %v, want the turn that answers first", got)
	}
	for _, res := range resp.Memories {
		if res.OutrankedBy != "" {
			t.Errorf("%s outranked by %s: turns of a session are not versions of a fact", res.Memory.ID, res.OutrankedBy)
		}
	}
}

// TestFirstPersonQuestionFavoursTheUser: "do I…" is about the user: the
// user's turn ranks above the assistant's that repeats its words; "did
// you…" is about the assistant.
func TestFirstPersonQuestionFavoursTheUser(t *testing.T) {
	msgs := append(filler(6),
		said{id: "u", session: "s1", line: "user: I indent Go code with tabs, always."},
		said{id: "a", session: "s1", line: "assistant: Noted: you indent Go code with tabs, so gofmt keeps tabs for indent in Go code."},
	)
	r := conversationRecaller(t, msgs)
	if got, _ := recallIDs(t, r, "How do I indent my Go code?"); len(got) < 2 || got[0] != "u" {
		t.Errorf("first person: ranking = %v, want the user's turn first", got)
	}
	if got, _ := recallIDs(t, r, "How did you say gofmt handles indent in Go code?"); len(got) < 2 || got[0] != "a" {
		t.Errorf("second person: ranking = %v, want the assistant's turn first", got)
	}
}

// TestFirstPersonFindsANamedUser: when the agent names its speakers, the
// turns say "Ann: …", not "user: …"; their role tag still tells a first-
// person question which turns are the user's.
func TestFirstPersonFindsANamedUser(t *testing.T) {
	msgs := append(filler(6),
		said{id: "u", session: "s1", line: "Ann: I indent Go code with tabs, always.", role: "user"},
		said{id: "a", session: "s1", line: "Helper: Noted: you indent Go code with tabs, so gofmt keeps tabs for indent in Go code.", role: "assistant"},
	)
	r := conversationRecaller(t, msgs)
	if got, _ := recallIDs(t, r, "How do I indent my Go code?"); len(got) < 2 || got[0] != "u" {
		t.Errorf("first person: ranking = %v, want Ann's turn (the user's) first", got)
	}
	if got, _ := recallIDs(t, r, "How did you say gofmt handles indent in Go code?"); len(got) < 2 || got[0] != "a" {
		t.Errorf("second person: ranking = %v, want the helper's turn (the assistant's) first", got)
	}
}

// TestNamedAnswerFirst: asked which city, the turn naming one ranks above
// a turn the words rank higher that names none, and says why
// (name_factor); the other turn carries no factor.
func TestNamedAnswerFirst(t *testing.T) {
	msgs := append(filler(30),
		said{id: "plan", session: "s1", line: "Tim: for the trip I would suggest an old town, it is magical"},
		said{id: "city", session: "s2", line: "Tim: for the trip I would suggest Edinburgh, it is magical"},
	)
	r := conversationRecaller(t, msgs)
	got, resp := recallIDs(t, r, "What city would Tim suggest for the trip?")
	if len(got) < 2 || got[0] != "city" {
		t.Fatalf("ranking %v, want the turn naming a city first", got)
	}
	for _, res := range resp.Memories {
		switch res.Memory.ID {
		case "city":
			if res.Name != 1.2 {
				t.Errorf("name_factor of the naming turn = %v, want 1.2", res.Name)
			}
		case "plan":
			if res.Name != 0 {
				t.Errorf("name_factor of a turn naming nothing = %v, want none", res.Name)
			}
		}
	}
	// The same turns asked about without a kind of name: the words decide.
	if got, _ := recallIDs(t, r, "What would Tim suggest for the trip?"); len(got) < 2 || got[0] != "plan" {
		t.Fatalf("ranking %v for a question asking for no name, want the turn with more of its words first", got)
	}
}

// TestSubjectWordsDoNotAnswer: in a conversation about metrics-exporter's
// batch imports, "How did we fix the import cycle in metrics-exporter?" is
// answered by the one turn about the cycle, which does not name the
// project. The project's name holds the dense channel (every turn about the
// imports names it) and, counted in full, gave each of those turns as much
// BM25 as "cycle" gives the answer; the question's lexical score is half
// that of the question without the subject.
func TestSubjectWordsDoNotAnswer(t *testing.T) {
	msgs := filler(40)
	// Code turns import things too: "import" is a common word here.
	for i := range 30 {
		msgs = append(msgs, said{id: fmt.Sprintf("code%d", i), session: "s5", line: fmt.Sprintf("Sage: add import package%d at the top of the file", i)})
	}
	for i, line := range []string{
		"How should metrics-exporter split its imports into batches?",
		"The importer of metrics-exporter commits 200 rows per batch.",
		"Can you write the batched import loop for metrics-exporter?",
		"How do I make the batch import of metrics-exporter resumable?",
		"I changed the import of metrics-exporter to 500 rows per batch.",
		"Let's do batch imports in metrics-exporter properly.",
		"Here is how I would structure batch imports for metrics-exporter.",
		"The import of metrics-exporter retries a failed batch once.",
		"metrics-exporter logs the progress of each import batch.",
		"metrics-exporter skips rows the import already committed.",
		"An import of metrics-exporter takes two minutes per batch.",
	} {
		msgs = append(msgs, said{id: fmt.Sprintf("batch%d", i), session: fmt.Sprintf("s%d", i%3+1), line: "Tomas: " + line})
	}
	msgs = append(msgs, said{id: "cycle", session: "s4", line: "Tomas: Build broke: import cycle not allowed between cmd/server and internal/models."})
	r := conversationRecaller(t, msgs)
	got, _ := recallIDs(t, r, "How did we fix the import cycle in metrics-exporter?")
	if len(got) == 0 || got[0] != "cycle" {
		t.Fatalf("ranking %v, want the turn about the cycle first", got)
	}
}

// TestErrorReportsAnswerWhichErrors: "Which errors have we fixed in
// billing-worker so far?" is answered by the turns that reported them,
// which say neither "error" nor "fixed", above the later turns that name
// the project as much (error_factor).
func TestErrorReportsAnswerWhichErrors(t *testing.T) {
	msgs := append(filler(30),
		said{id: "cycle", session: "s1", line: "Dmitri: The billing-worker build broke: `import cycle not allowed` between two packages."},
		said{id: "panic", session: "s2", line: "Dmitri: billing-worker crashes on start: `panic: assignment to entry in nil map`."},
		said{id: "jobs", session: "s3", line: "Dmitri: billing-worker gives a job 5 attempts."},
		said{id: "port", session: "s3", line: "Dmitri: billing-worker listens on port 8080."},
		said{id: "retry", session: "s4", line: "Sage: billing-worker retries a job twice."},
	)
	r := conversationRecaller(t, msgs)
	got, resp := recallIDs(t, r, "Which errors have we fixed in billing-worker so far?")
	if len(got) < 2 || !slices.Contains(got[:2], "cycle") || !slices.Contains(got[:2], "panic") {
		t.Fatalf("ranking %v, want the two error reports first", got)
	}
	for _, res := range resp.Memories {
		want := 0.0
		if res.Memory.ID == "cycle" || res.Memory.ID == "panic" {
			want = 1.3
		}
		if res.Error != want {
			t.Errorf("error_factor of %s = %v, want %v", res.Memory.ID, res.Error, want)
		}
	}
}

// TestFixIsTheReplyToTheReport: "How did we fix the hydration mismatch in
// chat-widget?" is answered by the reply to the turn that quoted the
// error, which names neither the mismatch nor the project, above turns
// that only name the project (error_factor: the report and its reply).
func TestFixIsTheReplyToTheReport(t *testing.T) {
	msgs := filler(30)
	for i, line := range []string{
		"Kwame: the chat-widget beta is due in May.",
		"Kwame: chat-widget keeps its data in MySQL.",
		"Kwame: chat-widget runs its nightly job at 05:15.",
	} {
		msgs = append(msgs, said{id: fmt.Sprintf("proj%d", i), session: "s1", line: line})
	}
	msgs = append(msgs,
		said{id: "report", session: "s2", line: "Kwame: Next.js complains in chat-widget src/client.ts: `Text content does not match server-rendered HTML`."},
		said{id: "reply", session: "s2", line: "Sage: You render the date on the server and again on the client. Format it on the client only."})
	r := conversationRecaller(t, msgs)
	_, resp := recallIDs(t, r, "How did we fix the hydration mismatch in chat-widget?")
	rank := map[string]int{}
	for i, res := range resp.Memories {
		rank[res.Memory.ID] = i + 1
		want := 0.0
		if res.Memory.ID == "report" || res.Memory.ID == "reply" {
			want = 1.3
		}
		if res.Error != want {
			t.Errorf("error_factor of %s = %v, want %v", res.Memory.ID, res.Error, want)
		}
	}
	for _, id := range []string{"report", "reply"} {
		if rank[id] == 0 || rank[id] > 2 {
			t.Errorf("ranking %v, want the report and its reply above the turns that only name the project", ids(resp))
			break
		}
	}
}

// TestSessionNamedByItsPlace: "Which error did I run into in our second
// session?" ranks the error reported in the tenant's second session (in
// the order the sessions began) first, though the other sessions report
// errors in the same words; only that session's memories carry
// session_factor, and a session past the tenant's last names nothing.
func TestSessionNamedByItsPlace(t *testing.T) {
	var msgs []said
	for i, s := range []string{"s1", "s2", "s3"} {
		msgs = append(msgs,
			said{id: s + "-chat", session: s, line: "Ana: morning, let us look at the importer today"},
			said{id: s + "-report", session: s, line: fmt.Sprintf("Ana: the importer crashes on start: `panic: error %d in the importer`", i+1)})
	}
	r := conversationRecaller(t, append(msgs, filler(20)...)) // the filler's session is the fourth
	got, resp := recallIDs(t, r, "Which error did I run into in our second session?")
	if len(got) == 0 || got[0] != "s2-report" {
		t.Fatalf("ranking %v, want the second session's report first", got)
	}
	for _, res := range resp.Memories {
		want := 0.0
		if res.Memory.Session == "s2" {
			want = 1.6
		}
		if res.Session != want {
			t.Errorf("session_factor of %s = %v, want %v", res.Memory.ID, res.Session, want)
		}
	}
	_, resp = recallIDs(t, r, "Which error did I run into in our ninth session?")
	for _, res := range resp.Memories {
		if res.Session != 0 {
			t.Errorf("a ninth session of three: %s has session_factor %v", res.Memory.ID, res.Session)
		}
	}
}
