package extract

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"testing"
)

// TestKeysIdentifyFacts (issue 19 item 5): over a corpus of preference and
// decision statements written for the purpose, each labelled with the
// thing it is about, restatements of one thing share a generated key and
// no two things share one ("short commit messages in project number 2"
// and "conventional commits in project number 21" must not both be
// preference/commit-messages).
func TestKeysIdentifyFacts(t *testing.T) {
	f, err := os.Open("testdata/keys_corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type row struct{ Thing, Text string }
	var rows []row
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	if len(rows) < 200 {
		t.Fatalf("corpus of %d statements, want at least 200", len(rows))
	}
	x := newCaptureExtractor(t)
	keyOf := map[string]string{}      // thing → key
	thingsOf := map[string][]string{} // key → things
	textOf := map[string]string{}     // thing → first statement
	for i, r := range rows {
		fs := x.Capture(turnEvent(fmt.Sprint(i), "user", r.Text, t0))
		if len(fs) != 1 {
			t.Errorf("%q: %d facts, want 1", r.Text, len(fs))
			continue
		}
		k := fs[0].Memory.Key
		if prev, ok := keyOf[r.Thing]; ok {
			if prev != k {
				t.Errorf("restatements of %s got two keys: %q (%q) and %q (%q)", r.Thing, prev, textOf[r.Thing], k, r.Text)
			}
			continue
		}
		keyOf[r.Thing], textOf[r.Thing] = k, r.Text
		thingsOf[k] = append(thingsOf[k], r.Thing)
	}
	keys := make([]string, 0, len(thingsOf))
	for k := range thingsOf {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	collisions := 0
	for _, k := range keys {
		if ts := thingsOf[k]; len(ts) > 1 {
			collisions++
			var texts []string
			for _, th := range ts {
				texts = append(texts, textOf[th])
			}
			t.Errorf("key %q is shared by different things: %q", k, texts)
		}
	}
	t.Logf("%d statements, %d things, %d keys, %d collisions", len(rows), len(keyOf), len(thingsOf), collisions)
}
