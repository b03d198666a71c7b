package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"
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
	// local store's bytes on disk (log, snapshot, vector files) per message.
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
	// MaxBytes caps a message's length (longMinBytes..longMaxBytes; 0:
	// longMaxBytes); tests use short ones.
	MaxBytes   int
	Timeout    time.Duration // for the drain
	CPUProfile string        // profile the drain to this file
}

func newBenchDrainCmd() *cobra.Command {
	var (
		opt    DrainOptions
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "drain",
		Short: "Backlog drain: long messages published with the workers stopped, then stored per second once they start (one process, no LLM)",
		Args:  cobra.NoArgs,
	}
	cmd.Flags().IntVar(&opt.Messages, "messages", 5000, "messages in the backlog")
	cmd.Flags().IntVar(&opt.MaxBytes, "max-bytes", longMaxBytes, fmt.Sprintf("longest message, %d to %d bytes", longMinBytes, longMaxBytes))
	cmd.Flags().DurationVar(&opt.Timeout, "timeout", 2*time.Hour, "give up when the backlog is not stored within this")
	cmd.Flags().StringVar(&opt.CPUProfile, "cpuprofile", "", "write a CPU profile of the drain to this file")
	cmd.Flags().BoolVar(&opt.Turns, "turns", false, "the backlog is streamed conversation turns (turn events from DevChat's generated sessions), each kept as a transcript memory")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		res, err := BenchDrain(cmd.Context(), opt)
		if err != nil {
			return err
		}
		if asJSON {
			return json.NewEncoder(cmd.OutOrStdout()).Encode(res)
		}
		w := cmd.OutOrStdout()
		fmt.Fprintf(w, "backlog           %d messages of %.0f bytes on average, %d chunks of %.0f tokens, published in %.1f s\n",
			res.Messages, res.BytesPerMessage, res.Chunks, res.TokensPerChunk, res.PublishSec)
		fmt.Fprintf(w, "drain             %.1f s (start %.0f ms): %.1f messages/s, %.0f tokens/s (%.0f per CPU second)\n",
			res.DrainSec, res.StartMs, res.MessagesPerSec, res.TokensPerSec, res.TokensPerCPUSec)
		fmt.Fprintf(w, "half, 99%% stored  after %.1f s, %.1f s\n", res.P50Ms/1000, res.P99Ms/1000)
		fmt.Fprintf(w, "stored            %d inserted, %d reinforced, %d updated; store holds %d memories (%d transcripts), %d with chunk vectors\n",
			res.Inserted, res.Reinforced, res.Updated, res.StoredMemories, res.Transcripts, res.Chunked)
		fmt.Fprintf(w, "storage           %.0f bytes on disk per message (local store)\n", res.StoreBytesPerMessage)
		fmt.Fprintf(w, "machine           %s\n", res.Machine)
		fmt.Fprintf(w, "note              %s\n", res.Note)
		return nil
	}
	return cmd
}

// BenchDrain publishes a backlog of long messages with no worker running,
// then starts the extractor and the embedder and times the drain.
func BenchDrain(ctx context.Context, opt DrainOptions) (DrainResult, error) {
	if opt.MaxBytes == 0 {
		opt.MaxBytes = longMaxBytes
	}
	if opt.Messages < 1 || opt.MaxBytes < longMinBytes || opt.MaxBytes > longMaxBytes || opt.Timeout < 0 {
		return DrainResult{}, errNeed(fmt.Sprintf("messages >= 1, max-bytes in [%d, %d], timeout >= 0", longMinBytes, longMaxBytes))
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
	d.res.Machine = thisMachine()
	return d.res, nil
}
