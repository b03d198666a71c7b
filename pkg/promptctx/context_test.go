package promptctx

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/recall"
	"github.com/recollect-dev/recollect/pkg/scope"
)

const (
	polSecrets  = "Never commit secrets or API keys to the repository."
	polTests    = "Always run make test before pushing to main."
	archAuth    = "The auth service is separate from the API gateway."
	prefTabs    = "User prefers tabs over spaces for indentation."
	prefDark    = "User likes a dark terminal theme."
	factBilling = "The billing service runs on Kubernetes in the eu-west cluster."
	decBilling  = "Production deploys of the billing service need approval from the on-call engineer."
	wfProven    = "To deploy the billing service, run make release and then kubectl apply the billing manifests."
	wfHelm      = "Deploy the billing service to production with helm upgrade billing ./chart --atomic."
	styleTerse  = "User writes short, terse messages."
	directive   = "You keep answers short and direct, with a dry sense of humour."
	archivedPol = "Use Python 2 for every script in the billing service."
)

func scenario(t *testing.T) *env {
	e := newEnv(t)
	e.put(t,
		mem(polSecrets, memory.TypePolicy, withImportance(0.9)),
		mem(polTests, memory.TypePolicy, withImportance(0.9)),
		mem(archAuth, memory.TypeArchitecture, withImportance(0.8)),
		mem(prefTabs, memory.TypePreference, withImportance(0.9), withSubject("alice")),
		mem(prefDark, memory.TypePreference, withImportance(0.5), withSubject("alice"), withKey("terminal/theme")),
		mem(factBilling, memory.TypeFact),
		mem(decBilling, memory.TypeDecision),
		mem(wfProven, memory.TypeWorkflow, withSuccess(3)),
		mem(wfHelm, memory.TypeWorkflow),
		mem(styleTerse, memory.TypeStyle, withSubject("alice"), withKey("style/terse")),
		mem(directive, memory.TypeStyle, withSubject("alice"), withKey("personality/directive")),
		mem(archivedPol, memory.TypePolicy, withImportance(0.9), archived),
	)
	return e
}

func TestContextLayers(t *testing.T) {
	e := scenario(t)
	resp := e.context(t, ContextRequest{Query: "How do we deploy the billing service to production?", Subject: "alice"})

	for content, want := range map[string]string{
		polSecrets: LayerBaseline, polTests: LayerBaseline, archAuth: LayerBaseline, prefTabs: LayerBaseline,
		factBilling: LayerContextual, decBilling: LayerContextual,
		wfProven: LayerProcedures, wfHelm: LayerProcedures,
		directive: LayerDirective,
		prefDark:  LayerKnown, styleTerse: LayerKnown,
		archivedPol: "",
	} {
		if got := layerOf(resp, content); got != want {
			t.Errorf("%q is in layer %q, want %q\n%s", content, got, want, resp.Context)
		}
	}
	if got := contents(resp, LayerBaseline); !slices.Equal(got[:2], []string{polSecrets, polTests}) && !slices.Equal(got[:2], []string{polTests, polSecrets}) {
		t.Errorf("policies (critical) must lead the baseline, got %q", got)
	}
	if got := contents(resp, LayerProcedures); got[0] != wfProven {
		t.Errorf("the proven workflow must come first, got %q", got)
	}
	heads := []string{"## Baseline", "## Recalled Context", "### General Knowledge", "## Procedures", "## Personality (Learned)", "## What You Know"}
	last := -1
	for _, h := range heads {
		i := strings.Index(resp.Context, h)
		if i < 0 || i < last {
			t.Fatalf("heading %q missing or out of order:\n%s", h, resp.Context)
		}
		last = i
	}
	if !strings.Contains(resp.Context, "- [policy] "+polSecrets) || !strings.Contains(resp.Context, wfProven+" (worked 3 times)") ||
		!strings.Contains(resp.Context, "- terminal/theme: "+prefDark) {
		t.Errorf("lines are not formatted as expected:\n%s", resp.Context)
	}
	for _, l := range []string{LayerBaseline, LayerContextual, LayerProcedures, LayerDirective, LayerKnown} {
		if resp.Layers[l] == 0 {
			t.Errorf("layer %s has no tokens: %v", l, resp.Layers)
		}
	}
	if resp.Budget != 800 || resp.Tokenizer != "cl100k_base" {
		t.Errorf("budget %d tokenizer %q, want the 800 default and cl100k_base", resp.Budget, resp.Tokenizer)
	}
}

