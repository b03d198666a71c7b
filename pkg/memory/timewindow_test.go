package memory

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCheckTime(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		ts    time.Time
		skew  time.Duration
		field string // "" = accepted
		want  string
	}{
		{"zero is left to the default", time.Time{}, time.Hour, "", ""},
		{"now", now, time.Hour, "", ""},
		{"the epoch itself", Epoch, time.Hour, "", ""},
		{"just inside the skew", now.Add(time.Hour), time.Hour, "", ""},
		{"far past", time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC), time.Hour, "", ""},
		{"before 1970", Epoch.Add(-time.Second), time.Hour, "ts", "is before 1970-01-01T00:00:00Z"},
		{"year 1", time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Second), time.Hour, "ts", "is before 1970"},
		{"beyond the skew", now.Add(time.Hour + time.Second), time.Hour, "ts", "more than 1h0m0s in the future (limit 2026-05-01T13:00:00Z"},
		{"year 9999", time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), 24 * time.Hour, "ts", "in the future"},
		{"no future bound without skew", time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), 0, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckTime("ts", tt.ts, now, tt.skew)
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(fe.Reason, tt.want) {
				t.Fatalf("CheckTime(%s) = %v, want field %q reason containing %q", tt.ts, err, tt.field, tt.want)
			}
		})
	}
}

func TestNormalizeRefusesPre1970(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	e := Event{ID: "a", SessionID: "s", Content: "x", TS: time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)}
	var fe *FieldError
	if err := e.Normalize(now); !errors.As(err, &fe) || fe.Field != "ts" {
		t.Fatalf("Normalize = %v, want a ts field error", err)
	}
	e = Event{ID: "a", Type: EventCompaction, SessionID: "s", Messages: []Message{{Content: "x", TS: time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)}}}
	if err := e.Normalize(now); !errors.As(err, &fe) || fe.Field != "messages[0].ts" {
		t.Fatalf("Normalize = %v, want a messages[0].ts field error", err)
	}
}
