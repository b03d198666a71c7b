package auth

import (
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Scopes a key can hold.
const (
	// ScopeTenant acts for the key's own tenant only.
	ScopeTenant = "tenant"
	// ScopeAdmin may act for any tenant the request names.
	ScopeAdmin = "admin"
)

// MinKeyChars is the shortest key accepted: shorter ones can be guessed.
const MinKeyChars = 16

// Key is one configured API key, known only by its hash.
type Key struct {
	Name   string
	Tenant string
	Admin  bool
	Hash   [sha256.Size]byte
	// RateLimit overrides the configured requests per second when set
	// (0: unlimited); RateBurst overrides the burst when > 0.
	RateLimit *float64
	RateBurst int
}

// HashKey is the SHA-256 of a key, the only form kept in memory.
func HashKey(key string) [sha256.Size]byte { return sha256.Sum256([]byte(key)) }

// checkSecret rejects keys that are empty, short or padded.
func checkSecret(key string) error {
	if strings.TrimSpace(key) != key {
		return fmt.Errorf("has leading or trailing spaces")
	}
	if n := len([]rune(key)); n < MinKeyChars {
		return fmt.Errorf("is %d characters, shorter than %d", n, MinKeyChars)
	}
	return nil
}

func checkTenant(tenant string, required bool) error {
	if tenant == "" && !required {
		return nil
	}
	if !memory.ValidTenant(tenant) {
		return fmt.Errorf("tenant %q must be 1-%d characters of [A-Za-z0-9_-]", tenant, memory.MaxNameChars)
	}
	return nil
}

// ParseKeyList reads the RECOLLECT_API_KEYS form: "key=tenant[:admin],...".
// The key is everything before the last '=' (tenants hold no '=', keys may
// end in base64 padding). Errors name the entry by position, never the key.
func ParseKeyList(s string) ([]Key, error) {
	var out []Key
	for i, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name := fmt.Sprintf("api-keys[%d]", i)
		eq := strings.LastIndexByte(item, '=')
		if eq < 0 {
			return nil, fmt.Errorf("%s: want key=tenant or key=tenant:admin", name)
		}
		secret, rest := item[:eq], item[eq+1:]
		tenant, scope, scoped := strings.Cut(rest, ":")
		k := Key{Name: name, Tenant: tenant, Hash: HashKey(secret)}
		if scoped {
			if scope != ScopeAdmin {
				return nil, fmt.Errorf("%s: unknown scope %q after the tenant (want admin)", name, scope)
			}
			k.Admin = true
		}
		if err := checkSecret(secret); err != nil {
			return nil, fmt.Errorf("%s: key %w", name, err)
		}
		if err := checkTenant(tenant, true); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, k)
	}
	return out, nil
}