func TestContextRecalledContextMatchesRecallBlock(t *testing.T) {
	e := scenario(t)
	resp := e.context(t, ContextRequest{Query: "How do we deploy the billing service to production?", Subject: "alice"})
	var rs []recall.Result
	for _, inc := range resp.Memories {
		if inc.Layer == LayerContextual {
			rs = append(rs, recall.Result{Memory: inc.Memory})
		}
	}
	block := e.a.recaller.Block(rs)
	if block == "" || !strings.Contains(resp.Context, block) {
		t.Fatalf("the contextual layer is not 000's block:\nwant within it\n%s\ngot\n%s", block, resp.Context)
	}
}

func TestContextLayerPriority(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.PerDomain = 9 }) // one domain, so that recall can overflow
	e.put(t, mem(polSecrets, memory.TypePolicy, withImportance(0.9)), mem(archAuth, memory.TypeArchitecture))
	var many []memory.Memory
	for _, region := range []string{"eu-west", "us-east", "ap-south", "sa-east", "ca-central", "me-south", "af-south", "eu-north"} {
		many = append(many, mem("The billing service has a replica in the "+region+" region behind the regional load balancer, and its deploys go through the "+region+" pipeline with a manual approval step.", memory.TypeFact))
	}
	e.put(t, many...)
	q := "Where does the billing service run and how is it deployed?"

	wide := e.context(t, ContextRequest{Query: q, Budget: 4000})
	if n := len(contents(wide, LayerContextual)); n < 4 {
		t.Fatalf("with room, the contextual layer should hold several memories, got %d", n)
	}
	base := wide.Layers[LayerBaseline]
	for _, budget := range []int{base + 40, base + 80, base + 120} {
		resp := e.context(t, ContextRequest{Query: q, Budget: budget})
		if got := contents(resp, LayerBaseline); len(got) != 2 {
			t.Fatalf("budget %d: baseline lost memories when recall overflowed: %q", budget, got)
		}
		if n := len(contents(resp, LayerContextual)); n >= len(contents(wide, LayerContextual)) {
			t.Fatalf("budget %d: contextual layer did not overflow (%d memories)", budget, n)
		}
	}
	// Exactly the baseline's room: nothing else fits, the baseline stays whole.
	tight := e.context(t, ContextRequest{Query: q, Budget: base})
	if len(contents(tight, LayerBaseline)) != 2 || len(contents(tight, LayerContextual)) != 0 {
		t.Fatalf("budget %d: want only the baseline, got %v", base, tight.Layers)
	}
	// Below it, whole baseline lines go, never part of one.
	small := e.context(t, ContextRequest{Query: q, Budget: base - 1})
	if len(contents(small, LayerBaseline)) != 1 {
		t.Fatalf("budget %d: want one whole baseline memory, got %q", base-1, contents(small, LayerBaseline))
	}
}

func TestContextProcedures(t *testing.T) {
	const (
		pHelm    = "Deploy the billing service with helm upgrade billing ./chart --atomic."
		pMake    = "To deploy billing, run make release and then kubectl apply the billing manifests."
		pTag     = "Billing service deploy: tag the release, wait for CI, then run the deploy-billing job."
		pScript  = "Deploy billing through the script tools/deploy-billing.sh on the bastion host."
		pCerts   = "To rotate TLS certificates, run certbot renew on the edge nodes."
		pUnknown = "Clean the build cache with go clean -cache when builds act strangely."
	)
	e := newEnv(t)
	e.put(t,
		mem(pHelm, memory.TypeWorkflow),
		mem(pMake, memory.TypeProcedure, withSuccess(1)),
		mem(pTag, memory.TypeWorkflow, withSuccess(5)),
		mem(pScript, memory.TypeWorkflow),
		mem(pCerts, memory.TypeProcedure, withSuccess(2)),
		mem(pUnknown, memory.TypeWorkflow),
	)
	t.Run("no task context: proven first, by success", func(t *testing.T) {
		got := contents(e.context(t, ContextRequest{}), LayerProcedures)
		if want := []string{pTag, pCerts, pMake}; !slices.Equal(got, want) {
			t.Fatalf("procedures %q, want %q", got, want)
		}
	})
	t.Run("matched by the task, proven first", func(t *testing.T) {
		resp := e.context(t, ContextRequest{Query: "deploy the billing service"})
		got := contents(resp, LayerProcedures)
		if len(got) != 3 {
			t.Fatalf("want the top 3 procedures, got %q", got)
		}
		if !slices.Contains(got, pTag) || !slices.Contains(got, pMake) {
			t.Fatalf("the proven billing procedures are missing: %q", got)
		}
		if slices.Contains(got, pUnknown) {
			t.Fatalf("a procedure unrelated to the task was included: %q", got)
		}
		proven := true
		for _, inc := range resp.Memories {
			if inc.Layer != LayerProcedures {
				continue
			}
			if inc.Memory.SuccessCount > 0 && !proven {
				t.Fatalf("a proven procedure follows an unproven one: %q", got)
			}
			proven = inc.Memory.SuccessCount > 0
		}
	})
	t.Run("configured size", func(t *testing.T) {
		e.a.cfg.Procedures = 1
		defer func() { e.a.cfg.Procedures = 3 }()
		if got := contents(e.context(t, ContextRequest{}), LayerProcedures); !slices.Equal(got, []string{pTag}) {
			t.Fatalf("procedures %q, want only %q", got, pTag)
		}
	})
}

