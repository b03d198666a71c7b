package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/internal/cputime"
	"github.com/recollect-dev/recollect/internal/devchatgen"
	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/embed/minilm"
	"github.com/recollect-dev/recollect/pkg/embedder"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store"
	"github.com/recollect-dev/recollect/pkg/store/local"
)

const (
	drainTenant = "bench"
	drainBatch  = 100 // events per POST /v1/events
)

// drainRun is one bench drain: a temporary data dir shared by the app that
// takes the backlog and the app that drains it.
type drainRun struct {
	opt    DrainOptions
	turns  []memory.Event // the backlog as turn events (Turns)
	dir    string
	log    *slog.Logger
	tokens int // model tokens of the whole backlog
	res    DrainResult
}

func newDrainRun(opt DrainOptions) (*drainRun, error) {
	dir, err := os.MkdirTemp("", "recollect-bench-drain-")
	if err != nil {
		return nil, err
	}
	d := &drainRun{opt: opt, dir: dir, log: slog.New(slog.DiscardHandler), res: DrainResult{Messages: opt.Messages, Turns: opt.Turns}}
	if opt.Turns {
		if d.turns, err = drainTurns(opt.Messages); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	return d, nil
}

// drainTurns is a backlog of n streamed turns: DevChat's generated
// conversations, one session per bench session, repeated under new
// session ids until there are n.
func drainTurns(n int) ([]memory.Event, error) {
	set, err := devchatgen.Generate(devchatgen.DefaultOptions())
	if err != nil {
		return nil, fmt.Errorf("generate the conversation: %w", err)
	}
	out := make([]memory.Event, 0, n)
	for round := 0; len(out) < n; round++ {
		for _, c := range set.Conversations {
			for _, se := range c.Sessions {
				for _, t := range se.Turns {
					if len(out) == n {
						return out, nil
					}
					out = append(out, memory.Event{ID: eventID(len(out)), Type: memory.EventTurn, Tenant: drainTenant,
						SessionID: fmt.Sprintf("%s-%d-%d", c.ID, se.Number, round), Subject: c.User, Role: t.Role, Name: t.Speaker,
						Content: t.Text, TS: t.TS})
				}
			}
		}
	}
	return out, nil
}

func (d *drainRun) close() { os.RemoveAll(d.dir) }

// message is backlog message i's content.
func (d *drainRun) message(i int) string {
	if d.turns != nil {
		return d.turns[i].Content
	}
	return LongMessageMax(i, d.opt.MaxBytes)
}

// eventID is backlog message i's client id.
func eventID(i int) string { return fmt.Sprintf("drain-%d", i) }

// measureBacklog counts the backlog's chunks and model tokens, chunked as
// the embedder chunks them.
func (d *drainRun) measureBacklog() error {
	m, err := minilm.Load()
	if err != nil {
		return err
	}
	v, err := embedder.NewVectorizer(m, DefaultEmbedderConfig(m))
	if err != nil {
		return err
	}
	bytes := 0
	for i := range d.opt.Messages {
		content := d.message(i)
		bytes += len(content)
		texts := v.Texts(memory.Memory{Content: content})
		d.res.Chunks += len(texts)
		for _, t := range texts {
			d.tokens += m.Tokens(t)
		}
	}
	d.res.BytesPerMessage = float64(bytes) / float64(d.opt.Messages)
	d.res.TokensPerChunk = float64(d.tokens) / float64(d.res.Chunks)
	return nil
}

// startApp starts targets on the run's data dir, as benchApp does.
func (d *drainRun) startApp(ctx context.Context, targets ...string) (*app.App, error) {
	var cfg app.Config
	fs := pflag.NewFlagSet("bench", pflag.ContinueOnError)
	cfg.RegisterFlags(fs, app.TargetQuery)
	cfg.DataDir = d.dir
	cfg.Web.Addr = "127.0.0.1:0"
	cfg.Targets = targets
	a, err := app.New(cfg, d.log)
	if err != nil {
		return nil, err
	}
	if err := a.Start(ctx); err != nil {
		return nil, err
	}
	return a, nil
}

// publish posts the backlog to /v1/events with only ingest running, then
// stops it: the events wait in JetStream for workers that do not exist yet.
func (d *drainRun) publish(ctx context.Context) error {
	a, err := d.startApp(ctx, app.TargetIngest)
	if err != nil {
		return fmt.Errorf("start ingest: %w", err)
	}
	url := a.Web().URL() + "/v1/events"
	bar := phaseProgress(ctx, d.opt.Messages, "publishing the backlog", "messages")
	begin := time.Now()
	for start := 0; start < d.opt.Messages && err == nil; start += drainBatch {
		end := min(start+drainBatch, d.opt.Messages)
		err = d.postEvents(ctx, url, start, end)
		bar.Add(end - start)
	}
	bar.End()
	d.res.PublishSec = time.Since(begin).Seconds()
	if stopErr := a.Stop(context.WithoutCancel(ctx)); err == nil && stopErr != nil {
		err = fmt.Errorf("stop ingest: %w", stopErr)
	}
	return err
}

func (d *drainRun) postEvents(ctx context.Context, url string, start, end int) error {
	events := make([]memory.Event, 0, end-start)
	for i := start; i < end; i++ {
		if d.turns != nil {
			events = append(events, d.turns[i])
			continue
		}
		events = append(events, memory.Event{ID: eventID(i), Type: memory.EventMemory, Tenant: drainTenant,
			Memory: &memory.MemoryInput{Content: d.message(i)}})
	}
	body, err := json.Marshal(map[string]any{"events": events})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("post events %d-%d: %w", start, end-1, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
		return fmt.Errorf("post events %d-%d: %s: %s", start, end-1, resp.Status, msg)
	}
	return nil
}

// storedCounter counts the embedder's stored events, once per source
// event (a redelivered fact may announce twice), and when each came.
type storedCounter struct {
	mu     sync.Mutex
	begin  time.Time
	seen   map[string]bool
	ops    map[memory.StoredOp]int
	at     []time.Duration // since begin, in arrival order
	want   int
	allIn  chan struct{}
	closed bool
}

func (c *storedCounter) handle(_ context.Context, dl *bus.Delivery) error {
	var ev memory.StoredEvent
	if err := json.Unmarshal(dl.Data, &ev); err != nil {
		return bus.Permanent(fmt.Errorf("decode stored event: %w", err))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ev.Tenant != drainTenant || c.seen[ev.SourceEvent] {
		return nil
	}
	c.seen[ev.SourceEvent] = true
	c.ops[ev.Op]++
	c.at = append(c.at, time.Since(c.begin))
	if len(c.seen) == c.want && !c.closed {
		c.closed = true
		close(c.allIn)
	}
	return nil
}

// drain starts the extractor and the embedder on the backlog and waits
// until every message was announced stored.
func (d *drainRun) drain(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, d.opt.Timeout)
	defer cancel()
	if d.opt.CPUProfile != "" {
		stop, err := StartCPUProfile(d.opt.CPUProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	c := &storedCounter{seen: map[string]bool{}, ops: map[memory.StoredOp]int{}, want: d.opt.Messages, allIn: make(chan struct{})}
	bar := phaseProgress(ctx, d.opt.Messages, "draining the backlog", "messages")
	defer bar.End()
	c.begin = time.Now()
	cpu0 := cputime.Process()
	a, err := d.startApp(ctx, app.TargetExtractor, app.TargetEmbedder)
	if err != nil {
		return fmt.Errorf("start the workers: %w", err)
	}
	defer func() { _ = a.Stop(context.WithoutCancel(ctx)) }()
	d.res.StartMs = float64(time.Since(c.begin).Microseconds()) / 1000
	// The stored events stay in their stream: a consumer made now still
	// reads those announced while the workers started.
	sc, err := a.Bus().Consume(ctx, bus.ConsumerConfig{Durable: "bench-drain", Stream: bus.StreamEvent,
		FilterSubjects: []string{bus.AllStored}, Concurrency: 1}, c.handle, d.log)
	if err != nil {
		return fmt.Errorf("count stored events: %w", err)
	}
	defer func() { _ = sc.Stop(context.WithoutCancel(ctx)) }()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	shown := 0
	for done := false; !done; {
		select {
		case <-c.allIn:
			done = true
		case <-tick.C:
		case <-ctx.Done():
			c.mu.Lock()
			n := len(c.seen)
			c.mu.Unlock()
			return fmt.Errorf("drain: %d of %d messages stored: %w", n, d.opt.Messages, ctx.Err())
		}
		c.mu.Lock()
		n := len(c.seen)
		c.mu.Unlock()
		bar.Add(n - shown)
		shown = n
	}
	cpu := cputime.Process() - cpu0
	c.mu.Lock()
	defer c.mu.Unlock()
	took := c.at[len(c.at)-1]
	d.res.DrainSec = took.Seconds()
	d.res.MessagesPerSec = float64(d.opt.Messages) / took.Seconds()
	d.res.TokensPerSec = float64(d.tokens) / took.Seconds()
	d.res.TokensPerCPUSec = perCPUSecond(float64(d.tokens), cpu)
	d.res.Inserted, d.res.Reinforced, d.res.Updated = c.ops[memory.StoredInserted], c.ops[memory.StoredReinforced], c.ops[memory.StoredUpdated]
	at := slices.Clone(c.at)
	sortDurations(at)
	d.res.P50Ms, d.res.P99Ms = percentile(at, 50), percentile(at, 99)
	d.res.QPS = d.res.MessagesPerSec
	return nil
}

// verify opens the store the workers left and counts its memories and
// those with chunk vectors.
func (d *drainRun) verify(ctx context.Context) error {
	s, err := local.Open(filepath.Join(d.dir, "store"), local.WithLogger(d.log))
	if err != nil {
		return fmt.Errorf("open the drained store: %w", err)
	}
	defer s.Close()
	all := store.Filter{IncludeArchived: true, IncludeSuperseded: true, IncludeQuarantined: true}
	err = s.Scroll(ctx, drainTenant, all, func(m memory.Memory) error {
		d.res.StoredMemories++
		if len(m.ChunkVectors) > 0 {
			d.res.Chunked++
		}
		if m.Transcript() {
			d.res.Transcripts++
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("scroll the drained store: %w", err)
	}
	if d.opt.Turns && d.res.Transcripts != d.opt.Messages {
		return fmt.Errorf("%d transcript memories for %d streamed turns", d.res.Transcripts, d.opt.Messages)
	}
	size, err := dirBytes(filepath.Join(d.dir, "store"))
	if err != nil {
		return err
	}
	d.res.StoreBytesPerMessage = float64(size) / float64(d.opt.Messages)
	d.res.Memories = d.res.StoredMemories
	return nil
}

// dirBytes is the bytes of the files under dir.
func dirBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		n += info.Size()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("size of %s: %w", dir, err)
	}
	return n, nil
}
