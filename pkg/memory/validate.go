package memory

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Roles accepted on turns and messages.
var roles = map[string]bool{"user": true, "assistant": true, "system": true, "tool": true}

// ValidTenant reports whether s can name a tenant: 1–64 of [A-Za-z0-9_-].
// Tenants appear in NATS subjects, so dots and wildcards are excluded.
func ValidTenant(s string) bool {
	if s == "" || len(s) > MaxNameChars {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ValidNamespace reports whether s can name a namespace: 1–64 of
// [A-Za-z0-9_./:-], path-like so that prefixes group projects.
func ValidNamespace(s string) bool {
	if s == "" || len(s) > MaxNameChars {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_./:-", c) >= 0) {
			return false
		}
	}
	return true
}

func checkName(field, v string, max int) error {
	if utf8.RuneCountInString(v) > max {
		return fieldErr(field, "is longer than %d characters", max)
	}
	for _, r := range v {
		if r < 0x20 || r == 0x7f {
			return fieldErr(field, "contains a control character")
		}
	}
	return nil
}

func checkContent(field, v string, required bool) error {
	if required && strings.TrimSpace(v) == "" {
		return fieldErr(field, "is required")
	}
	if n := utf8.RuneCountInString(v); n > MaxContentChars {
		return fieldErr(field, "is longer than %d characters (%d)", MaxContentChars, n)
	}
	return nil
}

// CheckTags validates and normalises tags in place.
func CheckTags(field string, tags []string) ([]string, error) {
	if len(tags) > MaxTags {
		return nil, fieldErr(field, "has more than %d tags (%d)", MaxTags, len(tags))
	}
	out := make([]string, 0, len(tags))
	seen := make(map[string]bool, len(tags))
	for i, t := range tags {
		t = NormalizeTag(t)
		if t == "" {
			return nil, fieldErr(fmt.Sprintf("%s[%d]", field, i), "is empty")
		}
		if utf8.RuneCountInString(t) > MaxTagChars {
			return nil, fieldErr(fmt.Sprintf("%s[%d]", field, i), "is longer than %d characters", MaxTagChars)
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out, nil
}

// Normalize fills defaults (tenant, namespace, timestamp), cleans text and
// validates the event. It returns a *FieldError naming the first bad field.
func (e *Event) Normalize(now time.Time) error {
	if e.Tenant == "" {
		e.Tenant = DefaultTenant
	}
	if e.Namespace == "" {
		e.Namespace = DefaultNamespace
	}
	if e.TS.IsZero() {
		e.TS = now.UTC()
	}
	// The future bound depends on the door's configured skew
	// (CheckTimes); no event may predate 1970 anywhere.
	if err := e.CheckTimes(now, 0); err != nil {
		return err
	}
	if e.Type == "" {
		e.Type = EventTurn
	}
	if strings.TrimSpace(e.ID) == "" {
		return fieldErr("id", "is required (the client message id makes resends idempotent)")
	}
	if err := checkName("id", e.ID, MaxIDChars); err != nil {
		return err
	}
	if !ValidTenant(e.Tenant) {
		return fieldErr("tenant", "must be 1-%d characters of [A-Za-z0-9_-]", MaxNameChars)
	}
	if !ValidNamespace(e.Namespace) {
		return fieldErr("namespace", "must be 1-%d characters of [A-Za-z0-9_./:-]", MaxNameChars)
	}
	for _, f := range []struct{ name, v string }{
		{"session_id", e.SessionID}, {"subject", e.Subject}, {"channel", e.Channel}, {"agent", e.Agent},
		{"name", e.Name},
	} {
		if err := checkName(f.name, f.v, MaxNameChars); err != nil {
			return err
		}
	}
	e.Content = CleanText(e.Content)
	switch e.Type {
	case EventTurn:
		if e.SessionID == "" {
			return fieldErr("session_id", "is required for type %q", e.Type)
		}
		if e.Role == "" {
			e.Role = "user"
		}
		if !roles[e.Role] {
			return fieldErr("role", "must be one of user, assistant, system, tool")
		}
		return checkContent("content", e.Content, true)
	case EventCompaction, EventSessionEnd:
		if e.SessionID == "" {
			return fieldErr("session_id", "is required for type %q", e.Type)
		}
		if e.Type == EventCompaction && len(e.Messages) == 0 {
			return fieldErr("messages", "is required for type %q", e.Type)
		}
		if len(e.Messages) > MaxEventsBatch {
			return fieldErr("messages", "has more than %d messages", MaxEventsBatch)
		}
		for i := range e.Messages {
			m := &e.Messages[i]
			field := fmt.Sprintf("messages[%d]", i)
			if m.Role == "" {
				m.Role = "user"
			}
			if !roles[m.Role] {
				return fieldErr(field+".role", "must be one of user, assistant, system, tool")
			}
			if err := checkName(field+".id", m.ID, MaxIDChars); err != nil {
				return err
			}
			if err := checkName(field+".name", m.Name, MaxNameChars); err != nil {
				return err
			}
			m.Content = CleanText(m.Content)
			if err := checkContent(field+".content", m.Content, false); err != nil {
				return err
			}
		}
		return nil
	case EventMemory:
		if e.Memory == nil {
			return fieldErr("memory", "is required for type %q", e.Type)
		}
		return prefixed("memory", e.Memory.normalize())
	case EventFeedback:
		if e.Feedback == nil || e.Feedback.MemoryID == "" {
			return fieldErr("feedback.memory_id", "is required for type %q", e.Type)
		}
		return checkName("feedback.memory_id", e.Feedback.MemoryID, MaxIDChars)
	default:
		return fieldErr("type", "must be one of turn, compaction, session_end, memory, feedback (got %q)", e.Type)
	}
}

func (m *MemoryInput) normalize() error {
	m.Content = CleanText(m.Content)
	if err := checkContent("content", m.Content, true); err != nil {
		return err
	}
	m.Key = NormalizeKey(m.Key)
	if utf8.RuneCountInString(m.Key) > MaxKeyChars {
		return fieldErr("key", "is longer than %d characters", MaxKeyChars)
	}
	if m.Domain == "" {
		m.Domain = DomainGeneral
	}
	if err := checkName("domain", m.Domain, MaxNameChars); err != nil {
		return err
	}
	if m.Type == "" {
		m.Type = TypeFact
	}
	if !m.Type.Valid() {
		return fieldErr("type", "is not a known memory type (got %q)", m.Type)
	}
	if m.Kind == "" {
		m.Kind = m.Type.DefaultKind()
	}
	if !m.Kind.Valid() {
		return fieldErr("kind", "must be episodic, semantic or procedural (got %q)", m.Kind)
	}
	if m.Importance != nil && (*m.Importance < 0 || *m.Importance > 1) {
		return fieldErr("importance", "must be between 0 and 1")
	}
	tags, err := CheckTags("tags", m.Tags)
	if err != nil {
		return err
	}
	m.Tags = tags
	if len(m.Scope) > MaxScopeGlobs {
		return fieldErr("scope", "has more than %d globs", MaxScopeGlobs)
	}
	return nil
}

// Validate checks a memory record before it is stored.
func (m *Memory) Validate() error {
	if m.ID == "" {
		return fieldErr("id", "is required")
	}
	if !ValidTenant(m.Tenant) {
		return fieldErr("tenant", "must be 1-%d characters of [A-Za-z0-9_-]", MaxNameChars)
	}
	if !ValidNamespace(m.Namespace) {
		return fieldErr("namespace", "must be 1-%d characters of [A-Za-z0-9_./:-]", MaxNameChars)
	}
	if err := checkContent("content", m.Content, true); err != nil {
		return err
	}
	if utf8.RuneCountInString(m.Key) > MaxKeyChars {
		return fieldErr("key", "is longer than %d characters", MaxKeyChars)
	}
	if m.Domain == "" {
		return fieldErr("domain", "is required")
	}
	if !m.Type.Valid() {
		return fieldErr("type", "is not a known memory type (got %q)", m.Type)
	}
	if !m.Kind.Valid() {
		return fieldErr("kind", "must be episodic, semantic or procedural (got %q)", m.Kind)
	}
	if !m.Layer.Valid() {
		return fieldErr("layer", "must be buffer, working or core (got %q)", m.Layer)
	}
	if err := checkName("quarantined", m.Quarantine, MaxQuarantineChars); err != nil {
		return err
	}
	if len(m.Tags) > MaxTags {
		return fieldErr("tags", "has more than %d tags", MaxTags)
	}
	for i, t := range m.Tags {
		if utf8.RuneCountInString(t) > MaxTagChars {
			return fieldErr(fmt.Sprintf("tags[%d]", i), "is longer than %d characters", MaxTagChars)
		}
	}
	return nil
}
