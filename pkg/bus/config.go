package bus

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/tlsconf"
)

// Defaults; a zero field of Config takes its default in Open.
const (
	DefaultMaxAge          = 7 * 24 * time.Hour
	DefaultMaxBytes        = int64(1 << 30)
	DefaultMaxMsgSize      = int32(1 << 20)
	DefaultDuplicateWindow = 2 * time.Hour
	DefaultConnectTimeout  = 30 * time.Second
	DefaultPublishTimeout  = 10 * time.Second
	// DefaultDiskCheckInterval is how often the embedded server's free
	// space is checked to notice a full disk and its end.
	DefaultDiskCheckInterval = time.Second
	maxMsgSizeLimit          = int32(32 << 20)
)

// Config says where the bus is and how its streams are bounded.
type Config struct {
	// URL of the NATS server(s), comma-separated; empty runs an embedded
	// server whose JetStream store lives in DataDir/nats.
	URL string
	// DataDir is set by the application, not by a flag.
	DataDir string
	// EmbeddedListen exposes the embedded server on host:port ("" keeps it
	// in-process only; port 0 picks a free one).
	EmbeddedListen string
	// EmbeddedSync is how often the embedded server fsyncs its JetStream
	// store: a duration, or "always" to fsync every write before it is
	// acknowledged. "" is nats-server's default (2m): an acknowledged event
	// survives kill -9 of the process but not a power failure within that
	// interval.
	EmbeddedSync string
	// CredsFile is a NATS credentials file for URL.
	CredsFile string
	// TLS trusts a custom CA and presents a client certificate to URL's
	// servers; a tls:// URL alone uses the system roots.
	TLS tlsconf.Files
	// ClientName names the connection in the server's monitoring.
	ClientName string

	Replicas        int           // stream replicas (1 unless URL is a cluster)
	MaxAge          time.Duration // per stream
	MaxBytes        int64         // per stream
	MaxMsgSize      int32         // per message, headers included
	DuplicateWindow time.Duration // Nats-Msg-Id deduplication window

	ConnectTimeout time.Duration // how long Open waits for the server and streams
	PublishTimeout time.Duration // ack wait of a publish whose ctx has no deadline

	// DiskCheckInterval is how often the embedded server's store directory
	// is checked for free space (statfs): after a full disk, JetStream is
	// restarted in-process once space returns. Set by the application.
	DiskCheckInterval time.Duration

	// freeBytes replaces the statfs of the store directory in tests.
	freeBytes func(dir string) (uint64, bool)
}

// RegisterFlags binds the settings to fs; prefix is prepended to each name.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.StringVar(&c.URL, prefix+"nats-url", "", "NATS server URL(s), comma-separated; empty runs an embedded server in the data dir")
	fs.StringVar(&c.EmbeddedListen, prefix+"nats-embedded-listen", "", "host:port where the embedded NATS server accepts clients (empty: in-process only)")
	fs.StringVar(&c.EmbeddedSync, prefix+"nats-embedded-sync", "", `how often the embedded NATS server fsyncs its store: a duration, or "always" (every write, before its ack); empty: nats-server's default, 2m`)
	fs.StringVar(&c.CredsFile, prefix+"nats-creds", "", "NATS credentials file")
	c.TLS.RegisterFlags(fs, prefix+"nats", "the NATS server (nats-url; tls:// URLs use the system roots without it)")
	fs.IntVar(&c.Replicas, prefix+"nats-replicas", 1, "replicas of each JetStream stream")
	fs.DurationVar(&c.MaxAge, prefix+"nats-max-age", DefaultMaxAge, "maximum age of a message in a stream")
	fs.Int64Var(&c.MaxBytes, prefix+"nats-max-bytes", DefaultMaxBytes, "maximum bytes per stream; conversation and fact streams refuse new messages when full")
	fs.Int32Var(&c.MaxMsgSize, prefix+"nats-max-msg-size", DefaultMaxMsgSize, "maximum size of one message, headers included")
	fs.DurationVar(&c.DuplicateWindow, prefix+"nats-duplicate-window", DefaultDuplicateWindow, "window in which a repeated Nats-Msg-Id is stored once")
	fs.DurationVar(&c.ConnectTimeout, prefix+"nats-connect-timeout", DefaultConnectTimeout, "how long to wait at start for NATS and its streams")
	fs.DurationVar(&c.PublishTimeout, prefix+"nats-publish-timeout", DefaultPublishTimeout, "how long a publish waits for JetStream's acknowledgement")
}

