package bus

import (
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

func TestStreamsDeclaredWithLimits(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{
		DataDir:         dir,
		MaxAge:          time.Hour,
		MaxBytes:        1 << 20,
		MaxMsgSize:      64 << 10,
		DuplicateWindow: 30 * time.Minute,
	}
	b := openWith(t, cfg)
	tests := []struct {
		stream     string
		subject    string
		discard    jetstream.DiscardPolicy
		maxMsgSize int32
	}{
		{StreamConv, "recollect.conv.>", jetstream.DiscardNew, 64 << 10},
		{StreamFact, "recollect.fact.>", jetstream.DiscardNew, 64 << 10},
		{StreamEvent, "recollect.event.>", jetstream.DiscardOld, 64 << 10},
		{StreamDLQ, "recollect.dlq.>", jetstream.DiscardOld, 64<<10 + dlqHeadroom},
	}
	for _, tt := range tests {
		t.Run(tt.stream, func(t *testing.T) {
			s, err := b.JetStream().Stream(ctxT(t), tt.stream)
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			got := s.CachedInfo().Config
			if !slices.Equal(got.Subjects, []string{tt.subject}) {
				t.Errorf("subjects = %v, want [%s]", got.Subjects, tt.subject)
			}
			if got.Storage != jetstream.FileStorage {
				t.Errorf("storage = %v, want file", got.Storage)
			}
			if got.MaxAge != time.Hour || got.MaxBytes != 1<<20 || got.MaxMsgSize != tt.maxMsgSize {
				t.Errorf("limits age=%s bytes=%d msgsize=%d, want 1h %d %d", got.MaxAge, got.MaxBytes, got.MaxMsgSize, 1<<20, tt.maxMsgSize)
			}
			if got.Discard != tt.discard {
				t.Errorf("discard = %v, want %v", got.Discard, tt.discard)
			}
			if got.Duplicates != 30*time.Minute {
				t.Errorf("duplicates = %s, want 30m", got.Duplicates)
			}
			if got.Replicas != 1 {
				t.Errorf("replicas = %d, want 1", got.Replicas)
			}
		})
	}

	t.Run("reopen updates limits", func(t *testing.T) {
		if err := b.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		cfg.MaxAge = 2 * time.Hour
		b2 := openWith(t, cfg)
		s, err := b2.JetStream().Stream(ctxT(t), StreamConv)
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		if got := s.CachedInfo().Config.MaxAge; got != 2*time.Hour {
			t.Errorf("max age after reopen = %s, want 2h", got)
		}
	})
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr bool
	}{
		{"zero is defaults", Config{}, false},
		{"cluster replicas", Config{URL: "nats://a:4222", Replicas: 3}, false},
		{"replicas on embedded", Config{Replicas: 3}, true},
		{"too many replicas", Config{URL: "nats://a:4222", Replicas: 7}, true},
		{"message larger than stream", Config{MaxBytes: 1000, MaxMsgSize: 2000}, true},
		{"message over limit", Config{MaxMsgSize: 64 << 20}, true},
		{"duplicate window over max age", Config{MaxAge: time.Hour, DuplicateWindow: 2 * time.Hour}, true},
		{"negative", Config{MaxAge: -time.Second}, true},
		{"listen ok", Config{EmbeddedListen: "127.0.0.1:0"}, false},
		{"listen bad", Config{EmbeddedListen: "localhost"}, true},
		{"listen with url", Config{URL: "nats://a:4222", EmbeddedListen: "127.0.0.1:4222"}, true},
		{"sync always", Config{EmbeddedSync: "always"}, false},
		{"sync interval", Config{EmbeddedSync: "1s"}, false},
		{"sync garbage", Config{EmbeddedSync: "sometimes"}, true},
		{"sync zero", Config{EmbeddedSync: "0s"}, true},
		{"sync with url", Config{URL: "nats://a:4222", EmbeddedSync: "always"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if (err != nil) != tt.wantErr {
				t.Errorf("Validate() = %v, wantErr %v", err, tt.wantErr)
			}
		})
	}
}

func TestSubjects(t *testing.T) {
	tests := []struct{ got, want string }{
		{ConvSubject("acme"), "recollect.conv.acme"},
		{FactSubject("tool-usage"), "recollect.fact.tool-usage"},
		{StoredSubject("acme"), "recollect.event.stored.acme"},
		{ConsolidatedSubject("acme"), "recollect.event.consolidated.acme"},
		{DLQSubject("extractor"), "recollect.dlq.extractor"},
		{EventMsgID("acme", "e1"), "acme:e1"},
		{LastToken("recollect.event.stored.acme"), "acme"},
		{LastToken("plain"), "plain"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func TestDefaultBackoff(t *testing.T) {
	tests := []struct {
		n      uint64
		lo, hi time.Duration
	}{
		{1, 800 * time.Millisecond, time.Second},
		{2, 1600 * time.Millisecond, 2 * time.Second},
		{4, 6400 * time.Millisecond, 8 * time.Second},
		{8, 96 * time.Second, 2 * time.Minute},
		{1000, 96 * time.Second, 2 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.lo.String(), func(t *testing.T) {
			for range 50 {
				if d := DefaultBackoff(tt.n); d < tt.lo || d > tt.hi {
					t.Fatalf("DefaultBackoff(%d) = %s, want within [%s, %s]", tt.n, d, tt.lo, tt.hi)
				}
			}
		})
	}
}

func TestEmbeddedSyncSetting(t *testing.T) {
	b := openWith(t, Config{DataDir: t.TempDir(), EmbeddedSync: "always"})
	if !b.srv.JetStreamConfig().SyncAlways {
		t.Error(`nats-embedded-sync "always": the embedded server does not sync every write`)
	}
	if err := b.Publish(ctxT(t), msgs("acme", 1, "sync")[0]); err != nil {
		t.Fatalf("publish with sync always: %v", err)
	}
	b2 := openWith(t, Config{DataDir: t.TempDir(), EmbeddedSync: "250ms"})
	if got := b2.srv.JetStreamConfig().SyncInterval; got != 250*time.Millisecond {
		t.Errorf("sync interval %s, want 250ms", got)
	}
}
