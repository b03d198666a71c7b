package devchatgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// A topic is a technical subject a long thread is about: the assistant
// answers it at length (prose, code, a test, caveats), thousands of
// characters that share the topic's words with any question about it.
type topic struct {
	name  string // as people write it: "rate limiting"
	ident string // for code identifiers: "RateLimit"
	key   string // a config key: "rate_limit"
	// asks are user requests that start or continue a thread (%s: the
	// project).
	asks []string
}

var (
	topicRateLimit = topic{"rate limiting", "RateLimit", "rate_limit", []string{
		"How should I implement rate limiting for the public API of %s?",
		"Can you review how %s does rate limiting per API key? Clients keep hitting 429s.",
		"What's the cleanest way to test the rate limiting middleware of %s?"}}
	topicRetention = topic{"log retention", "Retention", "retention", []string{
		"How do I set up log retention for %s so old logs get cleaned up?",
		"Can you write the job that enforces log retention in %s?",
		"How do I make sure the log retention of %s actually deletes what it should?"}}
	topicUploads = topic{"file uploads", "Upload", "upload", []string{
		"How should %s handle large file uploads without blowing up memory?",
		"Can you write the upload handler for %s with a size check?",
		"What's the best way to reject oversized uploads early in %s?"}}
	topicLatency = topic{"latency monitoring", "Latency", "latency", []string{
		"How do I measure request latency per endpoint in %s?",
		"Can you add latency histograms and an alert to %s?",
		"Where does the latency of %s come from? I want a breakdown per handler."}}
	topicPool = topic{"database connection pooling", "Pool", "db_pool", []string{
		"How should I configure database connection pooling in %s?",
		"Can you explain why %s runs out of database connections under load?",
		"How do I expose the database pool stats of %s as metrics?"}}
	topicTimeouts = topic{"HTTP client timeouts", "Client", "http_client", []string{
		"How should the outgoing HTTP client of %s handle timeouts and retries?",
		"Can you write a wrapper for the HTTP client in %s with proper timeouts?",
		"Why do requests from %s sometimes hang forever?"}}
	topicCache = topic{"response caching", "Cache", "cache", []string{
		"How should %s cache its expensive responses?",
		"Can you write the caching layer for %s with invalidation?",
		"How do I test that the cache in %s expires entries correctly?"}}
	topicWorkers = topic{"the background worker pool", "Worker", "workers", []string{
		"How do I size the background worker pool of %s?",
		"Can you rewrite the job runner of %s so workers shut down cleanly?",
		"Why does the worker pool of %s stall when one job is slow?"}}
	topicBatches = topic{"batch imports", "Batch", "batch", []string{
		"How should %s split its imports into batches?",
		"Can you write the batched import loop for %s with progress logging?",
		"How do I make the batch import of %s resumable after a crash?"}}
	topicRetries = topic{"retries for failed jobs", "Retry", "retry", []string{
		"How should %s retry jobs that fail?",
		"Can you write a retry policy with backoff and jitter for %s?",
		"How do I stop %s from retrying jobs that can never succeed?"}}
)

// longAnswer is the assistant's long answer on t in p's language: an
// introduction, a code listing, caveats, a test and a closing line;
// 2,500–5,000 characters. It names no value a fact of the thread states.
func longAnswer(r *rand.Rand, p project, t topic) string {
	var b strings.Builder
	b.WriteString(fmt.Sprintf(pick(r, []string{
		"Good question; %[2]s in %[1]s is easy to get subtly wrong, so here is the whole thing rather than a sketch. ",
		"Here's how I would structure %[2]s for %[1]s, end to end, with the code first and the reasoning after. ",
		"Let's do %[2]s in %[1]s properly. I'll keep it in one place so it is easy to review and to test. ",
	}), p.name, t.name))
	b.WriteString(fmt.Sprintf("The idea is to keep the %s logic behind one small type with its settings injected, so the handlers of %s never deal with it directly and the tests can drive it with a fake clock.\n\n",
		t.name, p.name))
	b.WriteString(codeListing(r, p, t))
	b.WriteString("\n\nA few things to watch:\n\n")
	for _, c := range distinct(r, caveats, 4+r.IntN(3)) {
		b.WriteString("- " + fmt.Sprintf(c, t.name, p.name) + "\n")
	}
	b.WriteString("\nAnd a test that pins the behaviour down:\n\n")
	b.WriteString(testListing(r, p, t))
	b.WriteString("\n\n" + fmt.Sprintf(pick(r, []string{
		"If you paste the current %[1]s code of %[2]s I can point out where it differs from this.",
		"Once this is in, the %[1]s settings of %[2]s live in one config block and nothing else needs to change.",
		"That should cover %[1]s for %[2]s; the next step would be a dashboard panel for it.",
	}), t.name, p.name))
	return b.String()
}

