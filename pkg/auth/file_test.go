package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func hexHash(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:])
}

func TestLoadFile(t *testing.T) {
	yamlFile := `
- key: ` + keyA + `
  tenant: acme
  name: acme-agent
  rate_limit: 5
  rate_burst: 7
- sha256: ` + strings.ToUpper(hexHash(keyB)) + `
  tenant: globex
- sha256: ` + hexHash(keyAdmin) + `
  scopes: [admin]
  name: ops
  rate_limit: 0
`
	jsonFile := `[{"key": "` + keyA + `", "tenant": "acme", "name": "acme-agent", "rate_limit": 5, "rate_burst": 7},
	 {"sha256": "` + hexHash(keyB) + `", "tenant": "globex"},
	 {"sha256": "` + hexHash(keyAdmin) + `", "scopes": ["admin"], "name": "ops", "rate_limit": 0}]`
	for _, tc := range []struct{ name, content string }{{"keys.yaml", yamlFile}, {"keys.json", jsonFile}} {
		t.Run(tc.name, func(t *testing.T) {
			keys, err := LoadFile(writeFile(t, tc.name, tc.content))
			if err != nil {
				t.Fatal(err)
			}
			if len(keys) != 3 {
				t.Fatalf("loaded %d keys, want 3", len(keys))
			}
			a, b, admin := keys[0], keys[1], keys[2]
			if a.Name != "acme-agent" || a.Tenant != "acme" || a.Admin || a.Hash != HashKey(keyA) || a.RateLimit == nil || *a.RateLimit != 5 || a.RateBurst != 7 {
				t.Fatalf("first key = %+v", a)
			}
			if b.Name != "api-keys-file[1]" || b.Tenant != "globex" || b.Hash != HashKey(keyB) || b.RateLimit != nil {
				t.Fatalf("second key = %+v", b)
			}
			if !admin.Admin || admin.Tenant != "" || admin.Hash != HashKey(keyAdmin) || admin.RateLimit == nil || *admin.RateLimit != 0 {
				t.Fatalf("admin key = %+v", admin)
			}
		})
	}
}

func TestLoadFileRejects(t *testing.T) {
	tests := []struct {
		name, content, wantErr string
	}{
		{"unknown field", "- key: " + keyA + "\n  tenant: acme\n  scope: [admin]\n", "field scope not found"},
		{"unknown json field", `[{"key": "` + keyA + `", "tenant": "acme", "admin": true}]`, `unknown field "admin"`},
		{"key and hash", "- key: " + keyA + "\n  sha256: " + hexHash(keyA) + "\n  tenant: acme\n", "not both"},
		{"neither", "- tenant: acme\n", "key or sha256 is required"},
		{"bad hash", "- sha256: abcd\n  tenant: acme\n", "sha256 must be 64 hex characters"},
		{"short key", "- key: short\n  tenant: acme\n", "entry 0: key is 5 characters"},
		{"tenant key without tenant", "- key: " + keyA + "\n", `tenant "" must be`},
		{"bad tenant", "- key: " + keyA + "\n  tenant: a b\n", `tenant "a b" must be`},
		{"unknown scope", "- key: " + keyA + "\n  tenant: acme\n  scopes: [root]\n", `unknown scope "root"`},
		{"negative rate", "- key: " + keyA + "\n  tenant: acme\n  rate_limit: -1\n", "rate_limit must be"},
		{"negative burst", "- key: " + keyA + "\n  tenant: acme\n  rate_burst: -1\n", "rate_burst must not be negative"},
		{"not a list", "key: " + keyA + "\n", "cannot unmarshal"},
		{"list of bare keys", "- " + keyA + "\n", "line 1: cannot unmarshal !!str a value into auth.FileKey"},
		{"key as a rate", "- key: " + keyB + "\n  tenant: acme\n  rate_limit: " + keyA + "\n", "line 3: cannot unmarshal !!str a value into float64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadFile(writeFile(t, "keys", tt.content))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), keyA[:5]) {
				t.Fatalf("error %q reveals the key", err)
			}
		})
	}
	if _, err := LoadFile(filepath.Join(t.TempDir(), "missing.yaml")); err == nil || !strings.Contains(err.Error(), "read api keys file") {
		t.Fatalf("missing file: error = %v", err)
	}
}
