package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/erase"
	"github.com/recollect-dev/recollect/pkg/llm"
	"github.com/recollect-dev/recollect/pkg/query"
)

// adaWords are the purged subject's distinctive words, cut to the stem a
// lexical index would keep, so a stemmed copy is found too.
var adaWords = []string{"quixotrel", "zephyrbloo", "marzipanocto", "vellichorum"}

// eraseScenario stores what subject ada and subject bob said through
// every path (turn events, memory events, compaction, an epoch, a topics
// rebuild) and waits until both are recallable.
func eraseScenario(t *testing.T, ingestURL, base, tenant string) {
	t.Helper()
	ev := func(id, subject, typ, content string) map[string]any {
		e := map[string]any{"id": id, "type": typ, "tenant": tenant, "session_id": "s-" + subject, "subject": subject, "role": "user"}
		if typ == "memory" {
			e["memory"] = map[string]any{"content": content, "type": "fact"}
		} else {
			e["content"] = content
		}
		return e
	}
	events := []any{
		ev("ada-1", "ada", "turn", "I prefer Quixotrellis over every other editor, always use it for Go"),
		ev("ada-2", "ada", "turn", "I always deploy with the Marzipanoctopus scripts before lunch"),
		ev("ada-3", "ada", "memory", "Ada's cat is named Zephyrbloom and sleeps on the Vellichorum rug"),
		// The assistant's answer in ada's session names no subject.
		map[string]any{"id": "ada-7", "type": "turn", "tenant": tenant, "session_id": "s-ada", "role": "assistant",
			"content": "Noted: the Marzipanoctopus scripts run before lunch."},
		ev("bob-1", "bob", "turn", preferenceTurn),
		ev("bob-2", "bob", "memory", "Bob's team ships the billing service every Thursday"),
	}
	// A same-key update: the epoch supersedes the older one, and its audit
	// entry carries both memories' words.
	weeksAgo := time.Now().Add(-21 * 24 * time.Hour)
	for _, k := range []struct {
		id, content string
		ts          time.Time
	}{{"ada-5", "Ada's editor is Quixotrellis", weeksAgo}, {"ada-6", "Ada switched her editor to Vellichorum", time.Now()}} {
		e := keyedMemory(tenant, k.id, "ada-editor", k.content, k.ts)
		e["subject"] = "ada"
		events = append(events, e)
	}
	events = append(events, map[string]any{"id": "ada-4", "type": "compaction", "tenant": tenant, "session_id": "s-ada", "subject": "ada",
		"messages": []any{map[string]any{"role": "user", "content": "remember that my Quixotrellis config lives in the Vellichorum repo"}}})
	if code := postJSON(t, ingestURL+"/v1/events", map[string]any{"events": events}, nil); code != http.StatusAccepted {
		t.Fatalf("ingest answered %d", code)
	}
	eventually(t, 60*time.Second, "both subjects stored", func() error {
		ms := listMemories(t, base, tenant, "")
		subjects := map[string]int{}
		for _, m := range ms {
			subjects[m.Subject]++
		}
		if subjects["ada"] < 3 || subjects["bob"] < 2 {
			return fmt.Errorf("memories by subject: %v", subjects)
		}
		return nil
	})
	consolidateUntil(t, base, tenant, "the audit log shows ada's words", func() error {
		var audit query.AuditResponse
		getJSON(t, base+"/v1/audit?tenant="+tenant+"&limit=1000", &audit)
		raw, _ := json.Marshal(audit)
		if !bytes.Contains(bytes.ToLower(raw), []byte("quixotrel")) {
			return fmt.Errorf("%d audit entries, none with ada's words", len(audit.Entries))
		}
		return nil
	})
	eventually(t, 60*time.Second, "topics built", func() error {
		var tr query.TopicsResponse
		postJSON(t, base+"/v1/topics", map[string]any{"tenant": tenant}, &tr)
		if len(tr.Topics) == 0 {
			return fmt.Errorf("no topics yet")
		}
		return nil
	})
}

// filesHolding lists the files under dir whose bytes hold any of words
// (case-insensitively), with the word found.
func filesHolding(t *testing.T, dir string, words []string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil // removed while walking (a compaction)
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			return err
		}
		data = bytes.ToLower(data)
		for _, w := range words {
			if bytes.Contains(data, []byte(w)) {
				rel, _ := filepath.Rel(dir, path)
				found = append(found, rel+" ("+w+")")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", dir, err)
	}
	return found
}

// purgeSubject purges a subject and waits for its receipt to be done.
func purgeSubject(t *testing.T, base, tenant, subject string) erase.Receipt {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, base+"/v1/memories?tenant="+tenant+"&subject="+subject, nil)
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out query.DeleteResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("purge answered %d: %v", resp.StatusCode, err)
	}
	if out.Deleted == 0 || out.Receipt == nil {
		t.Fatalf("purge deleted %d memories, receipt %v", out.Deleted, out.Receipt)
	}
	rc := *out.Receipt
	eventually(t, 60*time.Second, "erasure receipt done", func() error {
		if code := getJSON(t, base+"/v1/erasures/"+rc.ID+"?tenant="+tenant, &rc); code != http.StatusOK {
			return fmt.Errorf("receipt answered %d", code)
		}
		if !rc.Done() {
			return fmt.Errorf("receipt %+v", rc)
		}
		return nil
	})
	return rc
}

