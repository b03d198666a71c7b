package memory

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestNormalizeKey(t *testing.T) {
	for in, want := range map[string]string{
		"Code_Style":            "code-style",
		"Preference/Code-Style": "preference/code-style",
		"  My--Key//path ":      "my-key/path",
		"--a b__c--":            "a-b-c",
		"":                      "",
	} {
		if got := NormalizeKey(in); got != want {
			t.Errorf("NormalizeKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanText(t *testing.T) {
	for in, want := range map[string]string{
		"  hello   world  ":        "hello world",
		"a\x00b\x07c":              "abc",
		"line one\n\n\n\nline 2":   "line one\n\nline 2",
		"tab\tseparated":           "tab separated",
		"zero\u200bwidth":          "zerowidth",
		"bad \xff utf8":            "bad utf8",
		"\n\n  leading and trail ": "leading and trail",
	} {
		if got := CleanText(in); got != want {
			t.Errorf("CleanText(%q) = %q, want %q", in, got, want)
		}
	}
}

func validTurn() Event {
	return Event{ID: "e1", Type: EventTurn, Tenant: "acme", SessionID: "s1", Content: "hello"}
}

func TestEventNormalize(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name  string
		edit  func(e *Event)
		field string // "" = valid
	}{
		{"valid turn", func(e *Event) {}, ""},
		{"missing id", func(e *Event) { e.ID = " " }, "id"},
		{"long id", func(e *Event) { e.ID = strings.Repeat("x", MaxIDChars+1) }, "id"},
		{"bad tenant", func(e *Event) { e.Tenant = "a.b" }, "tenant"},
		{"bad namespace", func(e *Event) { e.Namespace = "a b" }, "namespace"},
		{"missing session", func(e *Event) { e.SessionID = "" }, "session_id"},
		{"bad role", func(e *Event) { e.Role = "robot" }, "role"},
		{"empty content", func(e *Event) { e.Content = "  \x00 " }, "content"},
		{"long content", func(e *Event) { e.Content = strings.Repeat("é", MaxContentChars+1) }, "content"},
		{"content at limit", func(e *Event) { e.Content = strings.Repeat("é", MaxContentChars) }, ""},
		{"control char in subject", func(e *Event) { e.Subject = "a\nb" }, "subject"},
		{"unknown type", func(e *Event) { e.Type = "nope" }, "type"},
		{"compaction without messages", func(e *Event) { e.Type = EventCompaction }, "messages"},
		{"compaction bad message role", func(e *Event) {
			e.Type = EventCompaction
			e.Messages = []Message{{Role: "user", Content: "a"}, {Role: "x", Content: "b"}}
		}, "messages[1].role"},
		{"memory without payload", func(e *Event) { e.Type = EventMemory }, "memory"},
		{"memory bad type", func(e *Event) { e.Type = EventMemory; e.Memory = &MemoryInput{Content: "x", Type: "nope"} }, "memory.type"},
		{"memory too many tags", func(e *Event) {
			e.Type = EventMemory
			e.Memory = &MemoryInput{Content: "x", Tags: make([]string, MaxTags+1)}
		}, "memory.tags"},
		{"memory long tag", func(e *Event) {
			e.Type = EventMemory
			e.Memory = &MemoryInput{Content: "x", Tags: []string{strings.Repeat("t", MaxTagChars+1)}}
		}, "memory.tags[0]"},
		{"memory long key", func(e *Event) {
			e.Type = EventMemory
			e.Memory = &MemoryInput{Content: "x", Key: strings.Repeat("k", MaxKeyChars+1)}
		}, "memory.key"},
		{"memory importance", func(e *Event) {
			imp := 1.5
			e.Type = EventMemory
			e.Memory = &MemoryInput{Content: "x", Importance: &imp}
		}, "memory.importance"},
		{"feedback without memory id", func(e *Event) { e.Type = EventFeedback; e.Feedback = &Feedback{} }, "feedback.memory_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := validTurn()
			tt.edit(&e)
			err := e.Normalize(now)
			if tt.field == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want a field error on %s", err, tt.field)
			}
			if fe.Field != tt.field {
				t.Fatalf("field = %q (%v), want %q", fe.Field, err, tt.field)
			}
		})
	}
}

func TestEventDefaults(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	e := Event{ID: "x", SessionID: "s", Content: "  hi  there "}
	if err := e.Normalize(now); err != nil {
		t.Fatal(err)
	}
	if e.Tenant != DefaultTenant || e.Namespace != DefaultNamespace || e.Type != EventTurn || e.Role != "user" || !e.TS.Equal(now) || e.Content != "hi there" {
		t.Fatalf("defaults not applied: %+v", e)
	}
	m := Event{ID: "m", Type: EventMemory, Memory: &MemoryInput{Content: "Uses Go", Key: "Stack_Language", Tags: []string{" Go ", "go", "Backend"}}}
	if err := m.Normalize(now); err != nil {
		t.Fatal(err)
	}
	in := m.Memory
	if in.Domain != DomainGeneral || in.Type != TypeFact || in.Kind != KindSemantic || in.Key != "stack-language" || strings.Join(in.Tags, ",") != "go,backend" {
		t.Fatalf("memory defaults: %+v", in)
	}
}

func TestMemoryID(t *testing.T) {
	a := MemoryID("t", "ns", "alice", "User prefers  Tabs.")
	if a != MemoryID("t", "ns", "alice", "user prefers tabs.") {
		t.Fatal("case and spacing changed the id")
	}
	for _, other := range []string{
		MemoryID("u", "ns", "alice", "User prefers tabs."),
		MemoryID("t", "ns2", "alice", "User prefers tabs."),
		MemoryID("t", "ns", "bob", "User prefers tabs."),
		MemoryID("t", "ns", "alice", "User prefers spaces."),
	} {
		if other == a {
			t.Fatal("different memories share an id")
		}
	}
	if len(a) != 36 || a[14] != '5' {
		t.Fatalf("id %q is not UUID-shaped", a)
	}
}

func TestAddSourceBounded(t *testing.T) {
	var m Memory
	for i := 0; i < MaxSourceIDs+10; i++ {
		m.AddSource(string(rune('a'+i%26)) + strings.Repeat("x", i))
	}
	m.AddSource(m.SourceIDs[0])
	if len(m.SourceIDs) != MaxSourceIDs {
		t.Fatalf("kept %d source ids, want %d", len(m.SourceIDs), MaxSourceIDs)
	}
}

func TestMemoryValidate(t *testing.T) {
	ok := Memory{ID: "1", Tenant: "t", Namespace: "n", Content: "c", Domain: "general", Type: TypeFact, Kind: KindSemantic, Layer: LayerBuffer}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := ok
	bad.Layer = "attic"
	var fe *FieldError
	if err := bad.Validate(); !errors.As(err, &fe) || fe.Field != "layer" {
		t.Fatalf("err = %v", err)
	}
}
