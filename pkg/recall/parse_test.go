package recall

import (
	"slices"
	"strings"
	"testing"
)

func TestParsePhrasings(t *testing.T) {
	long := strings.Repeat("word ", 100)
	tests := []struct {
		name, answer string
		want         []string
		wantErr      bool
	}{
		{"object", `{"queries": ["a b", "c d"]}`, []string{"a b", "c d"}, false},
		{"bare array in prose", `Sure: ["a b", "c d"] hope it helps`, []string{"a b", "c d"}, false},
		{"other key and objects", `{"alternatives": [{"query": "a b"}, {"text": "c d"}]}`, []string{"a b", "c d"}, false},
		{"duplicates and the query", `{"queries": ["The Query", "a b", "A B", ""]}`, []string{"a b"}, false},
		{"bounded count", `{"queries": ["a", "b", "c", "d"]}`, []string{"a", "b", "c"}, false},
		{"long phrase cut", `{"queries": ["` + long + `"]}`, []string{strings.TrimSpace(long[:maxExpansionChars])}, false},
		{"empty list", `{"queries": []}`, nil, true},
		{"not json", `alternative: deploy script`, nil, true},
		{"two lists, no known key", `{"x": ["a"], "y": ["b"]}`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePhrasings(tt.answer, "the query", 3)
			if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
				t.Fatalf("parsePhrasings = %q, %v; want %q (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestParseRanking(t *testing.T) {
	tests := []struct {
		name, answer string
		want         []float64
		wantErr      bool
	}{
		{"scored objects", `{"ranking": [{"id": 2, "score": 0.9}, {"id": 1, "score": 0.1}]}`, []float64{0.1, 0.9, 0}, false},
		{"ten point scale", `{"results": [{"index": "[3]", "relevance": 8}, {"id": 1, "score": "2"}]}`, []float64{0.2, 0, 0.8}, false},
		{"hundred point scale", `[{"id": 1, "score": 90}, {"id": 2, "score": 45}]`, []float64{0.9, 0.45, 0}, false},
		{"order only", "```json\n{\"ranking\": [3, 1, 2]}\n```", []float64{2.0 / 3, 1.0 / 3, 1}, false},
		{"id to score map", `{"1": 0.3, "3": 0.7}`, []float64{0.3, 0, 0.7}, false},
		{"unknown and repeated ids ignored", `{"ranking": [{"id": 9, "score": 1}, {"id": 2, "score": 0.4}, {"id": 2, "score": 1}]}`, []float64{0, 0.4, 0}, false},
		{"negative and mixed scores", `{"ranking": [{"id": 1, "score": -3}, {"id": 2}]}`, []float64{1, 0.5, 0}, false},
		{"no candidate", `{"ranking": [{"id": 0}, {"id": 4}]}`, nil, true},
		{"prose", `The second memory is the best.`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseRanking(tt.answer, 3)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseRanking error %v, want error %v", err, tt.wantErr)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("parseRanking = %v, want %v", got, tt.want)
			}
			for i := range got {
				if d := got[i] - tt.want[i]; d > 1e-9 || d < -1e-9 {
					t.Fatalf("parseRanking = %v, want %v", got, tt.want)
				}
			}
		})
	}
}
