package redislock

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/testcerts"
	"github.com/recollect-dev/recollect/internal/testserver"
	"github.com/recollect-dev/recollect/pkg/lock"
	"github.com/recollect-dev/recollect/pkg/tlsconf"
)

// A real redis-server that speaks only TLS and requires client
// certificates: leases work with the CA and client certificate configured,
// and the connection is refused without either.
func TestTLSWithClientCertificate(t *testing.T) {
	certs := testcerts.New(t)
	url := testserver.RedisTLS(t, certs)
	full := tlsconf.Files{CA: certs.CA, Cert: certs.ClientCert, Key: certs.ClientKey}
	cfg := Config{URL: url, TLS: full}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("validate: %v", err)
	}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatalf("new client: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l := New(c)
	lease, err := l.Acquire(ctx, "tls", time.Minute)
	if err != nil {
		t.Fatalf("acquire over tls: %v", err)
	}
	if _, err := l.Acquire(ctx, "tls", time.Minute); err != lock.ErrHeld {
		t.Fatalf("second acquire = %v, want ErrHeld", err)
	}
	if err := lease.Release(ctx); err != nil {
		t.Fatalf("release: %v", err)
	}

	for name, files := range map[string]tlsconf.Files{
		"no client certificate": {CA: certs.CA},
		"system roots only":     {Cert: certs.ClientCert, Key: certs.ClientKey},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := NewClient(Config{URL: url + "?dial_timeout=2s&max_retries=-1", TLS: files})
			if err != nil {
				t.Fatalf("new client: %v", err)
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err = c.Ping(ctx).Err()
			if err == nil {
				t.Fatal("ping succeeded without a trusted server or a client certificate")
			}
			t.Logf("refused as expected: %v", err)
		})
	}
}

func TestTLSConfigErrors(t *testing.T) {
	certs := testcerts.New(t)
	tests := []struct {
		name, url string
		files     tlsconf.Files
		want      string
	}{
		{"files need rediss", "redis://127.0.0.1:6379/0", tlsconf.Files{CA: certs.CA}, "rediss://"},
		{"cert without key", "rediss://127.0.0.1:6379/0", tlsconf.Files{Cert: certs.ClientCert}, "redis-tls-cert-file and redis-tls-key-file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{URL: tt.url, TLS: tt.files}
			err := cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate = %v, want an error mentioning %q", err, tt.want)
			}
		})
	}
	if _, err := NewClient(Config{URL: "rediss://127.0.0.1:6379/0", TLS: tlsconf.Files{CA: certs.ClientKey}}); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Fatalf("a key as CA file: %v, want an error naming the file", err)
	}
}
