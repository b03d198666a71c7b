package llmtest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/llmtest"
)

// post sends body to the server's endpoint and returns status, headers
// and body.
func post(t *testing.T, ctx context.Context, url, key, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatalf("build request: %v", err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("post %s: %v", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read answer: %v", err)
	}
	return resp.StatusCode, resp.Header, raw
}

func chat(t *testing.T, s *llmtest.Server, body string) (int, http.Header, []byte) {
	t.Helper()
	return post(t, context.Background(), s.URL()+"/chat/completions", "", body)
}

const hello = `{"model":"m","messages":[{"role":"system","content":"sys"},{"role":"user","content":"hello there"}],
	"response_format":{"type":"json_object"},"max_tokens":50,"temperature":0.2}`

type chatAnswer struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
}

func decode(t *testing.T, raw []byte) chatAnswer {
	t.Helper()
	var a chatAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return a
}

func TestChatReplyAndRequest(t *testing.T) {
	s := llmtest.New(t)
	s.Push(llmtest.Reply{Content: "```json\n{}\n```", InputTokens: 11, OutputTokens: 4, Model: "m-v2", FinishReason: "length"})
	status, _, raw := chat(t, s, hello)
	a := decode(t, raw)
	if status != 200 || a.Model != "m-v2" || len(a.Choices) != 1 || a.Choices[0].Message.Content != "```json\n{}\n```" ||
		a.Choices[0].Message.Role != "assistant" || a.Choices[0].FinishReason != "length" ||
		a.Usage == nil || a.Usage.PromptTokens != 11 || a.Usage.CompletionTokens != 4 || a.Usage.TotalTokens != 15 {
		t.Fatalf("answer %d %s", status, raw)
	}
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests recorded, want 1", len(reqs))
	}
	r := reqs[0]
	if r.N != 1 || r.Endpoint != llmtest.EndpointChat || r.Model != "m" || r.ResponseFormat != "json_object" ||
		r.MaxTokens != 50 || r.Temperature == nil || *r.Temperature != 0.2 || r.System() != "sys" ||
		r.User() != "hello there" || r.LastUser() != "hello there" || len(r.Messages) != 2 {
		t.Fatalf("recorded %+v", r)
	}
	if s.Pending() != 0 {
		t.Fatalf("%d replies pending, want 0", s.Pending())
	}
}

func TestChatDefaults(t *testing.T) {
	s := llmtest.New(t)
	s.Push(llmtest.Text("one two three"), llmtest.Reply{Content: "x", NoUsage: true})
	_, _, raw := chat(t, s, hello)
	a := decode(t, raw)
	// word counts: "sys" + "hello there" = 3, "one two three" = 3
	if a.Model != "m" || a.Choices[0].FinishReason != "stop" || a.Usage == nil || a.Usage.PromptTokens != 3 || a.Usage.CompletionTokens != 3 {
		t.Fatalf("answer %s", raw)
	}
	_, _, raw = chat(t, s, hello)
	if a := decode(t, raw); a.Usage != nil {
		t.Fatalf("NoUsage answer has usage: %s", raw)
	}
}

func TestQueueThenHandler(t *testing.T) {
	s := llmtest.New(t)
	s.Push(llmtest.Text("first"), llmtest.Text("second"))
	s.Handle(func(r llmtest.Request) llmtest.Reply { return llmtest.Text(fmt.Sprintf("handled #%d", r.N)) })
	var got []string
	for range 4 {
		_, _, raw := chat(t, s, hello)
		got = append(got, decode(t, raw).Choices[0].Message.Content)
	}
	if want := "first,second,handled #3,handled #4"; strings.Join(got, ",") != want {
		t.Fatalf("contents %q, want %s", got, want)
	}
}

func TestErrorReplies(t *testing.T) {
	for _, tc := range []struct {
		name       string
		reply      llmtest.Reply
		wantStatus int
		wantMsg    string
		wantHeader [2]string
	}{
		{"rate limited", llmtest.RateLimited(1500 * time.Millisecond), 429, "rate limit reached", [2]string{"Retry-After", "2"}},
		{"status text", llmtest.Status(503), 503, "Service Unavailable", [2]string{}},
		{"message", llmtest.Reply{Status: 400, Error: "context length exceeded"}, 400, "context length exceeded", [2]string{}},
		{"extra header", llmtest.Reply{Status: 429, Header: http.Header{"Retry-After-Ms": {"20"}}}, 429, "Too Many Requests", [2]string{"Retry-After-Ms", "20"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := llmtest.New(t)
			s.Push(tc.reply)
			status, h, raw := chat(t, s, hello)
			a := decode(t, raw)
			if status != tc.wantStatus || a.Error == nil || a.Error.Message != tc.wantMsg {
				t.Fatalf("answer %d %s", status, raw)
			}
			if tc.wantHeader[0] != "" && h.Get(tc.wantHeader[0]) != tc.wantHeader[1] {
				t.Fatalf("header %s = %q, want %q", tc.wantHeader[0], h.Get(tc.wantHeader[0]), tc.wantHeader[1])
			}
		})
	}
}

