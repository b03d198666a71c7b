package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/internal/testserver"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
)

// The secrets a deployment configures never reach the logs (at debug
// level), the errors or `recollect config`: an API key, an LLM key, a
// secret in the LLM URL's query string, an embedding key, a Qdrant key,
// and the passwords of Redis and ClickHouse DSNs. The run talks to an LLM
// that is down, so failed calls (with their URLs) are logged; a second run
// waits for an unreachable Redis and ClickHouse (its /readyz names them),
// and a third fails to start on an unreachable NATS.
func TestSecretsStayOutOfLogsAndConfig(t *testing.T) {
	const (
		apiKey      = "rk-apikey-7c1d0e5b9a3f42e8"
		llmKey      = "sk-llmkey-5f2a9c81d7e34b06"
		querySecret = "qsecret-9e4b7a2c1d8f3065"
		embedKey    = "ek-embedkey-3a8d6f1c2b9e4075"
		qdrantKey   = "qk-qdrantkey-8b2e5d9a7c1f3064"
		redisPass   = "rpass-6d1f8a3c9b2e7054"
		chPass      = "chpass-2c7e9a5d1b8f4063"
		natsPass    = "npass-4e8a1c7d2f9b3065"
	)
	secrets := []string{apiKey, llmKey, querySecret, embedKey, qdrantKey, redisPass, chPass, natsPass}
	deadLLM := fmt.Sprintf("http://127.0.0.1:%d/v1?key=%s", testserver.FreePort(t), querySecret)
	common := []string{
		"--log-level", "debug", "--log-format", "text",
		"--llm-url", deadLLM, "--llm-api-key", llmKey, "--llm-max-retries", "0",
		"--embed-api-key", embedKey, "--qdrant-api-key", qdrantKey,
	}
	env := map[string]string{"RECOLLECT_API_KEYS": apiKey + "=acme"}
	for k, v := range env {
		t.Setenv(k, v)
	}
	check := func(what, text string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s holds the secret %q:\n%s", what, s, text)
			}
		}
	}

	// recollect config, text and JSON, with every secret set.
	brokenBackends := []string{
		"--redis-url", fmt.Sprintf("redis://default:%s@127.0.0.1:%d/0?dial_timeout=1s", redisPass, testserver.FreePort(t)),
		"--clickhouse-dsn", fmt.Sprintf("clickhouse://default:%s@127.0.0.1:%d/default?dial_timeout=1s", chPass, testserver.FreePort(t)),
	}
	for _, format := range [][]string{nil, {"--json"}} {
		out, errOut, err := runSplit(append(append(append([]string{"config"}, common...), brokenBackends...), format...)...)
		if err != nil {
			t.Fatalf("config: %v\n%s", err, errOut)
		}
		if !strings.Contains(out, "llm-api-key") || !strings.Contains(out, "redis-url") {
			t.Fatalf("config output lacks the settings:\n%s", out)
		}
		check("recollect config "+strings.Join(format, ""), out+errOut)
	}

	// A full run: ingest a conversation (extraction calls the dead LLM),
	// recall, and stop.
	logs := &syncBuffer{}
	addr := fmt.Sprintf("127.0.0.1:%d", testserver.FreePort(t))
	cmd := newRunCmd("")
	cmd.SetOut(logs)
	cmd.SetErr(logs)
	cmd.SetArgs(append([]string{"--data-dir", t.TempDir(), "--http-addr", addr, "--consolidate-interval", "0s"}, common...))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	clienttest.Eventually(t, time.Minute, "recollect ready", func() error {
		if !strings.Contains(logs.String(), "recollect ready") {
			return errors.New("not ready yet")
		}
		return nil
	})
	post := func(path, body, key string) (int, string) {
		req, err := http.NewRequest(http.MethodPost, "http://"+addr+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	event := `{"id":"c1","type":"compaction","tenant":"acme","session_id":"s1","messages":[{"role":"user","content":"I moved to Lisbon last spring and my API key is not here"}]}`
	if code, body := post("/v1/events", event, apiKey); code != http.StatusAccepted {
		t.Fatalf("ingest: %d %s", code, body)
	}
	if code, body := post("/v1/events", event, apiKey[:len(apiKey)-1]+"X"); code != http.StatusUnauthorized {
		t.Fatalf("ingest with a wrong key: %d %s", code, body)
	}
	if code, body := post("/v1/recall", `{"tenant":"acme","query":"where does the user live?"}`, apiKey); code >= 500 && code != http.StatusServiceUnavailable {
		t.Fatalf("recall: %d %s", code, body)
	}
	// Wait until the failed LLM call is logged.
	clienttest.Eventually(t, time.Minute, "failed llm call logged", func() error {
		if !strings.Contains(logs.String(), "connection refused") {
			return errors.New("no failed llm call logged yet")
		}
		return nil
	})
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("run: %v", err)
	}
	check("the logs of recollect run", logs.String())
	if !strings.Contains(logs.String(), "level=DEBUG") {
		t.Fatalf("no debug lines: the check saw less than it should")
	}

	// A run whose Redis and ClickHouse are unreachable starts and waits
	// for them: its logs and /readyz name them, without their passwords.
	waitAddr := fmt.Sprintf("127.0.0.1:%d", testserver.FreePort(t))
	var waiting syncBuffer
	cmd = newRunCmd("")
	cmd.SetOut(&waiting)
	cmd.SetErr(&waiting)
	cmd.SetArgs(append(append([]string{"--data-dir", t.TempDir(), "--http-addr", waitAddr, "--insecure"}, common...), brokenBackends...))
	ctx3, cancel3 := context.WithCancel(context.Background())
	done3 := make(chan error, 1)
	go func() { done3 <- cmd.ExecuteContext(ctx3) }()
	var readyBody string
	clienttest.Eventually(t, time.Minute, "/readyz names redis and clickhouse", func() error {
		resp, err := http.Get("http://" + waitAddr + "/readyz")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		readyBody = string(b)
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(readyBody, "waiting for redis") || !strings.Contains(readyBody, "waiting for clickhouse") {
			return fmt.Errorf("/readyz %d %q", resp.StatusCode, readyBody)
		}
		return nil
	})
	cancel3()
	if err := <-done3; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("run waiting for redis and clickhouse: %v", err)
	}
	check("redis and clickhouse down: the logs", waiting.String())
	check("redis and clickhouse down: /readyz", readyBody)

	// A run that cannot start: NATS unreachable.
	deadNATS := []string{"--nats-url", fmt.Sprintf("nats://recollect:%s@127.0.0.1:%d", natsPass, testserver.FreePort(t)), "--nats-connect-timeout", "2s"}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"nats down", deadNATS, []string{"nats"}},
	} {
		var failed bytes.Buffer
		cmd = newRunCmd("")
		cmd.SetOut(&failed)
		cmd.SetErr(&failed)
		cmd.SetArgs(append(append([]string{"--data-dir", t.TempDir(), "--http-addr", "127.0.0.1:0", "--insecure"}, common...), tc.args...))
		ctx2, cancel2 := context.WithTimeout(context.Background(), time.Minute)
		err := cmd.ExecuteContext(ctx2)
		cancel2()
		if err == nil {
			t.Fatalf("%s: run started", tc.name)
		}
		if !slices.ContainsFunc(tc.want, func(w string) bool { return strings.Contains(strings.ToLower(err.Error()), w) }) {
			t.Fatalf("%s: start failed for another reason: %v", tc.name, err)
		}
		check(tc.name+": the failed start", failed.String()+"\n"+err.Error())
	}
}
