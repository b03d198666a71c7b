package domains

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// sections splits a prompt into its Extract and Do NOT extract parts.
func sections(t *testing.T, p string) (extract, exclude string) {
	t.Helper()
	i := strings.Index(p, "\nExtract:\n")
	j := strings.Index(p, "\nDo NOT extract:\n")
	if i < 0 || j < 0 || j < i {
		t.Fatalf("prompt lacks Extract:/Do NOT extract: sections in order:\n%s", p)
	}
	return p[i:j], p[j:]
}

func TestBuiltinPromptsAreComplementary(t *testing.T) {
	r := Builtin()
	ids := r.IDs()
	if want := []string{memory.DomainToolUsage, memory.DomainUserPreferences, memory.DomainGeneral}; strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Fatalf("ids = %v, want %v", ids, want)
	}
	for _, d := range r.All() {
		t.Run(d.ID, func(t *testing.T) {
			if d.Name == "" || d.Heading == "" || d.Description == "" || d.Role == "" {
				t.Fatalf("incomplete domain %+v", d)
			}
			ext, exc := sections(t, r.Prompt(d.ID))
			for _, item := range d.Extract {
				if !strings.Contains(ext, item) {
					t.Errorf("own item %q missing from Extract", item)
				}
			}
			for _, o := range r.All() {
				if o.ID == d.ID {
					continue
				}
				for _, item := range o.Extract {
					if !strings.Contains(exc, item) {
						t.Errorf("%s's item %q missing from Do NOT extract", o.ID, item)
					}
					if strings.Contains(ext, item) {
						t.Errorf("%s's item %q is in this domain's Extract too", o.ID, item)
					}
				}
			}
			for _, c := range commonExclusions {
				if !strings.Contains(exc, c) {
					t.Errorf("common exclusion %q missing", c)
				}
			}
			if !strings.HasPrefix(r.Prompt(d.ID), d.Role) {
				t.Errorf("prompt does not open with the role line")
			}
		})
	}
	if r.Prompt("nope") != "" {
		t.Fatal("unknown domain has a prompt")
	}
}

const security = `
domains:
  - id: security
    name: Security
    heading: Security Notes
    description: security policies and threat knowledge
    extract:
      - security policies and who may access what
      - known vulnerabilities and their mitigations
    types: [policy, pitfall]
`

func TestAddDomainIsOneEntry(t *testing.T) {
	r, err := Parse(security)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Known("security") || len(r.All()) != 4 {
		t.Fatalf("security not added: %v", r.IDs())
	}
	if ids := r.IDs(); ids[len(ids)-1] != "security" {
		t.Fatalf("new domain not after the built-ins: %v", ids)
	}
	d := r.Get("security")
	if d.Heading != "Security Notes" || d.Name != "Security" {
		t.Fatalf("domain = %+v", d)
	}
	for _, id := range []string{memory.DomainToolUsage, memory.DomainUserPreferences, memory.DomainGeneral} {
		_, exc := sections(t, r.Prompt(id))
		if !strings.Contains(exc, "known vulnerabilities and their mitigations") {
			t.Errorf("%s does not exclude the new domain's items:\n%s", id, exc)
		}
	}
	ext, exc := sections(t, r.Prompt("security"))
	if !strings.Contains(ext, "security policies and who may access what") || !strings.Contains(exc, "shell commands") {
		t.Fatalf("security prompt:\n%s", r.Prompt("security"))
	}
	if !strings.Contains(r.Prompt("security"), "policy, pitfall") {
		t.Fatal("type hint missing")
	}
}

func TestOverrideAndDisable(t *testing.T) {
	r, err := Parse(`
domains:
  - id: tool-usage
    heading: Commands
  - id: user-preferences
    disabled: true
`)
	if err != nil {
		t.Fatal(err)
	}
	if r.Known(memory.DomainUserPreferences) {
		t.Fatal("user-preferences not disabled")
	}
	tu := r.Get(memory.DomainToolUsage)
	if tu.Heading != "Commands" || tu.Name != "Tool usage" || len(tu.Extract) == 0 {
		t.Fatalf("override lost fields: %+v", tu)
	}
	if got := r.Resolve(memory.DomainUserPreferences); got != Default {
		t.Fatalf("disabled domain resolves to %q", got)
	}
	if strings.Contains(r.Prompt(memory.DomainGeneral), "coding style and conventions") {
		t.Fatal("a disabled domain's items are still excluded elsewhere")
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"bad id", "domains:\n  - id: Bad.Id\n    description: x\n    extract: [a]\n", "lowercase"},
		{"unknown field", "domains:\n  - id: x\n    descripton: x\n    extract: [a]\n", "descripton"},
		{"no extract", "domains:\n  - id: x\n    description: x\n", "extract needs"},
		{"no description", "domains:\n  - id: x\n    extract: [a]\n", "description is required"},
		{"general disabled", "domains:\n  - id: general\n    disabled: true\n", "fallback"},
		{"duplicate", "domains:\n  - id: x\n    description: x\n    extract: [a]\n  - id: x\n    description: y\n    extract: [b]\n", "twice"},
		{"bad type", "domains:\n  - id: x\n    description: x\n    extract: [a]\n    types: [gossip]\n", "not a memory type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.yaml)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestConfigLoadsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "domains.yaml")
	if err := os.WriteFile(path, []byte(security), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := Config{File: path}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	r, err := Load(cfg)
	if err != nil || !r.Known("security") {
		t.Fatalf("load: %v", err)
	}
	if err := (&Config{File: path + ".missing"}).Validate(); err == nil {
		t.Fatal("missing file accepted")
	}
	if r, err := Load(Config{}); err != nil || len(r.All()) != 3 {
		t.Fatalf("no file: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty.yaml")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if r, err := Load(Config{File: empty}); err != nil || len(r.All()) != 3 {
		t.Fatalf("empty file: %v", err)
	}
}