func TestRawReply(t *testing.T) {
	s := llmtest.New(t)
	s.Push(llmtest.Reply{Raw: `{"choices":[{"mess`}, llmtest.Reply{Status: 502, Raw: "<html>bad gateway</html>"})
	if status, _, raw := chat(t, s, hello); status != 200 || string(raw) != `{"choices":[{"mess` {
		t.Fatalf("answer %d %q", status, raw)
	}
	if status, _, raw := chat(t, s, hello); status != 502 || string(raw) != "<html>bad gateway</html>" {
		t.Fatalf("answer %d %q", status, raw)
	}
}

func TestInvalidRequests(t *testing.T) {
	s := llmtest.New(t)
	s.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Text("ok") })
	for _, body := range []string{`{not json`, `{"messages":[{"role":"user","content":"x"}]}`, `{"model":"m","messages":[]}`} {
		if status, _, raw := chat(t, s, body); status != 400 || decode(t, raw).Error == nil {
			t.Fatalf("body %s: answer %d %s, want 400 with an error", body, status, raw)
		}
	}
	if n := len(s.Requests()); n != 3 {
		t.Fatalf("%d requests recorded, want 3: invalid ones are recorded too", n)
	}
	// Content as an array of parts, as newer clients send it.
	parts := `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}`
	if status, _, raw := chat(t, s, parts); status != 200 {
		t.Fatalf("parts: answer %d %s", status, raw)
	}
	if got := s.Requests()[3].LastUser(); got != "ab" {
		t.Fatalf("parts recorded as %q, want ab", got)
	}
}

func TestAPIKeyAndResponseFormat(t *testing.T) {
	s := llmtest.New(t, llmtest.WithAPIKey("sk-1"), llmtest.WithoutResponseFormat())
	s.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Text("ok") })
	url := s.URL() + "/chat/completions"
	if status, _, _ := post(t, context.Background(), url, "", hello); status != 401 {
		t.Fatalf("no key: status %d, want 401", status)
	}
	if status, _, _ := post(t, context.Background(), url, "sk-2", hello); status != 401 {
		t.Fatalf("wrong key: status %d, want 401", status)
	}
	status, _, raw := post(t, context.Background(), url, "sk-1", hello)
	if a := decode(t, raw); status != 400 || a.Error == nil || !strings.Contains(a.Error.Message, "response_format") {
		t.Fatalf("response_format: answer %d %s, want 400 naming it", status, raw)
	}
	plain := `{"model":"m","messages":[{"role":"user","content":"x"}]}`
	if status, _, _ := post(t, context.Background(), url, "sk-1", plain); status != 200 {
		t.Fatalf("plain: status %d, want 200", status)
	}
	if r := s.Requests()[3]; r.APIKey != "sk-1" {
		t.Fatalf("recorded key %q", r.APIKey)
	}
}

// fakeTB catches the failure an unscripted request reports.
type fakeTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

func TestUnscriptedChatFails(t *testing.T) {
	ft := &fakeTB{TB: t}
	s := llmtest.New(ft)
	if status, _, _ := chat(t, s, hello); status != 500 {
		t.Fatalf("status %d, want 500", status)
	}
	ft.mu.Lock()
	defer ft.mu.Unlock()
	if len(ft.errs) != 1 || !strings.Contains(ft.errs[0], "no scripted reply") || !strings.Contains(ft.errs[0], "hello there") {
		t.Fatalf("test errors %q, want one naming the request", ft.errs)
	}
}

func TestDelayEndsWithClient(t *testing.T) {
	s := llmtest.New(t)
	s.Push(llmtest.Reply{Content: "late", Delay: time.Hour}, llmtest.Text("next"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/chat/completions", strings.NewReader(hello))
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_ = resp.Body.Close()
			t.Error("a delayed reply answered before the client gave up")
		}
	}()
	waitFor(t, func() bool { return s.InFlight() == 1 })
	cancel()
	<-done
	waitFor(t, func() bool { return s.InFlight() == 0 })
	if _, _, raw := chat(t, s, hello); decode(t, raw).Choices[0].Message.Content != "next" {
		t.Fatalf("after the delay: %s", raw)
	}
}

func TestHold(t *testing.T) {
	const n = 3
	s := llmtest.New(t)
	s.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Text("ok") })
	release := s.Hold()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if status, _, _ := chat(t, s, hello); status != 200 {
				t.Errorf("status %d", status)
			}
		})
	}
	waitFor(t, func() bool { return s.InFlight() == n })
	release()
	wg.Wait()
	if s.InFlight() != 0 || s.MaxInFlight() != n {
		t.Fatalf("in flight %d, max %d; want 0, %d", s.InFlight(), s.MaxInFlight(), n)
	}
}