func TestContextScope(t *testing.T) {
	const (
		goPitfall = "Do not use init functions in Go packages; wire dependencies explicitly in main."
		pyPitfall = "Do not use mutable default arguments in Python functions."
		pyPolicy  = "Python code must pass ruff before it is committed."
		errScoped = "Errors in this codebase are wrapped with fmt.Errorf and the %w verb, naming what was being done."
	)
	e := newEnv(t)
	e.put(t,
		mem(goPitfall, memory.TypePitfall, withScope("**/*.go")),
		mem(pyPitfall, memory.TypePitfall, withScope("**/*.py")),
		mem(pyPolicy, memory.TypePolicy, withImportance(0.9), withScope("**/*.py")),
		mem(polSecrets, memory.TypePolicy, withImportance(0.9)),
		mem(errScoped, memory.TypeFact, withScope("pkg/**/*.go")),
		mem("Errors are returned to callers, never logged and returned both.", memory.TypeFact),
	)
	q := "How should errors be handled in this code?"
	withFile := e.context(t, ContextRequest{Query: q, FilePath: "pkg/a/b.go"})
	for content, want := range map[string]string{goPitfall: LayerContextual, pyPitfall: "", pyPolicy: "", polSecrets: LayerBaseline, errScoped: LayerContextual} {
		if got := layerOf(withFile, content); got != want {
			t.Errorf("with a Go file, %q is in %q, want %q\n%s", content, got, want, withFile.Context)
		}
	}
	for _, inc := range withFile.Memories {
		if len(inc.Memory.Scope) > 0 && scope.FitOf(inc.Memory.Scope, "pkg/a/b.go") != scope.Match {
			t.Errorf("memory scoped to %q included for pkg/a/b.go", inc.Memory.Scope)
		}
		if inc.Memory.Content == errScoped && !inc.ScopeMatch {
			t.Errorf("scope match not reported")
		}
	}
	// A scope match ranks higher: the same memory scores ScopeBoost times
	// more with the file than without, and leads its domain.
	without := e.context(t, ContextRequest{Query: q})
	if layerOf(without, pyPolicy) != LayerBaseline {
		t.Errorf("without a file, scoped memories are not excluded:\n%s", without.Context)
	}
	score := func(r ContextResponse, content string) float64 {
		for _, inc := range r.Memories {
			if inc.Memory.Content == content {
				return inc.Score
			}
		}
		t.Fatalf("%q not in the block:\n%s", content, r.Context)
		return 0
	}
	if a, b := score(withFile, errScoped), score(without, errScoped)*e.a.cfg.ScopeBoost; a < b*0.999 || a > b*1.001 {
		t.Errorf("scoped score %g, want %g (boosted)", a, b)
	}
	if got := contents(withFile, LayerContextual); len(got) == 0 || got[0] != errScoped && got[0] != goPitfall {
		t.Errorf("scoped memories should lead the contextual layer, got %q", got)
	}
}