var caveats = []string{
	"Keep the %s settings in config, not in code, so ops can change them for %s without a deploy.",
	"Log once when %s kicks in, with the key and the reason, but never on every request: the logs of %s would drown.",
	"Export a counter for every decision %s makes; without it nobody can tell whether the settings of %s are right.",
	"Make the clock injectable. Tests of %s that sleep are slow and flaky, and %s's CI is slow enough already.",
	"Guard the shared state with one mutex and keep the critical section tiny; %s sits on the hot path of %s.",
	"Read the settings once at startup and pass them down; re-reading the %s config of %s per call costs more than it saves.",
	"Document the defaults next to the config key, so whoever touches %s in %s next knows what they mean.",
	"Fail open if the %s backend is down: a broken dependency should not take %s with it.",
	"Write the error messages for the people on call: say what %s was doing in %s and with which key.",
	"Put a load test around %s before tuning anything; the numbers of %s under real traffic will surprise you.",
}

// codeListing is a code block on t in p's language, 1,200–2,200
// characters.
func codeListing(r *rand.Rand, p project, t topic) string {
	thing := pick(r, p.things)
	lower := strings.ToLower(t.ident[:1]) + t.ident[1:]
	switch p.lang.name {
	case "Go":
		return fmt.Sprintf("```go\npackage %[3]s\n\nimport (\n\t\"context\"\n\t\"fmt\"\n\t\"log/slog\"\n\t\"net/http\"\n\t\"sync\"\n\t\"time\"\n)\n\n"+
			"// %[1]sConfig holds the %[4]s settings of %[5]s, read from the %[2]s block of the config file.\ntype %[1]sConfig struct {\n\tEnabled bool          `yaml:\"enabled\"`\n\tWindow  time.Duration `yaml:\"window\"`\n\tLimit   int           `yaml:\"limit\"`\n\tBurst   int           `yaml:\"burst\"`\n}\n\n"+
			"// %[1]s applies the %[4]s policy per %[6]s.\ntype %[1]s struct {\n\tmu    sync.Mutex\n\tcfg   %[1]sConfig\n\tstate map[string]*%[7]sState\n\tnow   func() time.Time\n\tlog   *slog.Logger\n}\n\n"+
			"type %[7]sState struct {\n\tstarted time.Time\n\tcount   int\n}\n\n"+
			"func New%[1]s(cfg %[1]sConfig, now func() time.Time, log *slog.Logger) *%[1]s {\n\treturn &%[1]s{cfg: cfg, state: map[string]*%[7]sState{}, now: now, log: log}\n}\n\n"+
			"// Check records one use by key and says whether it is within the policy.\nfunc (x *%[1]s) Check(ctx context.Context, key string) (bool, error) {\n\tif !x.cfg.Enabled {\n\t\treturn true, nil\n\t}\n\tif key == \"\" {\n\t\treturn false, fmt.Errorf(\"%[4]s: empty %[6]s key\")\n\t}\n\tx.mu.Lock()\n\tdefer x.mu.Unlock()\n\tnow := x.now()\n\ts, ok := x.state[key]\n\tif !ok || now.Sub(s.started) >= x.cfg.Window {\n\t\ts = &%[7]sState{started: now}\n\t\tx.state[key] = s\n\t}\n\ts.count++\n\tif s.count > x.cfg.Limit+x.cfg.Burst {\n\t\tx.log.WarnContext(ctx, \"%[4]s refused\", \"key\", key, \"count\", s.count)\n\t\treturn false, nil\n\t}\n\treturn true, nil\n}\n\n"+
			"// Middleware applies Check to every request of %[5]s, keyed by the caller.\nfunc (x *%[1]s) Middleware(next http.Handler) http.Handler {\n\treturn http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {\n\t\tok, err := x.Check(r.Context(), r.Header.Get(\"X-Api-Key\"))\n\t\tswitch {\n\t\tcase err != nil:\n\t\t\thttp.Error(w, err.Error(), http.StatusBadRequest)\n\t\tcase !ok:\n\t\t\tw.Header().Set(\"Retry-After\", fmt.Sprint(int(x.cfg.Window/time.Second)))\n\t\t\thttp.Error(w, \"try again later\", http.StatusTooManyRequests)\n\t\tdefault:\n\t\t\tnext.ServeHTTP(w, r)\n\t\t}\n\t})\n}\n```",
			t.ident, t.key, pkgName(t.key), t.name, p.name, thing, lower)
	case "Python":
		return fmt.Sprintf("```python\nfrom __future__ import annotations\n\nimport logging\nimport threading\nimport time\nfrom dataclasses import dataclass, field\nfrom typing import Callable\n\nlog = logging.getLogger(\"%[5]s.%[2]s\")\n\n\n"+
			"@dataclass(frozen=True)\nclass %[1]sConfig:\n    \"\"\"The %[4]s settings of %[5]s, read from the [%[2]s] table.\"\"\"\n\n    enabled: bool = True\n    window: float = 60.0\n    limit: int = 100\n    burst: int = 10\n\n\n"+
			"@dataclass\nclass _State:\n    started: float\n    count: int = 0\n\n\n"+
			"@dataclass\nclass %[1]s:\n    \"\"\"Applies the %[4]s policy per %[6]s.\"\"\"\n\n    config: %[1]sConfig\n    clock: Callable[[], float] = time.monotonic\n    _state: dict[str, _State] = field(default_factory=dict)\n    _lock: threading.Lock = field(default_factory=threading.Lock)\n\n"+
			"    def check(self, key: str) -> bool:\n        if not self.config.enabled:\n            return True\n        if not key:\n            raise ValueError(\"%[4]s: empty %[6]s key\")\n        with self._lock:\n            now = self.clock()\n            state = self._state.get(key)\n            if state is None or now - state.started >= self.config.window:\n                state = self._state[key] = _State(started=now)\n            state.count += 1\n            if state.count > self.config.limit + self.config.burst:\n                log.warning(\"%[4]s refused key=%%s count=%%d\", key, state.count)\n                return False\n            return True\n\n\n"+
			"def %[3]s_middleware(policy: %[1]s):\n    \"\"\"Wraps a view of %[5]s so every call goes through the policy.\"\"\"\n\n    def wrap(view):\n        def inner(request, *args, **kwargs):\n            if not policy.check(request.headers.get(\"X-Api-Key\", \"\")):\n                return {\"error\": \"try again later\"}, 429\n            return view(request, *args, **kwargs)\n\n        return inner\n\n    return wrap\n```",
			t.ident, t.key, pkgName(t.key), t.name, p.name, thing)
	}
	return fmt.Sprintf("```ts\nimport type { Request, Response, NextFunction } from 'express';\n\n"+
		"/** The %[4]s settings of %[5]s, read from the %[2]s section. */\nexport interface %[1]sConfig {\n  enabled: boolean;\n  windowMs: number;\n  limit: number;\n  burst: number;\n}\n\n"+
		"interface State {\n  started: number;\n  count: number;\n}\n\n"+
		"/** Applies the %[4]s policy per %[6]s. */\nexport class %[1]s {\n  private state = new Map<string, State>();\n\n  constructor(\n    private readonly config: %[1]sConfig,\n    private readonly now: () => number = Date.now,\n  ) {}\n\n"+
		"  check(key: string): boolean {\n    if (!this.config.enabled) return true;\n    if (!key) throw new Error('%[4]s: empty %[6]s key');\n    const now = this.now();\n    let s = this.state.get(key);\n    if (!s || now - s.started >= this.config.windowMs) {\n      s = { started: now, count: 0 };\n      this.state.set(key, s);\n    }\n    s.count += 1;\n    if (s.count > this.config.limit + this.config.burst) {\n      console.warn(`%[4]s refused key=${key} count=${s.count}`);\n      return false;\n    }\n    return true;\n  }\n\n"+
		"  middleware() {\n    return (req: Request, res: Response, next: NextFunction) => {\n      if (!this.check(req.header('x-api-key') ?? '')) {\n        res.setHeader('Retry-After', String(Math.ceil(this.config.windowMs / 1000)));\n        res.status(429).json({ error: 'try again later' });\n        return;\n      }\n      next();\n    };\n  }\n}\n```",
		t.ident, t.key, pkgName(t.key), t.name, p.name, thing)
}