// Validate checks the settings; zero values stand for their defaults.
func (c *Config) Validate() error {
	d := c.withDefaults()
	var errs []error
	if d.Replicas < 1 || d.Replicas > 5 {
		errs = append(errs, fmt.Errorf("nats-replicas %d: must be 1 to 5", d.Replicas))
	}
	if d.URL == "" && d.Replicas > 1 {
		errs = append(errs, fmt.Errorf("nats-replicas %d: the embedded server has one replica; set nats-url to a cluster", d.Replicas))
	}
	if d.MaxAge < 0 || d.MaxBytes < 0 || d.MaxMsgSize < 0 || d.DuplicateWindow < 0 || d.ConnectTimeout < 0 || d.PublishTimeout < 0 || d.DiskCheckInterval < 0 {
		errs = append(errs, errors.New("nats limits and timeouts must not be negative"))
	}
	if d.MaxMsgSize > maxMsgSizeLimit {
		errs = append(errs, fmt.Errorf("nats-max-msg-size %d: at most %d", d.MaxMsgSize, maxMsgSizeLimit))
	}
	if int64(d.MaxMsgSize) > d.MaxBytes {
		errs = append(errs, fmt.Errorf("nats-max-msg-size %d exceeds nats-max-bytes %d", d.MaxMsgSize, d.MaxBytes))
	}
	if d.DuplicateWindow > d.MaxAge {
		errs = append(errs, fmt.Errorf("nats-duplicate-window %s exceeds nats-max-age %s", d.DuplicateWindow, d.MaxAge))
	}
	if _, _, err := d.embeddedSync(); err != nil {
		errs = append(errs, err)
	}
	if err := d.TLS.Validate("nats"); err != nil {
		errs = append(errs, err)
	}
	if d.URL == "" && d.TLS.Set() {
		errs = append(errs, errors.New("nats-tls-* files apply only with nats-url"))
	}
	if d.EmbeddedListen != "" {
		if _, _, err := splitListen(d.EmbeddedListen); err != nil {
			errs = append(errs, fmt.Errorf("nats-embedded-listen %q: %w", d.EmbeddedListen, err))
		}
		if d.URL != "" {
			errs = append(errs, errors.New("nats-embedded-listen applies only without nats-url"))
		}
	}
	return errors.Join(errs...)
}

func (c Config) withDefaults() Config {
	if c.Replicas == 0 {
		c.Replicas = 1
	}
	if c.MaxAge == 0 {
		c.MaxAge = DefaultMaxAge
	}
	if c.MaxBytes == 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.MaxMsgSize == 0 {
		c.MaxMsgSize = DefaultMaxMsgSize
	}
	if c.DuplicateWindow == 0 {
		c.DuplicateWindow = DefaultDuplicateWindow
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	if c.PublishTimeout == 0 {
		c.PublishTimeout = DefaultPublishTimeout
	}
	if c.DiskCheckInterval == 0 {
		c.DiskCheckInterval = DefaultDiskCheckInterval
	}
	if c.ClientName == "" {
		c.ClientName = "recollect"
	}
	return c
}

// embeddedSync parses EmbeddedSync into nats-server's interval and
// always-sync setting (0, false: the server's default).
func (c Config) embeddedSync() (time.Duration, bool, error) {
	switch {
	case c.EmbeddedSync == "":
		return 0, false, nil
	case c.URL != "":
		return 0, false, errors.New("nats-embedded-sync applies only without nats-url")
	case c.EmbeddedSync == "always":
		return 0, true, nil
	}
	d, err := time.ParseDuration(c.EmbeddedSync)
	if err != nil || d <= 0 {
		return 0, false, fmt.Errorf(`nats-embedded-sync %q: must be "always" or a positive duration`, c.EmbeddedSync)
	}
	return d, false, nil
}

// splitListen parses host:port; port 0 becomes the server's "any free port".
func splitListen(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("bad port %q", p)
	}
	if port == 0 {
		port = -1 // nats-server: RANDOM_PORT; 0 would mean 4222
	}
	return host, port, nil
}
