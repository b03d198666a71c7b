package drill

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// sender is the drill's clients: batches of events posted to ingest,
// retried with the same ids on 5xx and connection errors until acknowledged
// or the per-batch deadline passes. A 4xx stops the drill (the drill's
// events are valid, so it is a bug).
type sender struct {
	url      string
	cfg      drillConfig
	client   *http.Client
	acked    []atomic.Bool
	attempts atomic.Int64
	retries  atomic.Int64
	codes    sync.Map // status or error class → *atomic.Int64

	mu     sync.Mutex
	fatal  error
	failed []int // events never acknowledged
}

func newSender(url string, cfg drillConfig) *sender {
	return &sender{url: url, cfg: cfg, client: &http.Client{Timeout: 30 * time.Second}, acked: make([]atomic.Bool, cfg.Events)}
}

func (s *sender) count(key string) {
	v, _ := s.codes.LoadOrStore(key, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

// run sends every event, paced to spread them over cfg.SendDuration.
func (s *sender) run(ctx context.Context) {
	batches := make(chan []int)
	var wg sync.WaitGroup
	for range s.cfg.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				s.send(ctx, b)
			}
		}()
	}
	nb := (s.cfg.Events + s.cfg.Batch - 1) / s.cfg.Batch
	tick := time.NewTicker(max(s.cfg.SendDuration/time.Duration(nb), time.Millisecond))
	defer tick.Stop()
	for from := 0; from < s.cfg.Events; from += s.cfg.Batch {
		var b []int
		for i := from; i < min(from+s.cfg.Batch, s.cfg.Events); i++ {
			b = append(b, i)
		}
		select {
		case batches <- b:
		case <-ctx.Done():
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
		}
	}
	close(batches)
	wg.Wait()
}

func (s *sender) send(ctx context.Context, idx []int) {
	evs := make([]map[string]any, len(idx))
	for k, i := range idx {
		evs[k] = drillEvent(i)
	}
	body, _ := json.Marshal(map[string]any{"events": evs})
	deadline := time.Now().Add(s.cfg.SendDeadline)
	backoff := 100 * time.Millisecond
	for first := true; ; first = false {
		if !first {
			s.retries.Add(1)
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
			}
			backoff = min(backoff*2, 2*time.Second)
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			s.mu.Lock()
			s.failed = append(s.failed, idx...)
			s.mu.Unlock()
			return
		}
		s.attempts.Add(1)
		code, msg, err := s.post(ctx, body)
		switch {
		case err != nil:
			s.count("connection error")
			continue
		case code == http.StatusAccepted:
			s.count("202")
			for _, i := range idx {
				s.acked[i].Store(true)
			}
			return
		case code >= 500 || code == http.StatusTooManyRequests:
			s.count(fmt.Sprint(code))
			continue
		default:
			s.count(fmt.Sprint(code))
			s.mu.Lock()
			if s.fatal == nil {
				s.fatal = fmt.Errorf("ingest refused a valid batch with %d: %s", code, msg)
			}
			s.failed = append(s.failed, idx...)
			s.mu.Unlock()
			return
		}
	}
}

func (s *sender) post(ctx context.Context, body []byte) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url+"/v1/events", bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(b), nil
}

// codeCounts is how the ingest answered, by status or error class.
func (s *sender) codeCounts() map[string]int64 {
	out := map[string]int64{}
	s.codes.Range(func(k, v any) bool {
		out[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return out
}