// testListing is a test of the listing's type, 500–900 characters.
func testListing(r *rand.Rand, p project, t topic) string {
	key := pick(r, p.things) + "-" + fmt.Sprint(1+r.IntN(9))
	switch p.lang.name {
	case "Go":
		return fmt.Sprintf("```go\nfunc Test%[1]sRefusesAboveTheLimit(t *testing.T) {\n\tnow := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)\n\tx := New%[1]s(%[1]sConfig{Enabled: true, Window: time.Minute, Limit: 2, Burst: 1},\n\t\tfunc() time.Time { return now }, slog.New(slog.DiscardHandler))\n\tfor i := range 3 {\n\t\tif ok, err := x.Check(context.Background(), %[2]q); err != nil || !ok {\n\t\t\tt.Fatalf(\"call %%d: ok=%%v err=%%v\", i, ok, err)\n\t\t}\n\t}\n\tif ok, _ := x.Check(context.Background(), %[2]q); ok {\n\t\tt.Fatal(\"the fourth call was allowed\")\n\t}\n\tnow = now.Add(time.Minute)\n\tif ok, _ := x.Check(context.Background(), %[2]q); !ok {\n\t\tt.Fatal(\"a new window did not reset the count\")\n\t}\n}\n```", t.ident, key)
	case "Python":
		return fmt.Sprintf("```python\ndef test_%[2]s_refuses_above_the_limit():\n    now = [0.0]\n    policy = %[1]s(%[1]sConfig(window=60.0, limit=2, burst=1), clock=lambda: now[0])\n    assert all(policy.check(%[3]q) for _ in range(3))\n    assert not policy.check(%[3]q)\n    now[0] += 60.0\n    assert policy.check(%[3]q), \"a new window did not reset the count\"\n\n\ndef test_%[2]s_rejects_an_empty_key():\n    policy = %[1]s(%[1]sConfig())\n    with pytest.raises(ValueError):\n        policy.check(\"\")\n```", t.ident, pkgName(t.key), key)
	}
	return fmt.Sprintf("```ts\ndescribe('%[1]s', () => {\n  it('refuses above the limit', () => {\n    let now = 0;\n    const x = new %[1]s({ enabled: true, windowMs: 60_000, limit: 2, burst: 1 }, () => now);\n    for (let i = 0; i < 3; i++) expect(x.check(%[2]q)).toBe(true);\n    expect(x.check(%[2]q)).toBe(false);\n    now += 60_000;\n    expect(x.check(%[2]q)).toBe(true);\n  });\n\n  it('throws on an empty key', () => {\n    const x = new %[1]s({ enabled: true, windowMs: 1_000, limit: 1, burst: 0 });\n    expect(() => x.check('')).toThrow();\n  });\n});\n```", t.ident, key)
}

func pkgName(key string) string { return strings.ReplaceAll(key, "_", "") }
