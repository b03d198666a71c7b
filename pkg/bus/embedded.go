package bus

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

const (
	// dlqHeadroom leaves room for the dead-letter headers on top of a
	// maximum-size message.
	dlqHeadroom       = 64 << 10
	embeddedReadyWait = 30 * time.Second
	serverMaxPayload  = 64 << 20 // nats-server's hard limit
)

// startEmbedded runs a JetStream server with its file store in
// cfg.DataDir/nats, reachable in-process and, with EmbeddedListen, over TCP.
// It returns the options the server runs with (for a reload) too; onNoSpace
// is called when the server logs a write that failed for lack of space.
func startEmbedded(cfg Config, log *slog.Logger, onNoSpace func()) (*server.Server, *server.Options, error) {
	if cfg.DataDir == "" {
		return nil, nil, errors.New("start embedded nats: no data dir (set one, or nats-url)")
	}
	payload := max(int32(1<<20), cfg.MaxMsgSize+dlqHeadroom)
	opts := &server.Options{
		ServerName: "recollect-embedded",
		JetStream:  true,
		StoreDir:   filepath.Join(cfg.DataDir, "nats"),
		// An explicit budget: the default (a share of the disk's free space)
		// can be smaller than the streams' MaxBytes on small disks, which
		// makes stream creation fail.
		JetStreamMaxStore: 4*cfg.MaxBytes + int64(payload),
		MaxPayload:        min(payload, serverMaxPayload),
		NoSigs:            true,
		DontListen:        cfg.EmbeddedListen == "",
	}
	interval, always, err := cfg.embeddedSync()
	if err != nil {
		return nil, nil, fmt.Errorf("start embedded nats: %w", err)
	}
	opts.SyncInterval, opts.SyncAlways = interval, always
	if cfg.EmbeddedListen != "" {
		host, port, err := splitListen(cfg.EmbeddedListen)
		if err != nil {
			return nil, nil, fmt.Errorf("start embedded nats: listen %q: %w", cfg.EmbeddedListen, err)
		}
		opts.Host, opts.Port = host, port
	}
	s, err := server.NewServer(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("start embedded nats in %s: %w", opts.StoreDir, err)
	}
	s.SetLoggerV2(serverLogger{log: log, onNoSpace: onNoSpace}, false, false, false)
	s.Start()
	if !s.ReadyForConnections(embeddedReadyWait) {
		s.Shutdown()
		return nil, nil, fmt.Errorf("start embedded nats in %s: not ready within %s", opts.StoreDir, embeddedReadyWait)
	}
	if !s.JetStreamEnabled() {
		s.Shutdown()
		return nil, nil, fmt.Errorf("start embedded nats in %s: jetstream did not start", opts.StoreDir)
	}
	return s, opts, nil
}

// serverLogger routes nats-server's log lines to slog; its notices (banners,
// startup details) go to debug so a laptop run stays quiet. A warning or
// error about a write that found no space calls onNoSpace: the file store
// keeps such an error until JetStream is restarted.
type serverLogger struct {
	log       *slog.Logger
	onNoSpace func()
}

// noSpace spots ENOSPC in a server log line, as nats-server itself does
// (isOutOfSpaceErr matches the same words).
func (l serverLogger) noSpace(line string) {
	if l.onNoSpace != nil && strings.Contains(line, "no space left") {
		l.onNoSpace()
	}
}

func (l serverLogger) Noticef(format string, v ...any) {
	l.log.Debug("embedded nats", "detail", fmt.Sprintf(format, v...))
}

func (l serverLogger) Warnf(format string, v ...any) {
	line := fmt.Sprintf(format, v...)
	l.noSpace(line)
	l.log.Warn("embedded nats", "detail", line)
}

func (l serverLogger) Fatalf(format string, v ...any) {
	l.log.Error("embedded nats fatal", "detail", fmt.Sprintf(format, v...))
}

func (l serverLogger) Errorf(format string, v ...any) {
	line := fmt.Sprintf(format, v...)
	l.noSpace(line)
	l.log.Error("embedded nats", "detail", line)
}

func (l serverLogger) Debugf(format string, v ...any) {
	l.log.Debug("embedded nats", "detail", fmt.Sprintf(format, v...))
}

func (l serverLogger) Tracef(string, ...any) {}
