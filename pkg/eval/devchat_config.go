package eval

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/recall"
)

// How a DevChat run passes each conversation's as_of to recall.
const (
	// AsOfAuto sends as_of and, when the server's recall refuses the field
	// (a 400 naming as_of: a server without time-aware recall), asks again
	// without it for the rest of the run and says so in the report.
	AsOfAuto = "auto"
	AsOfOn   = "on"  // always send; a refusal fails the run
	AsOfOff  = "off" // never send
)

// DevChatConfig of a DevChat evaluation run: the LoCoMo run's settings
// (Audit and Captions unused) and how as_of is sent.
type DevChatConfig struct {
	Config
	AsOf string
}

// RegisterFlags adds the DevChat evaluation flags.
func (c *DevChatConfig) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.StringVar(&c.Data, prefix+"data", "", "DevChat file (JSON, gzip-compressed when it ends in .gz; see testdata/devchat/README.md)")
	fs.StringVar(&c.URL, prefix+"url", "", "base URL of a running Recollect (default: start one in this process, in a temporary data directory)")
	fs.IntVar(&c.K, prefix+"k", MinK, "memories asked of recall per question (metrics are cut at 5 and 10)")
	fs.StringVar(&c.TenantPrefix, prefix+"tenant-prefix", "devchat-", "tenant of a conversation: this prefix and the conversation id")
	fs.DurationVar(&c.WaitTimeout, prefix+"wait-timeout", 15*time.Minute, "longest wait for every turn to be stored")
	fs.DurationVar(&c.Settle, prefix+"settle", time.Minute, "give up waiting for the remaining turns after this long without progress")
	fs.StringSliceVar(&c.Samples, prefix+"conversations", nil, "only these conversation ids (default: all)")
	fs.StringVar(&c.Out, prefix+"out", "", "write one JSON line per question (query, expected and stale turns, recalled turns, their ranks, metrics) to this file")
	registerIngest(&c.Ingest, prefix, fs)
	fs.StringVar(&c.AsOf, prefix+"as-of", AsOfAuto, "send each conversation's as_of (its last session) with every recall: auto (send; drop it if the server refuses the field), on or off")
}

// Validate checks the configuration.
func (c *DevChatConfig) Validate() error {
	switch {
	case c.Data == "":
		return errors.New("data: a DevChat file is required")
	case c.K < MinK || c.K > recall.MaxK:
		return fmt.Errorf("k must be between %d and %d (got %d)", MinK, recall.MaxK, c.K)
	case c.WaitTimeout <= 0 || c.Settle <= 0:
		return errors.New("wait-timeout and settle must be positive")
	case c.AsOf != AsOfAuto && c.AsOf != AsOfOn && c.AsOf != AsOfOff:
		return fmt.Errorf("as-of must be auto, on or off (got %q)", c.AsOf)
	}
	return checkIngest(c.Ingest)
}
