package tlsconf

import (
	"crypto/tls"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/internal/testcerts"
)

func TestConfig(t *testing.T) {
	certs := testcerts.New(t)
	base := &tls.Config{ServerName: "db.example", MinVersion: tls.VersionTLS13}
	c, err := Files{CA: certs.CA, Cert: certs.ClientCert, Key: certs.ClientKey}.Config(base)
	if err != nil {
		t.Fatal(err)
	}
	if c.RootCAs == nil || len(c.Certificates) != 1 || c.ServerName != "db.example" || c.MinVersion != tls.VersionTLS13 {
		t.Fatalf("config = %+v: want the CA, one certificate and base's settings", c)
	}
	if base.RootCAs != nil || len(base.Certificates) != 0 {
		t.Fatal("base was modified")
	}
	if c, err := (Files{}).Config(nil); err != nil || c.MinVersion != tls.VersionTLS12 || c.RootCAs != nil {
		t.Fatalf("no files: %+v, %v; want TLS 1.2 and the system roots", c, err)
	}
	for _, tc := range []struct {
		name  string
		files Files
		want  string
	}{
		{"missing ca", Files{CA: certs.Dir + "/nope.pem"}, "nope.pem"},
		{"key as ca", Files{CA: certs.ClientKey}, "no PEM certificate"},
		{"cert without key", Files{Cert: certs.ClientCert}, "go together"},
		{"mismatched pair", Files{Cert: certs.ClientCert, Key: certs.ServerKey}, certs.ClientCert},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.files.Config(nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Config = %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}

func TestValidateAndFlags(t *testing.T) {
	var f Files
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	f.RegisterFlags(fs, "nats", "NATS")
	if err := fs.Parse([]string{"--nats-tls-ca-file", "/ca.pem", "--nats-tls-cert-file", "/c.pem"}); err != nil {
		t.Fatal(err)
	}
	if f.CA != "/ca.pem" || f.Cert != "/c.pem" || !f.Set() {
		t.Fatalf("flags not bound: %+v", f)
	}
	if err := f.Validate("nats"); err == nil || !strings.Contains(err.Error(), "nats-tls-key-file") {
		t.Fatalf("Validate = %v, want the missing key named", err)
	}
	f.Key = "/k.pem"
	if err := f.Validate("nats"); err != nil {
		t.Fatal(err)
	}
	if (Files{}).Set() {
		t.Fatal("empty Files reports Set")
	}
}
