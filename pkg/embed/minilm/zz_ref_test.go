package minilm

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"testing"
)

func TestZZRef(t *testing.T) {
	b, err := os.ReadFile("/tmp/ref/ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string][]float64
	json.Unmarshal(b, &ref)
	m := testModel(t)
	for _, k := range kernels() {
		mm, _ := load(k)
		for s, want := range ref {
			v, _ := mm.Embed(context.Background(), []string{s})
			var md float64
			for i := range want {
				md = math.Max(md, math.Abs(want[i]-float64(v[0][i])))
			}
			t.Logf("%s %q maxdiff %.2e", k.name, s, md)
		}
	}
	_ = m
}
