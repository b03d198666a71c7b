package bench

import (
	"context"
	"fmt"
	"time"
)

// DrainResult is what `recollect bench drain --json` prints.
type DrainResult struct {
	Messages        int     `json:"messages"`
	BytesPerMessage float64 `json:"bytes_per_message"`
	Chunks          int     `json:"chunks"`           // model inputs, as the embedder chunks the messages
	TokensPerChunk  float64 `json:"tokens_per_chunk"` // as the model reads them (at most 256)
	PublishSec      float64 `json:"publish_sec"`      // sending the backlog through ingest, no worker running
	StartMs         float64 `json:"start_ms"`         // starting the extractor and the embedder (model load included)
	// DrainSec runs from starting the workers until the last message was
	// announced stored; the rates are over it.
	DrainSec        float64 `json:"drain_sec"`
	MessagesPerSec  float64 `json:"messages_per_sec"`
	TokensPerSec    float64 `json:"tokens_per_sec"`
	TokensPerCPUSec float64 `json:"tokens_per_cpu_sec"` // per second of the process's CPU time (0 where unknown)
	// What the embedder announced, one stored event per message: inserted
	// as a new memory, or reinforced/updated into one already there.
	Inserted   int `json:"inserted"`
	Reinforced int `json:"reinforced"`
	Updated    int `json:"updated"`
	// StoredMemories is what the store holds after the drain, Chunked how
	// many of them carry chunk vectors.
	StoredMemories int `json:"stored_memories"`
	Chunked        int `json:"chunked"`
	// Turns: the backlog was streamed turns; Transcripts counts the
	// transcript memories stored (one per turn), StoreBytesPerMessage the
	// local store's bytes on disk (log, snapshot, index files) per message.
	Turns                bool    `json:"turns,omitempty"`
	Transcripts          int     `json:"transcripts,omitempty"`
	StoreBytesPerMessage float64 `json:"store_bytes_per_message"`
	// The fields every bench command has: P50Ms and P99Ms are the times
	// from the start of the drain until half and 99% of the backlog was
	// stored, QPS the messages stored per second, Memories the memories
	// stored.
	P50Ms    float64 `json:"p50_ms"`
	P99Ms    float64 `json:"p99_ms"`
	QPS      float64 `json:"qps"`
	Memories int     `json:"memories"`
	Note     string  `json:"note"`
	Machine  Machine `json:"machine"`
}

const drainNote = "one process: the backlog of explicit memories (code-heavy, 1-8 KB) is posted to /v1/events with only ingest running, " +
	"which stops; then the extractor and the embedder start on the same data dir (embedded JetStream, local store) and drain it: " +
	"rule path, no LLM, each message one memory embedded chunk by chunk (built-in model), dedup-searched and stored with its chunk vectors"

const drainTurnsNote = "one process: a backlog of streamed conversation (DevChat's generated sessions: short user messages, long code-heavy assistant replies; " +
	"one turn event per message) is posted to /v1/events with only ingest running, which stops; then the extractor and the embedder start on the same data dir " +
	"and drain it: rule capture plus one transcript memory per turn, no LLM, each embedded chunk by chunk (built-in model) and stored; a turn counts as stored at its first announced memory"

// DrainOptions sizes a drain benchmark.
type DrainOptions struct {
	Messages int
	// Turns makes the backlog streamed conversation turns (turn events)
	// instead of explicit memories.
	Turns bool
	// MaxBytes caps a message's length (LongMinBytes..longMaxBytes; 0:
	// LongMaxBytes); tests use short ones.
	MaxBytes   int
	Timeout    time.Duration // for the drain
	CPUProfile string        // profile the drain to this file
}

// BenchDrain publishes a backlog of long messages with no worker running,
// then starts the extractor and the embedder and times the drain.
func BenchDrain(ctx context.Context, opt DrainOptions) (DrainResult, error) {
	if opt.MaxBytes == 0 {
		opt.MaxBytes = LongMaxBytes
	}
	if opt.Messages < 1 || opt.MaxBytes < LongMinBytes || opt.MaxBytes > LongMaxBytes || opt.Timeout < 0 {
		return DrainResult{}, errNeed(fmt.Sprintf("messages >= 1, max-bytes in [%d, %d], timeout >= 0", LongMinBytes, LongMaxBytes))
	}
	if opt.Timeout == 0 {
		opt.Timeout = 2 * time.Hour
	}
	d, err := newDrainRun(opt)
	if err != nil {
		return DrainResult{}, err
	}
	defer d.close()
	if err := d.measureBacklog(); err != nil {
		return DrainResult{}, err
	}
	if err := d.publish(ctx); err != nil {
		return DrainResult{}, err
	}
	if err := d.drain(ctx); err != nil {
		return DrainResult{}, err
	}
	if err := d.verify(ctx); err != nil {
		return DrainResult{}, err
	}
	d.res.Note = drainNote
	if opt.Turns {
		d.res.Note = drainTurnsNote
	}
	d.res.Machine = ThisMachine()
	return d.res, nil
}
