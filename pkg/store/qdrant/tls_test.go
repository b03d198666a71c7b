package qdrant

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/testcerts"
	"github.com/recollect-dev/recollect/pkg/tlsconf"
)

// With --qdrant-tls and the CA and client certificate files, Open's first
// call completes a TLS handshake in which it trusts the test CA and
// presents the client certificate. There is no Qdrant server here: the
// peer is a Go TLS listener requiring client certificates, which records
// who connected and then closes, so Open itself fails after the handshake.
func TestOpenPresentsClientCertificate(t *testing.T) {
	certs := testcerts.New(t)
	pair, err := tls.LoadX509KeyPair(certs.ServerCert, certs.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(certs.CA)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	peers := make(chan string, 16)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{pair}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert,
		NextProtos: []string{"h2"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			tc := c.(*tls.Conn)
			if tc.Handshake() == nil {
				if st := tc.ConnectionState(); len(st.PeerCertificates) > 0 {
					peers <- st.PeerCertificates[0].Subject.CommonName
				}
			}
			_ = c.Close()
		}
	}()
	cfg := DefaultConfig()
	cfg.UseTLS = true
	cfg.TLS = tlsconf.Files{CA: certs.CA, Cert: certs.ClientCert, Key: certs.ClientKey}
	cfg.Timeout = 2 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// The server certificate names localhost and 127.0.0.1.
	if s, err := Open(ctx, cfg, ln.Addr().String(), "m", 4, nil); err == nil {
		_ = s.Close()
		t.Fatal("Open succeeded against a TLS listener that is not Qdrant")
	}
	select {
	case cn := <-peers:
		if cn != "recollect-test-client" {
			t.Fatalf("client certificate CN = %q", cn)
		}
	default:
		t.Fatal("no TLS handshake with a client certificate reached the listener")
	}

	cfg.TLS = tlsconf.Files{CA: certs.ClientKey}
	if _, err := Open(ctx, cfg, ln.Addr().String(), "m", 4, nil); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Fatalf("Open with a key as CA file: %v, want an error naming the file", err)
	}
}
