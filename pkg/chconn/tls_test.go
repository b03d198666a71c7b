package chconn

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/recollect-dev/recollect/internal/testcerts"
	"github.com/recollect-dev/recollect/internal/testserver"
)

// The DSN's TLS files become the driver's tls.Config, and that config
// completes a handshake with a Go TLS listener that requires the client
// certificate (TestClickHouseTLS does the same against clickhouse-server).
func TestParseDSNTLSFiles(t *testing.T) {
	certs := testcerts.New(t)
	q := url.Values{"secure": {"true"}, "tls_ca_file": {certs.CA}, "tls_cert_file": {certs.ClientCert}, "tls_key_file": {certs.ClientKey}, "dial_timeout": {"2s"}}
	opts, err := ParseDSN("clickhouse://u:p@127.0.0.1:9440/db?" + q.Encode())
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if opts.TLS == nil || opts.TLS.RootCAs == nil || len(opts.TLS.Certificates) != 1 {
		t.Fatalf("tls config = %+v, want the CA and one client certificate", opts.TLS)
	}
	for k := range opts.Settings {
		if strings.HasPrefix(k, "tls_") {
			t.Fatalf("setting %s would be sent to the server", k)
		}
	}

	serverPair, err := tls.LoadX509KeyPair(certs.ServerCert, certs.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(certs.CA)
	if err != nil {
		t.Fatal(err)
	}
	clients := x509.NewCertPool()
	clients.AppendCertsFromPEM(caPEM)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{serverPair}, ClientCAs: clients, ClientAuth: tls.RequireAndVerifyClientCert})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.(*tls.Conn).Handshake()
			_, _ = c.Write([]byte("x"))
			_ = c.Close()
		}
	}()
	handshake := func(tc *tls.Config) error {
		tc = tc.Clone()
		tc.ServerName = "localhost"
		c, err := tls.Dial("tcp", ln.Addr().String(), tc)
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Read(make([]byte, 1)) // TLS 1.3 reports a refused client certificate on the first read
		return err
	}
	if err := handshake(opts.TLS); err != nil {
		t.Fatalf("handshake with the DSN's tls config: %v", err)
	}
	noCert, err := ParseDSN("clickhouse://127.0.0.1:9440/db?secure=true&tls_ca_file=" + url.QueryEscape(certs.CA))
	if err != nil {
		t.Fatal(err)
	}
	if err := handshake(noCert.TLS); err == nil {
		t.Fatal("handshake succeeded without the client certificate")
	}
}

func TestParseDSNTLSErrors(t *testing.T) {
	certs := testcerts.New(t)
	for _, tc := range []struct {
		name, query, want string
	}{
		{"files without secure", "tls_ca_file=" + url.QueryEscape(certs.CA), "need secure=true"},
		{"cert without key", "secure=true&tls_cert_file=" + url.QueryEscape(certs.ClientCert), "give both or neither"},
		{"missing ca file", "secure=true&tls_ca_file=/nonexistent/ca.pem", "/nonexistent/ca.pem"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDSN("clickhouse://u:hunter2@127.0.0.1:9440/db?" + tc.query)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ParseDSN = %v, want an error mentioning %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Fatalf("error %q holds the password", err)
			}
		})
	}
}

// A real clickhouse-server serving the native protocol over TLS and
// requiring client certificates: a DSN with secure=true and the three
// files connects and queries; one without the client certificate is
// refused.
func TestClickHouseTLS(t *testing.T) {
	certs := testcerts.New(t)
	srv := testserver.StartClickHouseTLS(t, certs)
	q := url.Values{"secure": {"true"}, "tls_ca_file": {certs.CA}, "tls_cert_file": {certs.ClientCert}, "tls_key_file": {certs.ClientKey}, "dial_timeout": {"5s"}}
	dsn := "clickhouse://" + srv.SecureAddr() + "/default?" + q.Encode()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tbl, err := Open(ctx, dsn, "tls_probe", func(d Dialect) Schema {
		return Schema{Columns: "x UInt8", Engine: "Log"}
	})
	if err != nil {
		t.Fatalf("open over tls: %v", err)
	}
	if err := tbl.Insert(ctx, "x", 1, func(int) []any { return []any{uint8(7)} }); err != nil {
		t.Fatalf("insert over tls: %v", err)
	}
	_ = tbl.Close()

	q.Del("tls_cert_file")
	q.Del("tls_key_file")
	opts, err := ParseDSN("clickhouse://" + srv.SecureAddr() + "/default?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	conn, err := ch.Open(opts)
	if err == nil {
		err = conn.Ping(ctx)
		_ = conn.Close()
	}
	if err == nil {
		t.Fatal("connected without a client certificate")
	}
	t.Logf("refused as expected: %v", err)
}