// A purge of ada leaves none of ada's words in any file of the data dir
// (store log and snapshots, audit files, streams, topic trees), while
// bob's memories stay and are recalled.
func TestEraseReachesEveryFile(t *testing.T) {
	dir := t.TempDir()
	a := startConfigured(t, dir, func(*app.Config) {})
	base := a.Web().URL()
	eraseScenario(t, base, base, "acme")
	if found := filesHolding(t, dir, adaWords); len(found) == 0 {
		t.Fatal("no file holds ada's words before the purge: the test proves nothing")
	}
	rc := purgeSubject(t, base, "acme", "ada")
	checkErased(t, base, "acme", rc, func() []string { return filesHolding(t, dir, adaWords) })
}

// checkErased checks the receipt of ada's purge, that found (what still
// holds ada's words) finds nothing, and that bob's memories stay whole and
// recalled. A known gap is a place the receipt must say not_erased, and
// the file path where ada's words may then remain.
type knownGap struct{ place, path string }

func checkErased(t *testing.T, base, tenant string, rc erase.Receipt, found func() []string, gaps ...knownGap) {
	t.Helper()
	t.Logf("receipt: %+v", rc)
	places := map[string]erase.PlaceReceipt{}
	for _, p := range rc.Places {
		places[p.Place] = p
	}
	want := erase.StateComplete
	for _, g := range gaps {
		if places[g.place].State != erase.StateNotErased {
			t.Errorf("place %s is %s, want not_erased (a known gap)", g.place, places[g.place].State)
		}
		delete(places, g.place)
		want = erase.StateIncomplete
	}
	for _, p := range places {
		if p.State != erase.StateErased {
			t.Errorf("place %s is %s: %s", p.Place, p.State, p.Note)
		}
	}
	if rc.State != want {
		t.Fatalf("receipt %s, want %s: %+v", rc.State, want, rc.Places)
	}
	for _, g := range gaps {
		places[g.place] = erase.PlaceReceipt{}
	}
	for _, name := range []string{"store", "store-files", "audit", "streams", "topics", "extractor-state", "embedding-cache", "usage", "audit-record"} {
		if _, ok := places[name]; !ok {
			t.Errorf("receipt has no place %s: %+v", name, rc.Places)
		}
	}
	if places["streams"].Erased == 0 || places["audit"].Erased == 0 {
		t.Errorf("no stream message or audit entry erased: %+v", rc.Places)
	}
	left := func() []string {
		var out []string
		for _, f := range found() {
			if !slices.ContainsFunc(gaps, func(g knownGap) bool { return strings.Contains(f, g.path) }) {
				out = append(out, f)
			}
		}
		return out
	}
	if found := left(); len(found) > 0 {
		t.Fatalf("ada's words are still on disk after the purge:\n%s", strings.Join(found, "\n"))
	}
	var audit query.AuditResponse
	getJSON(t, base+"/v1/audit?tenant="+tenant+"&limit=1000", &audit)
	raw, _ := json.Marshal(audit)
	for _, w := range adaWords {
		if bytes.Contains(bytes.ToLower(raw), []byte(w)) {
			t.Fatalf("GET /v1/audit still shows %q", w)
		}
	}
	// bob's memories are whole and recalled.
	subjects := map[string]int{}
	for _, m := range listMemories(t, base, tenant, "") {
		subjects[m.Subject]++
	}
	if subjects["ada"] != 0 || subjects["bob"] < 2 {
		t.Fatalf("memories by subject after the purge: %v", subjects)
	}
	eventually(t, 30*time.Second, "recall bob's preference", recallIndent(t, base, tenant))
	// The topic tree is rebuilt from what is left.
	eventually(t, 30*time.Second, "topics rebuilt without ada", func() error {
		var tr query.TopicsResponse
		postJSON(t, base+"/v1/topics", map[string]any{"tenant": tenant}, &tr)
		if len(tr.Topics) == 0 {
			return fmt.Errorf("no topics")
		}
		return nil
	})
	if found := left(); len(found) > 0 {
		t.Fatalf("ada's words came back after the topics rebuild:\n%s", strings.Join(found, "\n"))
	}
}

// The same at --llm-level full (a scripted model that finds nothing): the
// extractor keeps session buffers of the turns for the model, in a
// key-value bucket JetStream will not overwrite, sealed so that shredding
// an entry's key erases every revision of it.
func TestEraseWithLLM(t *testing.T) {
	dir := t.TempDir()
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		return llmtest.JSON(map[string]any{"facts": []any{}, "decisions": []any{}, "ops": []any{}})
	})
	a := startConfigured(t, dir, func(c *app.Config) {
		c.LLM.URL, c.LLM.Level, c.LLM.Model = srv.URL(), llm.LevelFull, "m"
	})
	base := a.Web().URL()
	eraseScenario(t, base, base, "acme")
	rc := purgeSubject(t, base, "acme", "ada")
	// The session buffers are sealed, each with its own key, and the
	// purge shredded the keys: no revision left in the bucket's files
	// reads as ada's words, and the receipt says erased.
	checkErased(t, base, "acme", rc, func() []string { return filesHolding(t, dir, adaWords) })
	places := map[string]erase.PlaceReceipt{}
	for _, p := range rc.Places {
		places[p.Place] = p
	}
	if places["extractor-state"].Erased == 0 {
		t.Fatalf("the purge found no session buffer of ada's: %+v", places["extractor-state"])
	}
}
