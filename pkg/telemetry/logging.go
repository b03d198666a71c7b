package telemetry

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"go.opentelemetry.io/otel/trace"
)

// NewLogger returns a JSON slog logger at level ("debug", "info", "warn",
// "error") that adds trace_id and span_id from the context of each record.
func NewLogger(w io.Writer, level string) *slog.Logger {
	return slog.New(traceHandler{slog.NewJSONHandler(w, &slog.HandlerOptions{Level: parseLevel(level)})})
}

// Log formats: auto is text on a terminal and JSON otherwise.
const (
	LogFormatAuto = "auto"
	LogFormatText = "text"
	LogFormatJSON = "json"
)

// CheckLogFormat names a bad --log-format.
func CheckLogFormat(format string) error {
	switch format {
	case LogFormatAuto, LogFormatText, LogFormatJSON:
		return nil
	}
	return fmt.Errorf("log-format must be auto, text or json (got %q)", format)
}

// LogFormatFor resolves format for a writer that is (or not) a terminal:
// auto is text on a terminal, JSON otherwise.
func LogFormatFor(format string, terminal bool) string {
	if format == LogFormatAuto || format == "" {
		if terminal {
			return LogFormatText
		}
		return LogFormatJSON
	}
	return format
}

// NewFormatLogger is NewLogger in format (auto, text or json); terminal says
// whether w is a terminal, for auto.
func NewFormatLogger(w io.Writer, level, format string, terminal bool) (*slog.Logger, error) {
	if err := CheckLogFormat(format); err != nil && format != "" {
		return nil, err
	}
	opts := &slog.HandlerOptions{Level: parseLevel(level)}
	if LogFormatFor(format, terminal) == LogFormatText {
		return slog.New(traceHandler{slog.NewTextHandler(w, opts)}), nil
	}
	return slog.New(traceHandler{slog.NewJSONHandler(w, opts)}), nil
}

func parseLevel(level string) slog.Level {
	var lv slog.Level
	switch strings.ToLower(level) {
	case "debug":
		lv = slog.LevelDebug
	case "warn", "warning":
		lv = slog.LevelWarn
	case "error":
		lv = slog.LevelError
	default:
		lv = slog.LevelInfo
	}
	return lv
}

type traceHandler struct{ slog.Handler }

func (h traceHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h traceHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return traceHandler{h.Handler.WithAttrs(as)}
}

func (h traceHandler) WithGroup(name string) slog.Handler {
	return traceHandler{h.Handler.WithGroup(name)}
}
