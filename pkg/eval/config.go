package eval

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/recall"
)

// MinK is the smallest recall size the metrics (cut at 5 and 10) can use.
const MinK = 10

// Config of a LoCoMo evaluation run.
type Config struct {
	Data         string
	Audit        string
	URL          string
	K            int
	TenantPrefix string
	Captions     bool
	WaitTimeout  time.Duration
	Settle       time.Duration
	Samples      []string
	Out          string
	// Ingest is the path the turns take into Recollect: IngestTurns (one
	// turn event per message and a session_end per session, the way agents
	// publish), IngestCompaction (one compaction event per session) or
	// IngestExplicit (each turn an explicit episode memory).
	Ingest string
	// Progress, when set, is told how far each stage has come: StageIngest
	// (turns posted), StageStored (turns seen in a memory) and
	// StageQuestions (questions asked or skipped), done of total, from 0.
	// It replaces progress log records: a run logs only warnings.
	Progress func(stage string, done, total int)
}

// The stages of a run, in order, as Config.Progress names them.
const (
	StageIngest    = "ingest"
	StageStored    = "stored"
	StageQuestions = "questions"
)

// progress tells cfg.Progress, if any.
func (c *Config) progress(stage string, done, total int) {
	if c.Progress != nil {
		c.Progress(stage, done, total)
	}
}

// RegisterFlags adds the evaluation flags.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.StringVar(&c.Data, prefix+"data", "", "LoCoMo file (JSON list of samples, the benchmark's schema)")
	fs.StringVar(&c.Audit, prefix+"audit", "", "audit file listing questions with wrong gold answers or evidence (default: locomo10_audit_errors.json beside --data, when present; \"none\" to skip)")
	fs.StringVar(&c.URL, prefix+"url", "", "base URL of a running Recollect (default: start one in this process, in a temporary data directory)")
	fs.IntVar(&c.K, prefix+"k", MinK, "memories asked of recall per question (metrics are cut at 5 and 10)")
	fs.StringVar(&c.TenantPrefix, prefix+"tenant-prefix", "locomo-", "tenant of a conversation: this prefix and the sample id")
	fs.BoolVar(&c.Captions, prefix+"captions", false, "append the generated caption of a shared image (blip_caption) to the turn's text")
	fs.DurationVar(&c.WaitTimeout, prefix+"wait-timeout", 15*time.Minute, "longest wait for every turn to be stored")
	fs.DurationVar(&c.Settle, prefix+"settle", time.Minute, "give up waiting for the remaining turns after this long without progress")
	fs.StringSliceVar(&c.Samples, prefix+"samples", nil, "only these sample ids (default: all)")
	fs.StringVar(&c.Out, prefix+"out", "", "write one JSON line per scored question (evidence, recalled dia ids, metrics) to this file")
	registerIngest(&c.Ingest, prefix, fs)
}

// The ingest paths of an evaluation run (Config.Ingest).
const (
	IngestTurns      = "turns"
	IngestCompaction = "compaction"
	IngestExplicit   = "explicit"
)

func registerIngest(v *string, prefix string, fs *pflag.FlagSet) {
	fs.StringVar(v, prefix+"ingest", IngestTurns, "how the turns are sent: turns (one turn event per message and a session_end per session, as agents publish), compaction (one compaction event per session) or explicit (each turn an explicit episode memory); recalled memories count for the turns they were made from")
}

func checkIngest(v string) error {
	switch v {
	case "", IngestTurns, IngestCompaction, IngestExplicit: // "": turns
		return nil
	}
	return fmt.Errorf("ingest must be turns, compaction or explicit (got %q)", v)
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	switch {
	case c.Data == "":
		return errors.New("data: a LoCoMo file is required")
	case c.K < MinK || c.K > recall.MaxK:
		return fmt.Errorf("k must be between %d and %d (got %d)", MinK, recall.MaxK, c.K)
	case c.WaitTimeout <= 0 || c.Settle <= 0:
		return errors.New("wait-timeout and settle must be positive")
	}
	return checkIngest(c.Ingest)
}
