// Package tlsconf turns the three TLS flags every backend connection has
// (a CA bundle to trust, a client certificate and its key) into a
// tls.Config. NATS, Redis, ClickHouse and Qdrant each take their own set.
package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"
)

// Files names PEM files; empty fields are unused.
type Files struct {
	CA   string // CA certificates that sign the server's certificate (default: the system roots)
	Cert string // client certificate, for servers that require one
	Key  string // its private key
}

// Set reports whether any file is named.
func (f Files) Set() bool { return f.CA != "" || f.Cert != "" || f.Key != "" }

// RegisterFlags adds --<name>-tls-ca-file, --<name>-tls-cert-file and
// --<name>-tls-key-file; what names the server in the help text.
func (f *Files) RegisterFlags(fs *pflag.FlagSet, name, what string) {
	fs.StringVar(&f.CA, name+"-tls-ca-file", f.CA, "PEM file of the CA certificates that sign "+what+"'s certificate (default: the system roots)")
	fs.StringVar(&f.Cert, name+"-tls-cert-file", f.Cert, "PEM client certificate presented to "+what+" (with --"+name+"-tls-key-file)")
	fs.StringVar(&f.Key, name+"-tls-key-file", f.Key, "PEM private key of --"+name+"-tls-cert-file")
}

// Validate checks that certificate and key come together; name prefixes
// the flag names in the error.
func (f Files) Validate(name string) error {
	if (f.Cert == "") != (f.Key == "") {
		return fmt.Errorf("%s-tls-cert-file and %s-tls-key-file: give both or neither", name, name)
	}
	return nil
}

// Config returns base (or a new config requiring TLS 1.2) with the CA
// and client certificate loaded; base is not modified. Errors name the
// file that could not be used, never its content.
func (f Files) Config(base *tls.Config) (*tls.Config, error) {
	var c *tls.Config
	if base != nil {
		c = base.Clone()
	} else {
		c = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if f.CA != "" {
		pem, err := os.ReadFile(f.CA)
		if err != nil {
			return nil, fmt.Errorf("tls ca file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls ca file %s: no PEM certificate in it", f.CA)
		}
		c.RootCAs = pool
	}
	if f.Cert != "" || f.Key != "" {
		if f.Cert == "" || f.Key == "" {
			return nil, errors.New("tls client certificate: cert file and key file go together")
		}
		pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
		if err != nil {
			// The error text of LoadX509KeyPair names no key material.
			return nil, fmt.Errorf("tls client certificate %s / key %s: %w", f.Cert, f.Key, err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}
