package minilm

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"testing"
)

func TestZZTokFuzz(t *testing.T) {
	m := testModel(t)
	for _, file := range []string{"/tmp/ref/fuzz.jsonl", "/tmp/ref/tokcases.jsonl", "/tmp/ref/fuzz2.jsonl"} {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		n, bad := 0, 0
		for sc.Scan() {
			var row [2]json.RawMessage
			json.Unmarshal(sc.Bytes(), &row)
			var s string
			var ids []int32
			json.Unmarshal(row[0], &s)
			json.Unmarshal(row[1], &ids)
			got := m.tok.encode(s)
			n++
			if !slices.Equal(got, ids) {
				bad++
				if bad < 15 {
					t.Errorf("%q:\n got %v\nwant %v", s, got, ids)
				}
			}
		}
		t.Logf("%s: %d cases, %d mismatches", file, n, bad)
	}
}
