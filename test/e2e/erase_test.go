package e2e

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/query"
)

// adaWords are the purged subject's distinctive words, cut to the stem a
// lexical index would keep, so a stemmed copy is found too.
var adaWords = []string{"quixotrel", "zephyrbloo", "marzipanocto", "vellichorum"}

// eraseScenario stores what subject ada and subject bob said through
// every path (turn events, memory events, compaction, an epoch, a topics
// rebuild) and waits until both are recallable.
func eraseScenario(t *testing.T, base, tenant string) {
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
		ev("bob-1", "bob", "turn", preferenceTurn),
		ev("bob-2", "bob", "memory", "Bob's team ships the billing service every Thursday"),
	}
	events = append(events, map[string]any{"id": "ada-4", "type": "compaction", "tenant": tenant, "session_id": "s-ada", "subject": "ada",
		"messages": []any{map[string]any{"role": "user", "content": "remember that my Quixotrellis config lives in the Vellichorum repo"}}})
	if code := postJSON(t, base+"/v1/events", map[string]any{"events": events}, nil); code != http.StatusAccepted {
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
	if code := postJSON(t, base+"/v1/consolidate", map[string]any{"tenant": tenant}, nil); code != http.StatusAccepted {
		t.Fatalf("consolidate answered %d", code)
	}
	eventually(t, 60*time.Second, "epoch audited and topics built", func() error {
		var audit query.AuditResponse
		getJSON(t, base+"/v1/audit?tenant="+tenant, &audit)
		if len(audit.Entries) == 0 {
			return fmt.Errorf("no audit entries yet")
		}
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

func TestEraseDiscovery(t *testing.T) {
	dir := t.TempDir()
	a := startConfigured(t, dir, func(*app.Config) {})
	base := a.Web().URL()
	eraseScenario(t, base, "acme")
	t.Logf("before purge: %s", strings.Join(filesHolding(t, dir, adaWords), "\n"))
	req, _ := http.NewRequest(http.MethodDelete, base+"/v1/memories?tenant=acme&subject=ada", nil)
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	time.Sleep(3 * time.Second)
	t.Logf("after purge: %s", strings.Join(filesHolding(t, dir, adaWords), "\n"))
}
