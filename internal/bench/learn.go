package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// learnWaitStats is what the learn-wait phase of bench recall measures.
type learnWaitStats struct {
	latencies []time.Duration // sorted
	merged    int             // answers naming a near-duplicate that absorbed the memory
	timedOut  int             // answers with stored false: the wait ran out
}

// learnTimeout bounds one learn's wait on the server, as a request field.
const learnTimeout = "10s"

// sendLearns posts n explicit memories with wait=true, one at a time, and
// measures each answer: the time from the request until the memory is
// stored (extractor, embedder and store in this process) and answered.
// Contents are corpus texts no memory in the store has.
func sendLearns(ctx context.Context, client *http.Client, url string, c *corpus, first, n int) (learnWaitStats, error) {
	var st learnWaitStats
	bar := phaseProgress(ctx, n, "learns with wait", "learns")
	defer bar.End()
	for i := range n {
		body, err := json.Marshal(map[string]any{"tenant": c.tenant(first + i), "content": c.text(first + i), "domain": "general",
			"wait": true, "timeout": learnTimeout})
		if err != nil {
			return st, err
		}
		d, stored, merged, err := postLearn(ctx, client, url, body)
		if err != nil {
			return st, err
		}
		if !stored {
			st.timedOut++
		}
		if merged {
			st.merged++
		}
		st.latencies = append(st.latencies, d)
		bar.Add(1)
	}
	sortDurations(st.latencies)
	return st, nil
}

// postLearn sends one learn with wait and reads whether it was stored.
func postLearn(ctx context.Context, client *http.Client, url string, body []byte) (d time.Duration, stored, merged bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, false, false, err
	}
	req.Header.Set("Content-Type", "application/json")
	begin := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, false, false, fmt.Errorf("learn: %w", err)
	}
	defer resp.Body.Close()
	var out struct {
		Stored *bool `json:"stored"`
		Merged bool  `json:"merged"`
	}
	err = json.NewDecoder(resp.Body).Decode(&out)
	d = time.Since(begin)
	_, _ = io.Copy(io.Discard, resp.Body)
	switch {
	case resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusAccepted:
		return 0, false, false, fmt.Errorf("learn answered %s", resp.Status)
	case err != nil:
		return 0, false, false, fmt.Errorf("decode learn answer: %w", err)
	case out.Stored == nil:
		return 0, false, false, fmt.Errorf("learn with wait answered without saying whether it stored (%s)", resp.Status)
	}
	return d, *out.Stored, out.Merged, nil
}