func TestContextExclusions(t *testing.T) {
	e := newEnv(t)
	past, future := testNow.Add(-time.Hour), testNow.Add(time.Hour)
	e.put(t,
		mem("The billing database is PostgreSQL 15.", memory.TypeFact),
		mem("The billing database was MySQL 5.7.", memory.TypeFact, func(m *memory.Memory) { m.InvalidAt = &past }),
		mem("The billing database moves to PostgreSQL 16 next week.", memory.TypeFact, func(m *memory.Memory) { m.InvalidAt = &future }),
		mem("The billing database password rotation is monthly.", memory.TypeFact, archived),
		mem("user: which billing database do we use again?", memory.TypeEpisode, withTags(recall.TranscriptTag)),
		mem("Bob's billing database is SQLite on his laptop.", memory.TypeFact, withSubject("bob")),
		mem("The other project's billing database is Oracle.", memory.TypeFact, func(m *memory.Memory) { m.Namespace = "other" }),
		mem("Never drop the billing database.", memory.TypePolicy, withImportance(0.9), archived),
		mem("Another tenant's billing database is DynamoDB.", memory.TypeFact, func(m *memory.Memory) { m.Tenant = "globex" }),
	)
	resp := e.context(t, ContextRequest{Query: "Which billing database do we use?", Subject: "alice", Namespace: "proj"})
	var got, quoted []string
	for _, inc := range resp.Memories {
		if inc.Layer == LayerConversations {
			quoted = append(quoted, inc.Memory.Content)
			continue
		}
		got = append(got, inc.Memory.Content)
	}
	// What was said is quoted apart, under its heading, never as a fact.
	if !slices.Equal(quoted, []string{"user: which billing database do we use again?"}) ||
		!strings.Contains(resp.Context, "## From Earlier Conversations") {
		t.Errorf("quoted %q\n%s", quoted, resp.Context)
	}
	// An invalid_at in the future is a supersession too: it leaves context.
	want := []string{"The billing database is PostgreSQL 15."}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("block holds %q, want only %q\n%s", got, want, resp.Context)
	}
}

func TestContextNoDuplicates(t *testing.T) {
	e := newEnv(t)
	e.put(t,
		mem(prefTabs, memory.TypePreference, withImportance(0.9)),
		mem("User prefers gofmt formatting with tabs.", memory.TypePreference),
		mem("User prefers gofmt formatting with tabs.", memory.TypePreference, func(m *memory.Memory) { m.Namespace = "proj" }),
		mem("Indentation in YAML files is two spaces.", memory.TypeFact),
		mem("Indentation style: tabs for Go, two spaces for YAML.", memory.TypeStyle, withKey("style/indentation")),
		mem("Makefiles need tab indentation.", memory.TypePitfall, withScope("**/Makefile")),
	)
	resp := e.context(t, ContextRequest{Query: "How should I indent code?", Namespace: "proj", FilePath: "Makefile", Budget: 2000})
	count := map[string]int{}
	for _, inc := range resp.Memories {
		count[inc.Memory.Content]++
	}
	for c, n := range count {
		if n != 1 || strings.Count(resp.Context, c) != 1 {
			t.Errorf("%q appears %d times in the list and %d in the block", c, n, strings.Count(resp.Context, c))
		}
	}
	if len(count) != 5 {
		t.Errorf("want 5 distinct memories, got %d: %v\n%s", len(count), count, resp.Context)
	}
	if layerOf(resp, prefTabs) != LayerBaseline {
		t.Errorf("a high-priority preference belongs in the baseline even when recalled:\n%s", resp.Context)
	}
}

func TestContextWhatYouKnow(t *testing.T) {
	e := newEnv(t)
	var ms []memory.Memory
	for i, s := range []string{"humor-dry", "terse", "uses-emoji", "formal", "asks-why", "lowercase"} {
		ms = append(ms, mem("Style observation "+s+".", memory.TypeStyle, withKey("style/"+s), func(m *memory.Memory) { m.AccessCount = 10 - i }))
	}
	ms = append(ms,
		mem("User's name is Alice.", memory.TypeEntity, withKey("person/alice"), func(m *memory.Memory) { m.AccessCount = 4 }),
		mem("User may live in Berlin.", memory.TypeFact, withConfidence(memory.ConfidenceInferred), func(m *memory.Memory) { m.AccessCount = 50 }),
		mem("User works at a bank, probably.", memory.TypeFact, withConfidence(0.64)),
		mem("User chose SQLite for the prototype.", memory.TypeDecision, withAge(200*24*time.Hour)),
		mem("User's team is called Payments.", memory.TypeEntity),
	)
	e.put(t, ms...)
	resp := e.context(t, ContextRequest{})
	got := contents(resp, LayerKnown)
	want := []string{
		"Style observation humor-dry.", "Style observation terse.", "Style observation uses-emoji.",
		"User's name is Alice.", "User's team is called Payments.", "User chose SQLite for the prototype.",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("What You Know holds\n%q\nwant\n%q", got, want)
	}
	if !strings.Contains(resp.Context, "## What You Know\n") || !strings.Contains(resp.Context, "- person/alice: User's name is Alice.") {
		t.Fatalf("section not rendered as 001's:\n%s", resp.Context)
	}
	e.a.cfg.MaxStyle = 1
	if n := len(contents(e.context(t, ContextRequest{}), LayerKnown)); n != 4 {
		t.Fatalf("with one style slot want 4 memories, got %d", n)
	}
}

