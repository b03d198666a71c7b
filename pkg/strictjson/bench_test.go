package strictjson

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// batchBody is an ingest batch of n memory events, the largest body a
// door decodes on a hot path.
func batchBody(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"events":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"e-%d","type":"memory","tenant":"acme","subject":"alice","session_id":"s1","memory":{"content":"Fact number %d: the deploy script lives in tools/deploy.sh and runs make test first","type":"fact","tags":["a","b"]}}`, i, i)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

type benchEvent struct {
	ID, Type, Tenant, Subject string
	SessionID                 string `json:"session_id"`
	Memory                    struct {
		Content, Type string
		Tags          []string
	}
}

func BenchmarkDecodeBatch(b *testing.B) {
	body := batchBody(1000)
	b.Run("encoding/json", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var v struct{ Events []benchEvent }
			if err := json.Unmarshal(body, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("strictjson", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var v struct{ Events []benchEvent }
			if err := Unmarshal(body, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
