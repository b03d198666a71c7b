// Package chconn connects to ClickHouse over the native protocol for the
// tables Recollect keeps there (the model usage log, the consolidation
// audit log): it checks the DSN and the table name, learns what the
// server supports, creates the table if it is missing and inserts in
// batches with an explicit column list. Each table's schema, columns and
// queries stay in its own package.
package chconn

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/recollect-dev/recollect/pkg/tlsconf"
)

// DSN query parameters Recollect reads itself (the driver would send
// unknown ones to the server as settings): PEM files of the CA to trust
// and of a client certificate, with secure=true.
const (
	paramTLSCA   = "tls_ca_file"
	paramTLSCert = "tls_cert_file"
	paramTLSKey  = "tls_key_file"
)

// identifier is a table name, optionally qualified by its database; no
// quoting is needed (or allowed) for either part.
var identifier = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*\.)?[A-Za-z_][A-Za-z0-9_]*$`)

// ParseDSN accepts native-protocol DSNs only
// (clickhouse://[user:password@]host:9000[,host2:9000]/database?options):
// that is what is tested, and batches over HTTP behave differently. The
// driver already keeps any password out of its parse errors. Besides the
// driver's options (secure=true, skip_verify, tls_server_name, ...) it
// reads tls_ca_file, tls_cert_file and tls_key_file, which need secure=true.
func ParseDSN(dsn string) (*ch.Options, error) {
	dsn, files := splitTLSFiles(dsn)
	opts, err := ch.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse clickhouse dsn: %w", err)
	}
	if opts.Protocol != ch.Native {
		return nil, fmt.Errorf("clickhouse dsn: want the native protocol (clickhouse://host:9000/db), got %s", opts.Protocol)
	}
	if files.Set() {
		if opts.TLS == nil {
			return nil, errors.New("clickhouse dsn: tls_ca_file, tls_cert_file and tls_key_file need secure=true")
		}
		if (files.Cert == "") != (files.Key == "") {
			return nil, errors.New("clickhouse dsn: tls_cert_file and tls_key_file: give both or neither")
		}
		if opts.TLS, err = files.Config(opts.TLS); err != nil {
			return nil, fmt.Errorf("clickhouse dsn: %w", err)
		}
	}
	return opts, nil
}

// splitTLSFiles takes Recollect's TLS parameters out of the DSN's query. A
// DSN that does not parse is returned as is for the driver to refuse
// (without echoing its password).
func splitTLSFiles(dsn string) (string, tlsconf.Files) {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn, tlsconf.Files{}
	}
	q := u.Query()
	f := tlsconf.Files{CA: q.Get(paramTLSCA), Cert: q.Get(paramTLSCert), Key: q.Get(paramTLSKey)}
	if !f.Set() && !q.Has(paramTLSCA) && !q.Has(paramTLSCert) && !q.Has(paramTLSKey) {
		return dsn, f
	}
	q.Del(paramTLSCA)
	q.Del(paramTLSCert)
	q.Del(paramTLSKey)
	u.RawQuery = q.Encode()
	return u.String(), f
}

// ValidateTable checks that table, the value of the flag named flag, is
// empty (the caller's default) or a plain name or database.name.
func ValidateTable(flag, table string) error {
	if table != "" && !identifier.MatchString(table) {
		return fmt.Errorf("%s %q: want name or database.name of letters, digits and _", flag, table)
	}
	return nil
}

// quoteTable backquotes each part of the table name: the table is a
// validated identifier, the database comes from the DSN as is.
func quoteTable(database, table string) string {
	parts := strings.Split(table, ".")
	if len(parts) == 1 && database != "" {
		parts = []string{database, table}
	}
	esc := strings.NewReplacer("\\", "\\\\", "`", "\\`")
	for i, p := range parts {
		parts[i] = "`" + esc.Replace(p) + "`"
	}
	return strings.Join(parts, ".")
}
