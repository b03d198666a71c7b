package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

const secretPrefix = "whsec_"

// newSecret is a fresh signing secret: whsec_ and 24 random bytes in base64.
func newSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // never fails (crypto/rand documents it)
	return secretPrefix + base64.StdEncoding.EncodeToString(b)
}

// newID is an endpoint id: wh_ and 16 random hex digits.
func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "wh_" + hex.EncodeToString(b)
}

// Sign is the webhook-signature header value for a message: one
// "v1,<base64 HMAC-SHA256 of id.timestamp.body>" per secret, separated by
// spaces, as Standard Webhooks verifiers expect during a rotation.
func Sign(secrets []string, id string, timestamp int64, body []byte) (string, error) {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		key, err := secretBytes(s)
		if err != nil {
			return "", err
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
		mac.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return strings.Join(sigs, " "), nil
}

// Verify reports whether header carries a v1 signature of the message
// made with secret: what a receiver does (the README shows the same in
// Python and TypeScript).
func Verify(secret, id string, timestamp int64, body []byte, header string) bool {
	want, err := Sign([]string{secret}, id, timestamp, body)
	if err != nil {
		return false
	}
	for _, sig := range strings.Fields(header) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}

// secretBytes decodes the key of a whsec_ secret.
func secretBytes(s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, secretPrefix))
	if err != nil {
		return nil, fmt.Errorf("decode webhook secret: %w", err) // the secret itself is never quoted
	}
	return b, nil
}
