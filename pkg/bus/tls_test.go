package bus

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/testcerts"
	"github.com/recollect-dev/recollect/internal/testserver"
	"github.com/recollect-dev/recollect/pkg/tlsconf"
)

// A real nats-server that verifies client certificates: the bus opens,
// publishes and consumes with the CA and client certificate configured,
// and cannot connect without either.
func TestTLSWithClientCertificate(t *testing.T) {
	certs := testcerts.New(t)
	url := testserver.NATSServerTLS(t, certs)
	cfg := Config{URL: url, TLS: tlsconf.Files{CA: certs.CA, Cert: certs.ClientCert, Key: certs.ClientKey}}
	b := openWith(t, cfg)
	if err := b.Publish(ctxT(t), msgs("acme", 1, "tls")[0]); err != nil {
		t.Fatalf("publish over tls: %v", err)
	}
	got := newCollector()
	c, err := b.Consume(ctxT(t), fastConsumer("tls"), func(_ context.Context, d *Delivery) error { got.add(d); return nil }, nil)
	if err != nil {
		t.Fatalf("consume: %v", err)
	}
	eventually(t, "delivered over tls", func() bool { return got.count() == 1 })
	stopConsumer(t, c)

	for name, tt := range map[string]struct {
		files tlsconf.Files
		want  string
	}{
		"no client certificate": {tlsconf.Files{CA: certs.CA}, "tls"},
		"system roots only":     {tlsconf.Files{Cert: certs.ClientCert, Key: certs.ClientKey}, "certificate signed by unknown authority"},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := Config{URL: url, TLS: tt.files, ConnectTimeout: time.Second}
			b, err := Open(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err == nil {
				_ = b.Close()
				t.Fatal("opened without a trusted server or a client certificate")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Open error %q does not give the cause %q", err, tt.want)
			}
		})
	}
}

func TestTLSConfigErrors(t *testing.T) {
	certs := testcerts.New(t)
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"embedded", Config{TLS: tlsconf.Files{CA: certs.CA}}, "only with nats-url"},
		{"key without cert", Config{URL: "tls://127.0.0.1:4222", TLS: tlsconf.Files{Key: certs.ClientKey}}, "nats-tls-cert-file and nats-tls-key-file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate = %v, want an error mentioning %q", err, tt.want)
			}
		})
	}
	_, err := Open(context.Background(), Config{URL: "tls://127.0.0.1:1", TLS: tlsconf.Files{CA: certs.ClientKey}}, nil)
	if err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Fatalf("Open with a key as CA file: %v, want an error naming the file", err)
	}
}
