package soak

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// sample scrapes /metrics every cfg.SampleEvery until ctx ends, and once more
// at the end.
func (r *runner) sample(ctx context.Context) []Sample {
	var out []Sample
	tick := time.NewTicker(r.cfg.SampleEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return append(out, r.one())
		case <-tick.C:
			s := r.one()
			out = append(out, s)
			r.log.Info("soak sample", "at_s", s.AtS, "rss_mb", s.RSSBytes/(1<<20), "goroutines", s.Goroutines,
				"recall_p99_ms", s.RecallP99Ms, "ops", s.Ops, "errors", s.Errors)
		}
	}
}

func (r *runner) one() Sample {
	r.mu.Lock()
	lat := r.lat
	r.lat = nil
	r.mu.Unlock()
	s := Sample{AtS: time.Since(r.start).Seconds(), Steady: r.steady(), Live: r.live(), Recalls: len(lat), RecallP50Ms: ms(percentile(lat, 0.5)),
		RecallP99Ms: ms(percentile(lat, 0.99)), Ops: r.ops.Load(), Errors: r.errs.Load()}
	m, err := scrape(r.cfg.URL + "/metrics")
	if err != nil {
		s.ScrapeFailed = err.Error()
		return s
	}
	s.RSSBytes, s.Goroutines = m["process_resident_memory_bytes"], m["go_goroutines"]
	return s
}

// scrape reads the unlabelled samples of a Prometheus text page.
func scrape(url string) (map[string]float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: %s", url, resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") || strings.Contains(name, "{") {
			continue
		}
		if v, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
			out[name] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", url, err)
	}
	return out, nil
}

// percentile of ds (nearest rank); 0 for none.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(p*float64(len(s))+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
