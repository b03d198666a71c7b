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
	return nil
}
