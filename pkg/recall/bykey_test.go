package recall_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/embedtest"
	"github.com/recollect-dev/recollect/pkg/domains"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
)

func TestRecallByKey(t *testing.T) {
	mems := []mem{
		{id: "old", key: "deploy/staging-target", content: "staging deploys go to eu-west-1", age: 48 * time.Hour},
		{id: "new", key: "deploy/staging-target", content: "staging deploys go to us-east-2"},
		{id: "near", content: "the staging target for deploys was discussed"},
		{id: "prod", key: "deploy/prod-target", content: "production deploys go to eu-central-1"},
	}
	f := newFixture(t, mems, recall.Config{}, nil)

	t.Run("exact key, newest first, whatever the query says", func(t *testing.T) {
		resp := f.recall(t, recall.Request{Key: "  Deploy/Staging-Target ", Query: "production"})
		if got := ids(resp); !slices.Equal(got, []string{"new", "old"}) {
			t.Fatalf("recalled %v, want [new old]", got)
		}
		for _, r := range resp.Memories {
			if !r.KeyMatch {
				t.Fatalf("%s: key_match unset on a key lookup", r.Memory.ID)
			}
		}
		if !strings.Contains(resp.Context, "us-east-2") {
			t.Fatalf("context block lacks the keyed memory:\n%s", resp.Context)
		}
	})

	t.Run("unknown key falls back to searching its words", func(t *testing.T) {
		resp := f.recall(t, recall.Request{Key: "staging/target"})
		got := ids(resp)
		if len(got) == 0 {
			t.Fatal("fallback search recalled nothing")
		}
		if resp.Query != "staging target" {
			t.Fatalf("fallback query = %q, want the key's words", resp.Query)
		}
		for _, r := range resp.Memories {
			if r.KeyMatch {
				t.Fatalf("%s marked key_match on a fallback search", r.Memory.ID)
			}
		}
		if !slices.Contains(got, "near") {
			t.Fatalf("fallback recalled %v, want the memory about the staging target among them", got)
		}
	})

	t.Run("unknown key with a query searches the query", func(t *testing.T) {
		resp := f.recall(t, recall.Request{Key: "nothing/here", Query: "production deploys"})
		if got := ids(resp); len(got) == 0 || got[0] != "prod" {
			t.Fatalf("recalled %v, want prod first", got)
		}
	})

	t.Run("filters apply to key lookups", func(t *testing.T) {
		resp := f.recall(t, recall.Request{Key: "deploy/prod-target", Filters: recall.Filters{Domains: []string{"tool-usage"}}})
		for _, r := range resp.Memories {
			if r.KeyMatch {
				t.Fatalf("key lookup ignored the domain filter: %v", ids(resp))
			}
		}
	})
}

// TestRequestFieldErrors: a bad request names its field.
func TestRequestFieldErrors(t *testing.T) {
	r, err := recall.New(recall.Config{PerDomain: 3, MaxResults: 9, Candidates: 9}, storeOf(t, nil), embedtest.Terms{}, domains.Builtin(),
		func() time.Time { return testNow })
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		req   recall.Request
		field string
	}{
		{recall.Request{Key: strings.Repeat("k", memory.MaxKeyChars+1)}, "key"},
		{recall.Request{}, "query"},
		{recall.Request{Query: "x", Filters: recall.Filters{FilePath: strings.Repeat("a/", recall.MaxFilePathChars)}}, "filters.file_path"},
	} {
		_, err := r.Recall(context.Background(), tt.req)
		var fe *memory.FieldError
		if !errors.As(err, &fe) || fe.Field != tt.field {
			t.Fatalf("err = %v, want a field error on %s", err, tt.field)
		}
	}
}
