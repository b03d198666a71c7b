package memory

import (
	"crypto/sha256"
	"fmt"
	"strings"
)

// ContentHash is the normalised-content hash used for exact dedup: case,
// punctuation spacing and whitespace differences do not make a new memory.
func ContentHash(content string) [32]byte {
	return sha256.Sum256([]byte(strings.Join(strings.Fields(strings.ToLower(content)), " ")))
}

// DeterministicID derives a UUID-shaped id (Qdrant accepts UUIDs) from the
// parts, so that redelivered work writes the same record again.
func DeterministicID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	s := h.Sum(nil)
	s[6] = s[6]&0x0f | 0x50 // version 5 style
	s[8] = s[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", s[0:4], s[4:6], s[6:8], s[8:10], s[10:16])
}

// MemoryID is the id of a memory: tenant, namespace, subject and normalised
// content decide it, so an exact duplicate is an idempotent upsert.
func MemoryID(tenant, namespace, subject, content string) string {
	h := ContentHash(content)
	return DeterministicID(tenant, namespace, subject, string(h[:]))
}

// RedactedID is the id of an explicit memory stored with a secret
// redacted: derived from the event that carried it, never from the content
// (a hash of the content would let a guess of the secret be checked
// against the id). event is the event's message id (tenant and event id).
func RedactedID(tenant, namespace, subject, event string) string {
	return DeterministicID(tenant, namespace, subject, "redacted", event)
}
