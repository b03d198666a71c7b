package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/recollect-dev/recollect/pkg/bus"
	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// The Standard Webhooks libraries' own test vector.
func TestSignMatchesStandardWebhooks(t *testing.T) {
	got, err := Sign([]string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("signature %q, want %q", got, want)
	}
}

func verifyHit(t *testing.T, secret string, h hit) {
	t.Helper()
	ts, err := strconv.ParseInt(h.ts, 10, 64)
	if err != nil {
		t.Fatalf("webhook-timestamp %q: %v", h.ts, err)
	}
	if !Verify(secret, h.id, ts, h.body, h.sig) {
		t.Fatalf("signature %q of %s does not verify with the endpoint's secret", h.sig, h.id)
	}
}

// Every change reaches the endpoint signed, in stream order, a 500 is
// retried with the same webhook-id, and the types follow the changes.
func TestDeliversSignedInOrderAndRetriesA500(t *testing.T) {
	e := newEnv(t, testConfig())
	failed := false
	rcv := newReceiver(t, func(n int, h hit) int {
		if h.payload.Type == TypeMemoryUpdated && !failed {
			failed = true
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	v := e.create(rcv.srv.URL)
	if !strings.HasPrefix(v.Secret, "whsec_") {
		t.Fatalf("secret %q: want whsec_…", v.Secret)
	}
	e.startSender(nil)

	e.remember("m1", memory.StoredInserted)
	e.remember("m1", memory.StoredUpdated)
	e.remember("m2", memory.StoredInserted, func(m *memory.Memory) { m.Quarantine = "instruction" })
	e.remember("m1", memory.StoredUpdated, func(m *memory.Memory) { now := time.Now(); m.InvalidAt = &now; m.SupersededBy = "m3" })
	e.remember("m1", memory.StoredDeleted)
	e.publish(bus.ConsolidatedSubject("acme"), memory.ConsolidatedEvent{Tenant: "acme", Epoch: "e1", Memories: 1})
	e.publish(bus.PurgedSubject("acme"), memory.PurgedEvent{Tenant: "acme", Receipt: "r1", State: "complete", Finished: time.Now()})
	e.publish(bus.StoredSubject("other"), memory.StoredEvent{Tenant: "other", ID: "x", Op: memory.StoredDeleted}) // another tenant's

	got := rcv.waitDistinct(t, 7)
	want := []string{TypeMemoryStored, TypeMemoryUpdated, TypeMemoryQuarantined, TypeMemorySuperseded, TypeMemoryDeleted, TypeEpochCompleted, TypePurgeCompleted}
	for i, h := range got {
		if h.payload.Type != want[i] {
			t.Fatalf("event %d is %s, want %s (order %v)", i, h.payload.Type, want[i], types(got))
		}
		verifyHit(t, v.Secret, h)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d: %v", len(got), len(want), types(got))
	}
	// The 500 was retried with the same id.
	all := rcv.all()
	if len(all) != len(want)+1 || all[1].id != all[2].id || all[1].payload.Type != TypeMemoryUpdated {
		t.Fatalf("want the updated event sent twice in a row with one id, got %v", types(all))
	}
	var data MemoryData
	if err := json.Unmarshal(got[0].payload.Data, &data); err != nil || data.ID != "m1" || data.Memory == nil || data.Memory.Content != "content of m1" || data.Memory.Vector != nil {
		t.Fatalf("memory.stored data %s (%v)", got[0].payload.Data, err)
	}
}

func types(hs []hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.payload.Type
	}
	return out
}

// An endpoint that keeps failing has the event dead-lettered with the
// reason after MaxAttempts, and the next event still goes out.
func TestDeadLettersAfterMaxAttempts(t *testing.T) {
	e := newEnv(t, testConfig())
	rcv := newReceiver(t, func(n int, h hit) int {
		if h.payload.Type == TypeEpochCompleted {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	v := e.create(rcv.srv.URL)
	e.startSender(nil)
	e.publish(bus.ConsolidatedSubject("acme"), memory.ConsolidatedEvent{Tenant: "acme", Epoch: "e1"})
	e.remember("m1", memory.StoredInserted)
	rcv.waitDistinct(t, 2)
	if n := len(rcv.all()); n != e.cfg.MaxAttempts+1 {
		t.Fatalf("%d requests, want %d attempts of the epoch and one of the memory", n, e.cfg.MaxAttempts)
	}
	reason := deadLetterReason(t, e, v.ID)
	if !strings.Contains(reason, "answered 503") || !strings.Contains(reason, "max deliver") {
		t.Fatalf("dead letter reason %q", reason)
	}
}

func deadLetterReason(t *testing.T, e *env, id string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	deadline := time.Now().Add(waitFor)
	for {
		s, err := e.bus.JetStream().Stream(ctx, bus.StreamDLQ)
		if err != nil {
			t.Fatal(err)
		}
		m, err := s.GetLastMsgForSubject(ctx, bus.DLQSubject(durablePrefix+id))
		if err == nil {
			return m.Header.Get(bus.HeaderDLQReason)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no dead letter for %s: %v", id, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// After a rotation both secrets sign until the grace ends.
func TestRotationSignsWithBothSecrets(t *testing.T) {
	e := newEnv(t, testConfig())
	rcv := newReceiver(t, nil)
	v := e.create(rcv.srv.URL)
	var rotated View
	if code := e.call("POST", "/v1/webhooks/"+v.ID+"/rotate", nil, &rotated); code != http.StatusOK {
		t.Fatalf("rotate: %d", code)
	}
	if rotated.Secret == "" || rotated.Secret == v.Secret {
		t.Fatalf("rotation gave secret %q", rotated.Secret)
	}
	e.startSender(nil)
	e.remember("m1", memory.StoredInserted)
	h := rcv.waitDistinct(t, 1)[0]
	verifyHit(t, v.Secret, h)
	verifyHit(t, rotated.Secret, h)
	if n := len(strings.Fields(h.sig)); n != 2 {
		t.Fatalf("%d signatures, want 2: %q", n, h.sig)
	}
	// GET never shows a secret.
	var list ListResponse
	if code := e.call("GET", "/v1/webhooks", nil, &list); code != http.StatusOK || len(list.Webhooks) != 1 || list.Webhooks[0].Secret != "" {
		t.Fatalf("list: %d %+v", code, list)
	}
}

// A sender that dies holding a message without acknowledging it (its
// connection cut, as by kill -9) loses nothing: another sender delivers
// everything, in order, after the ack wait.
func TestSenderCrashLosesNothing(t *testing.T) {
	e := newEnv(t, testConfig())
	release := make(chan struct{})
	first := make(chan struct{})
	rcv := newReceiver(t, func(n int, h hit) int {
		if n == 0 {
			close(first)
			<-release // the crashed sender never hears back
		}
		return http.StatusOK
	})
	v := e.create(rcv.srv.URL)

	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	doomed, err := bus.Open(ctx, bus.Config{URL: e.bus.ClientURL()}, e.log)
	if err != nil {
		t.Fatal(err)
	}
	e.startSender(doomed)
	for i := range 5 {
		e.remember("m"+strconv.Itoa(i), memory.StoredInserted)
	}
	select {
	case <-first:
	case <-time.After(waitFor):
		t.Fatal("the first delivery never arrived")
	}
	doomed.Conn().Close() // no ack, no stop: what the server sees of a kill -9
	close(release)

	e.startSender(nil)
	got := rcv.waitDistinct(t, 5)
	for i, h := range got {
		var d MemoryData
		_ = json.Unmarshal(h.payload.Data, &d)
		if d.ID != "m"+strconv.Itoa(i) {
			t.Fatalf("event %d is about %s, want m%d", i, d.ID, i)
		}
		verifyHit(t, v.Secret, h)
	}
	if all := rcv.all(); all[0].id != all[1].id {
		t.Fatalf("the unacknowledged first event was not redelivered first: %v then %v", all[0].id, all[1].id)
	}
}

// Endpoints and secrets survive a restart of the bus.
func TestEndpointsSurviveRestart(t *testing.T) {
	e := newEnv(t, testConfig())
	v := e.create("http://127.0.0.1:1/hook")
	before, _, err := e.store.Get(context.Background(), "acme", v.ID)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	_ = e.bus.Close()
	b, err := bus.Open(ctx, bus.Config{DataDir: e.busDir}, e.log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	st, err := OpenStore(ctx, b.JetStream())
	if err != nil {
		t.Fatal(err)
	}
	after, _, err := st.Get(ctx, "acme", v.ID)
	if err != nil || after.Secrets[0].Key != v.Secret || after.URL != before.URL {
		t.Fatalf("after restart: %+v, %v", after, err)
	}
}

// Without the operator's leave, private, loopback and link-local
// addresses are refused at registration and at connection.
func TestRefusesNonPublicAddresses(t *testing.T) {
	cfg := testConfig()
	cfg.AllowPrivate = false
	e := newEnv(t, cfg)
	for _, u := range []string{"http://127.0.0.1:8080/h", "http://[::1]/h", "http://10.1.2.3/h", "http://192.168.0.1/h",
		"http://169.254.169.254/latest", "http://100.64.0.1/h", "http://0.0.0.0/h", "http://localhost/h", "ftp://example.com/", "http://user:pw@example.com/"} {
		var v View
		if code := e.call("POST", "/v1/webhooks", CreateRequest{URL: u}, &v); code != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", u, code)
		}
	}
	// One that got in (registered before the operator disallowed it, or
	// re-resolving) is refused when dialled and dead-lettered with why.
	rcv := newReceiver(t, nil)
	ep := Endpoint{ID: newID(), Tenant: "acme", URL: rcv.srv.URL, Created: time.Now().UTC(), Secrets: []Secret{{Key: newSecret(), Created: time.Now()}}}
	if err := e.store.Create(context.Background(), ep); err != nil {
		t.Fatal(err)
	}
	e.startSender(nil)
	e.remember("m1", memory.StoredInserted)
	if reason := deadLetterReason(t, e, ep.ID); !strings.Contains(reason, "address not allowed") {
		t.Fatalf("dead letter reason %q", reason)
	}
	if n := len(rcv.all()); n != 0 {
		t.Fatalf("the refused receiver got %d requests", n)
	}
}

// No secret reaches the logs, whatever happens to deliveries.
func TestSecretNeverLogged(t *testing.T) {
	e := newEnv(t, testConfig())
	rcv := newReceiver(t, func(n int, h hit) int {
		if n%2 == 0 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	v := e.create(rcv.srv.URL)
	var rotated View
	e.call("POST", "/v1/webhooks/"+v.ID+"/rotate", nil, &rotated)
	e.startSender(nil)
	e.remember("m1", memory.StoredInserted)
	e.remember("m2", memory.StoredInserted)
	rcv.waitDistinct(t, 2)
	if code := e.call("DELETE", "/v1/webhooks/"+v.ID, nil, nil); code != http.StatusNoContent {
		t.Fatalf("delete: %d", code)
	}
	logs := e.logs.String()
	for _, s := range []string{v.Secret, rotated.Secret} {
		key := strings.TrimPrefix(s, secretPrefix)
		if key == "" || strings.Contains(logs, key) {
			t.Fatalf("a secret is in the logs")
		}
	}
	if !strings.Contains(logs, "webhook secret rotated") || !strings.Contains(logs, "handler failed; will retry") {
		t.Fatalf("the logs miss the events the check is meant to cover")
	}
	// The removed endpoint's consumer is gone.
	deadline := time.Now().Add(waitFor)
	for {
		_, err := e.bus.JetStream().Consumer(context.Background(), bus.StreamEvent, durablePrefix+v.ID)
		if err != nil && strings.Contains(err.Error(), jetstream.ErrConsumerNotFound.Error()) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("consumer of a deleted webhook still there: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The Go client manages endpoints and verifies what a receiver gets.
func TestClientManagesAndVerifies(t *testing.T) {
	e := newEnv(t, testConfig())
	rcv := newReceiver(t, nil)
	c := client.New(e.api.URL)
	ctx := context.Background()
	w, err := c.CreateWebhook(ctx, client.CreateWebhookRequest{URL: rcv.srv.URL, Types: []string{TypeMemoryStored}})
	if err != nil || w.Secret == "" {
		t.Fatalf("create: %+v %v", w, err)
	}
	e.startSender(nil)
	e.remember("m1", memory.StoredUpdated) // not subscribed
	e.remember("m2", memory.StoredInserted)
	h := rcv.waitDistinct(t, 1)[0]
	hdr := http.Header{}
	hdr.Set(HeaderID, h.id)
	hdr.Set(HeaderTimestamp, h.ts)
	hdr.Set(HeaderSignature, h.sig)
	if err := client.VerifyWebhook(w.Secret, hdr, h.body, 5*time.Minute, time.Now()); err != nil || h.payload.Type != TypeMemoryStored {
		t.Fatalf("verify %s: %v", h.payload.Type, err)
	}
	if err := client.VerifyWebhook(w.Secret, hdr, append(h.body, ' '), 5*time.Minute, time.Now()); err == nil {
		t.Fatal("a changed body verified")
	}
	if err := client.VerifyWebhook(w.Secret, hdr, h.body, 5*time.Minute, time.Now().Add(time.Hour)); err == nil {
		t.Fatal("a stale timestamp verified")
	}
	rotated, err := c.RotateWebhookSecret(ctx, "", w.ID)
	if err != nil || rotated.Secret == w.Secret {
		t.Fatalf("rotate: %v", err)
	}
	list, err := c.Webhooks(ctx, "")
	if err != nil || len(list) != 1 || list[0].Secret != "" || list[0].Types[0] != TypeMemoryStored {
		t.Fatalf("list: %+v %v", list, err)
	}
	if err := c.DeleteWebhook(ctx, "", w.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteWebhook(ctx, "", w.ID); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
}