func TestCloseReleasesHeld(t *testing.T) {
	s := llmtest.New(t)
	s.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Text("ok") })
	_ = s.Hold() // never released: Close must not hang on it
	errc := make(chan error, 1)
	go func() {
		resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(hello))
		if err == nil {
			_ = resp.Body.Close()
		}
		errc <- err
	}()
	waitFor(t, func() bool { return s.InFlight() == 1 })
	s.Close()
	<-errc
	if s.InFlight() != 0 {
		t.Fatalf("%d in flight after close", s.InFlight())
	}
}

type embeddingAnswer struct {
	Data []struct {
		Index     int             `json:"index"`
		Embedding json.RawMessage `json:"embedding"`
	} `json:"data"`
	Model string `json:"model"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
	} `json:"usage"`
}

func embed(t *testing.T, s *llmtest.Server, body string) (int, embeddingAnswer) {
	t.Helper()
	status, _, raw := post(t, context.Background(), s.URL()+"/embeddings", "", body)
	var a embeddingAnswer
	if status == 200 {
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
	}
	return status, a
}

func floats(t *testing.T, raw json.RawMessage) []float32 {
	t.Helper()
	var v []float32
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode vector %s: %v", raw, err)
	}
	return v
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i] * b[i])
		na += float64(a[i] * a[i])
		nb += float64(b[i] * b[i])
	}
	return dot / math.Sqrt(na*nb)
}

func TestEmbeddingsUnscripted(t *testing.T) {
	s := llmtest.New(t, llmtest.WithEmbeddingDims(32))
	status, a := embed(t, s, `{"model":"e","input":["the cat sat on the mat","The cat sat on the mat!","quantum chromodynamics lecture"]}`)
	if status != 200 || len(a.Data) != 3 || a.Model != "e" || a.Usage.PromptTokens != 15 {
		t.Fatalf("answer %d %+v", status, a)
	}
	v0, v1, v2 := floats(t, a.Data[0].Embedding), floats(t, a.Data[1].Embedding), floats(t, a.Data[2].Embedding)
	if len(v0) != 32 {
		t.Fatalf("dims %d, want 32", len(v0))
	}
	if c := cosine(v0, v1); c < 0.999 {
		t.Fatalf("same words: cosine %f, want 1", c)
	}
	if c := cosine(v0, v2); c > 0.5 {
		t.Fatalf("unrelated texts: cosine %f, want low", c)
	}
	// A single string input, and the base64 format.
	status, a = embed(t, s, `{"model":"e","input":"the cat sat on the mat","encoding_format":"base64"}`)
	if status != 200 || len(a.Data) != 1 {
		t.Fatalf("answer %d %+v", status, a)
	}
	var b64 string
	if err := json.Unmarshal(a.Data[0].Embedding, &b64); err != nil {
		t.Fatalf("base64 embedding %s: %v", a.Data[0].Embedding, err)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("decode base64: %v", err)
	}
	v := make([]float32, len(raw)/4)
	if err := binary.Read(bytes.NewReader(raw), binary.LittleEndian, v); err != nil {
		t.Fatalf("read floats: %v", err)
	}
	if cosine(v, v0) < 0.999 {
		t.Fatal("base64 vector differs from the float one")
	}
	if r := s.Requests()[1]; r.Endpoint != llmtest.EndpointEmbeddings || len(r.Input) != 1 || r.EncodingFormat != "base64" {
		t.Fatalf("recorded %+v", r)
	}
}

func TestEmbeddingsScripted(t *testing.T) {
	s := llmtest.New(t)
	s.Push(llmtest.Text("chat only")) // the chat queue is not the embedding queue
	s.PushEmbedding(llmtest.Status(429), llmtest.Reply{Embeddings: [][]float32{{1, 0}, {0, 1}}, InputTokens: 9})
	if status, _ := embed(t, s, `{"model":"e","input":["a","b"]}`); status != 429 {
		t.Fatalf("status %d, want 429", status)
	}
	status, a := embed(t, s, `{"model":"e","input":["a","b"]}`)
	if status != 200 || len(a.Data) != 2 || a.Usage.PromptTokens != 9 || a.Data[1].Index != 1 {
		t.Fatalf("answer %d %+v", status, a)
	}
	if v := floats(t, a.Data[1].Embedding); len(v) != 2 || v[1] != 1 {
		t.Fatalf("vector %v, want [0 1]", v)
	}
	if s.Pending() != 1 {
		t.Fatalf("%d pending, want the chat reply left", s.Pending())
	}
	if status, _ := embed(t, s, `{"model":"e"}`); status != 400 {
		t.Fatalf("no input: status %d, want 400", status)
	}
}

func TestVector(t *testing.T) {
	a, b := llmtest.Vector("Deploys use blue-green", 16), llmtest.Vector("deploys use blue green", 16)
	if cosine(a, b) < 0.999 {
		t.Fatal("case and punctuation changed the vector")
	}
	if e := llmtest.Vector("", 8); e[0] != 1 {
		t.Fatalf("empty text vector %v, want a unit vector", e)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(time.Millisecond)
	}
}
