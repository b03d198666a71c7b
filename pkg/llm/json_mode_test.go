package llm_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/internal/llmtest"
	"github.com/recollect-dev/recollect/pkg/llm"
)

func formats(reqs []llmtest.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.ResponseFormat)
	}
	return out
}

func TestJSONMode(t *testing.T) {
	for _, tc := range []struct {
		name        string
		mode        llm.JSONMode
		noSupport   bool     // the server rejects response_format
		calls       int      // JSON calls made one after the other
		wantFormats []string // per request, in order
		wantStatus  int      // 0: every call succeeds
	}{
		{"on", llm.JSONOn, false, 1, []string{"json_object"}, 0},
		{"off", llm.JSONOff, false, 1, []string{""}, 0},
		{"auto supported", llm.JSONAuto, false, 2, []string{"json_object", "json_object"}, 0},
		{"default is auto", "", false, 1, []string{"json_object"}, 0},
		// The rejection costs one request, once: the second call goes
		// straight without response_format.
		{"auto downgrades", llm.JSONAuto, true, 2, []string{"json_object", "", ""}, 0},
		{"on does not downgrade", llm.JSONOn, true, 1, []string{"json_object"}, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []llmtest.Option
			if tc.noSupport {
				opts = append(opts, llmtest.WithoutResponseFormat())
			}
			s := llmtest.New(t, opts...)
			s.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Text(`{"ok":true}`) })
			cfg := config(s)
			cfg.JSONMode = tc.mode
			c, rec := newClient(t, cfg)
			for range tc.calls {
				resp, err := c.Chat(context.Background(), llm.Request{JSON: true, System: "Reply in JSON.", Messages: user("x")})
				if tc.wantStatus != 0 {
					var he *llm.HTTPError
					if !errors.As(err, &he) || he.Status != tc.wantStatus || errors.Is(err, llm.ErrUnavailable) {
						t.Fatalf("chat = %v, want an HTTPError %d that is not ErrUnavailable", err, tc.wantStatus)
					}
					continue
				}
				if err != nil || resp.Content != `{"ok":true}` {
					t.Fatalf("chat = %q, %v", resp.Content, err)
				}
			}
			if got := formats(s.Requests()); !slices.Equal(got, tc.wantFormats) {
				t.Fatalf("response_format per request %q, want %q", got, tc.wantFormats)
			}
			if n := len(rec.records()); n != len(tc.wantFormats) {
				t.Fatalf("%d usage records for %d requests", n, len(tc.wantFormats))
			}
		})
	}
}

func TestJSONHint(t *testing.T) {
	s := llmtest.New(t)
	s.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Text("{}") })
	c, _ := newClient(t, config(s))
	for _, tc := range []struct {
		name       string
		req        llm.Request
		wantSystem string
	}{
		{"added", llm.Request{JSON: true, System: "Extract facts.", Messages: user("x")}, "Extract facts.\n\nAnswer with a single JSON object and nothing else."},
		{"added without system", llm.Request{JSON: true, Messages: user("x")}, "Answer with a single JSON object and nothing else."},
		{"mentioned already", llm.Request{JSON: true, System: "Return json.", Messages: user("x")}, "Return json."},
		{"mentioned by the user", llm.Request{JSON: true, Messages: user("give me JSON")}, ""},
		{"not a JSON call", llm.Request{System: "Name it.", Messages: user("x")}, "Name it."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := c.Chat(context.Background(), tc.req); err != nil {
				t.Fatalf("chat: %v", err)
			}
			reqs := s.Requests()
			if got := reqs[len(reqs)-1].System(); got != tc.wantSystem {
				t.Fatalf("system prompt %q, want %q", got, tc.wantSystem)
			}
		})
	}
}

func TestDecodeJSON(t *testing.T) {
	type facts struct {
		Facts []string `json:"facts"`
		N     int      `json:"n"`
	}
	for _, tc := range []struct {
		name    string
		content string
		want    facts
		ok      bool
	}{
		{"plain", `{"facts":["a"],"n":1}`, facts{[]string{"a"}, 1}, true},
		{"fenced", "```json\n{\"facts\":[\"a\"],\"n\":1}\n```", facts{[]string{"a"}, 1}, true},
		{"fence without tag", "```\n{\"n\":2}\n```", facts{nil, 2}, true},
		{"prose around", "Sure! Here it is:\n{\"n\":3}\nHope this helps {really}.", facts{nil, 3}, true},
		{"prose then fence", "Here:\n```json\n{\"n\":4}\n```\nDone.", facts{nil, 4}, true},
		{"bracket noise first", "[note] 42 {\"n\":5}", facts{nil, 5}, true},
		{"mismatch then match", `[1,2] then {"n":6}`, facts{nil, 6}, true},
		{"truncated", `{"facts":["a",`, facts{}, false},
		{"no json", "I cannot help with that.", facts{}, false},
		{"empty", "  ", facts{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got facts
			err := llm.DecodeJSON(tc.content, &got)
			if tc.ok != (err == nil) {
				t.Fatalf("DecodeJSON(%q) = %v, want ok=%v", tc.content, err, tc.ok)
			}
			if !tc.ok {
				if !errors.Is(err, llm.ErrNoJSON) {
					t.Fatalf("error %v is not ErrNoJSON", err)
				}
				return
			}
			if got.N != tc.want.N || strings.Join(got.Facts, ",") != strings.Join(tc.want.Facts, ",") {
				t.Fatalf("decoded %+v, want %+v", got, tc.want)
			}
		})
	}
}