func TestContextDirective(t *testing.T) {
	e := newEnv(t)
	e.put(t,
		mem(directive, memory.TypeStyle, withSubject("alice"), withKey("Personality/Directive")),
		mem("You answer formally and at length.", memory.TypeStyle, withSubject("bob"), withKey("personality/directive")),
		mem("You are cheerful.", memory.TypeStyle, withSubject("alice"), withKey("personality/directive"), withAge(48*time.Hour)),
	)
	for _, c := range []struct {
		subject, want string
	}{{"alice", directive}, {"bob", "You answer formally and at length."}, {"carol", ""}, {"", ""}} {
		t.Run(c.subject, func(t *testing.T) {
			resp := e.context(t, ContextRequest{Subject: c.subject})
			got := contents(resp, LayerDirective)
			if c.want == "" {
				if len(got) != 0 || strings.Contains(resp.Context, "Personality") {
					t.Fatalf("no directive expected, got %q", got)
				}
				return
			}
			if !slices.Equal(got, []string{c.want}) || !strings.Contains(resp.Context, "## Personality (Learned)\n"+c.want+"\n") {
				t.Fatalf("directive %q, want %q\n%s", got, c.want, resp.Context)
			}
			if len(resp.Memories) != 1 {
				t.Fatalf("directives must not appear elsewhere: %+v", resp.Memories)
			}
		})
	}
}

func TestContextReadOnly(t *testing.T) {
	e := scenario(t)
	before := e.snapshot(t, "acme")
	e.context(t, ContextRequest{Query: "How do we deploy the billing service?", Subject: "alice", FilePath: "deploy/billing.yaml"})
	e.context(t, ContextRequest{})
	if _, err := e.a.Resume(t.Context(), ResumeRequest{Tenant: "acme", SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	sameMemories(t, before, e.snapshot(t, "acme"))
}

func TestContextValidation(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		name  string
		req   ContextRequest
		field string
	}{
		{"tenant", ContextRequest{Tenant: "a.b"}, "tenant"},
		{"namespace", ContextRequest{Namespace: "a b"}, "namespace"},
		{"budget negative", ContextRequest{Budget: -1}, "budget"},
		{"budget too large", ContextRequest{Budget: 1 << 20}, "budget"},
		{"subject", ContextRequest{Subject: strings.Repeat("s", 65)}, "subject"},
		{"file path control", ContextRequest{FilePath: "a\x00b"}, "file_path"},
		{"query", ContextRequest{Query: strings.Repeat("q ", recall.MaxQueryChars)}, "query"},
		{"as_of", ContextRequest{Query: "deploy", AsOf: recall.At(time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC))}, "as_of"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.a.Context(t.Context(), c.req)
			var fe *memory.FieldError
			if !asFieldError(err, &fe) || fe.Field != c.field {
				t.Fatalf("error %v, want a field error on %s", err, c.field)
			}
		})
	}
}

func TestContextWithoutRecaller(t *testing.T) {
	e := scenario(t)
	a, err := New(DefaultConfig(), e.st, nil, nil, e.a.domains, e.a.tok, e.a.now)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := a.Context(t.Context(), ContextRequest{Tenant: "acme", Query: "How do we deploy the billing service?", Subject: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	checkContext(t, a.tok, resp)
	if len(contents(resp, LayerContextual)) != 0 || len(contents(resp, LayerBaseline)) != 4 {
		t.Fatalf("without recall, want the baseline and no contextual layer: %v", resp.Layers)
	}
	if _, err := a.Resume(t.Context(), ResumeRequest{Tenant: "acme"}); err != nil {
		t.Fatalf("resume without trees: %v", err)
	}
}

func TestContextEmptyTenant(t *testing.T) {
	e := newEnv(t)
	resp := e.context(t, ContextRequest{Tenant: "nobody", Query: "anything at all?", FilePath: "a.go"})
	if resp.Context != "" || resp.Tokens != 0 || len(resp.Memories) != 0 {
		t.Fatalf("empty tenant gave %+v", resp)
	}
}
