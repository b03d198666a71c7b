package auth

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// FileKey is one entry of the keys file. Give the key itself or, better,
// only its SHA-256 in hex (`printf %s "$KEY" | sha256sum`).
type FileKey struct {
	Key       string   `json:"key,omitempty" yaml:"key,omitempty"`
	SHA256    string   `json:"sha256,omitempty" yaml:"sha256,omitempty"`
	Tenant    string   `json:"tenant,omitempty" yaml:"tenant,omitempty"`
	Scopes    []string `json:"scopes,omitempty" yaml:"scopes,omitempty"`
	Name      string   `json:"name,omitempty" yaml:"name,omitempty"`
	RateLimit *float64 `json:"rate_limit,omitempty" yaml:"rate_limit,omitempty"`
	RateBurst int      `json:"rate_burst,omitempty" yaml:"rate_burst,omitempty"`
}

// LoadFile reads a keys file: a YAML or JSON list of FileKey.
func LoadFile(path string) ([]Key, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read api keys file: %w", err)
	}
	entries, err := decodeFile(raw)
	if err != nil {
		return nil, fmt.Errorf("parse api keys file %s: %w", path, err)
	}
	out := make([]Key, 0, len(entries))
	for i, e := range entries {
		k, err := e.key()
		if err != nil {
			return nil, fmt.Errorf("api keys file %s: entry %d: %w", path, i, err)
		}
		if k.Name == "" {
			k.Name = fmt.Sprintf("api-keys-file[%d]", i)
		}
		out = append(out, k)
	}
	return out, nil
}

// decodeFile accepts JSON (a leading '[') or YAML, rejecting unknown fields
// so that a misspelt "scopes" cannot silently make a key weaker or stronger.
func decodeFile(raw []byte) ([]FileKey, error) {
	var entries []FileKey
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&entries); err != nil {
			return nil, err
		}
		return entries, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&entries); err != nil && !errors.Is(err, io.EOF) {
		return nil, errors.New(hideQuoted(err.Error()))
	}
	return entries, nil
}

// hideQuoted drops the `quoted` values yaml puts in its messages: in a keys
// file a value can be a key.
func hideQuoted(msg string) string {
	var b strings.Builder
	for {
		start := strings.IndexByte(msg, '`')
		if start < 0 {
			break
		}
		end := strings.IndexByte(msg[start+1:], '`')
		if end < 0 {
			break
		}
		b.WriteString(msg[:start])
		b.WriteString("a value")
		msg = msg[start+1+end+1:]
	}
	b.WriteString(msg)
	return b.String()
}

func (e FileKey) key() (Key, error) {
	k := Key{Name: e.Name, Tenant: e.Tenant, RateLimit: e.RateLimit, RateBurst: e.RateBurst}
	switch {
	case e.Key != "" && e.SHA256 != "":
		return Key{}, errors.New("give key or sha256, not both")
	case e.Key != "":
		if err := checkSecret(e.Key); err != nil {
			return Key{}, fmt.Errorf("key %w", err)
		}
		k.Hash = HashKey(e.Key)
	case e.SHA256 != "":
		h, err := hex.DecodeString(strings.TrimSpace(e.SHA256))
		if err != nil || len(h) != len(k.Hash) {
			return Key{}, fmt.Errorf("sha256 must be %d hex characters", 2*len(k.Hash))
		}
		copy(k.Hash[:], h)
	default:
		return Key{}, errors.New("key or sha256 is required")
	}
	scopes := e.Scopes
	if len(scopes) == 0 {
		scopes = []string{ScopeTenant}
	}
	for _, s := range scopes {
		if s != ScopeTenant && s != ScopeAdmin {
			return Key{}, fmt.Errorf("unknown scope %q (known: %s, %s)", s, ScopeTenant, ScopeAdmin)
		}
	}
	k.Admin = slices.Contains(scopes, ScopeAdmin)
	// An admin key may lack a tenant: requests naming none act for "default".
	if err := checkTenant(k.Tenant, !k.Admin); err != nil {
		return Key{}, err
	}
	if r := e.RateLimit; r != nil && (*r < 0 || math.IsNaN(*r) || math.IsInf(*r, 0)) {
		return Key{}, fmt.Errorf("rate_limit must be a finite number >= 0 (got %g)", *r)
	}
	if e.RateBurst < 0 {
		return Key{}, fmt.Errorf("rate_burst must not be negative (got %d)", e.RateBurst)
	}
	return k, nil
}
