package memory

import (
	"testing"
	"time"
)

func TestTimeViewHolds(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2024, 3, d, 12, 0, 0, 0, time.UTC) }
	// old was said on the 1st, replaced by a statement of the 10th that an
	// epoch of the 20th read; cur is that statement.
	old := Memory{ID: "old", CreatedAt: day(1), ValidFrom: day(1)}
	old.Supersede("cur", day(10), day(20))
	cur := Memory{ID: "cur", CreatedAt: day(10), ValidFrom: day(10)}
	// legacy was superseded before valid_until existed: valid until its
	// invalid_at.
	inv := day(20)
	legacy := Memory{ID: "legacy", CreatedAt: day(1), InvalidAt: &inv, SupersededBy: "cur"}
	tests := []struct {
		name             string
		view             TimeView
		old, cur, legacy bool
	}{
		{"now", TimeView{}, false, true, false},
		{"as of before the update", TimeView{AsOf: day(5)}, true, false, true},
		{"as of the update", TimeView{AsOf: day(10)}, false, true, true},
		{"as of after the epoch", TimeView{AsOf: day(25)}, false, true, false},
		{"as of before anything", TimeView{AsOf: day(1).Add(-time.Second)}, false, false, false},
		{"known between statement and epoch", TimeView{KnownAt: day(15)}, true, true, true},
		{"known after the epoch", TimeView{KnownAt: day(21)}, false, true, false},
		{"known before the update", TimeView{KnownAt: day(5)}, true, false, true},
		// On the 15th Recollect did not know old had ended on the 10th.
		{"as of 12th known on the 15th", TimeView{AsOf: day(12), KnownAt: day(15)}, true, true, true},
		{"as of 12th known on the 21st", TimeView{AsOf: day(12), KnownAt: day(21)}, false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []struct {
				m    Memory
				want bool
			}{{old, tt.old}, {cur, tt.cur}, {legacy, tt.legacy}} {
				if got := tt.view.Holds(&c.m); got != c.want {
					t.Errorf("%s: Holds = %v, want %v", c.m.ID, got, c.want)
				}
			}
		})
	}
}

func TestSupersedeClosesValidTime(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2024, 3, d, 0, 0, 0, 0, time.UTC) }
	m := Memory{ValidFrom: day(5)}
	m.Supersede("n", day(9), day(20))
	if !m.ValidUntil.Equal(day(9)) || !m.InvalidAt.Equal(day(20)) || m.SupersededBy != "n" {
		t.Fatalf("valid_until %v invalid_at %v superseded_by %q", m.ValidUntil, m.InvalidAt, m.SupersededBy)
	}
	// A successor stated earlier never makes the interval negative.
	m = Memory{ValidFrom: day(5)}
	m.Supersede("n", day(3), day(20))
	if !m.ValidUntil.Equal(day(5)) {
		t.Fatalf("valid_until %v, want clamped to valid_from", m.ValidUntil)
	}
	m.Reopen()
	if m.ValidUntil != nil || m.InvalidAt != nil || m.SupersededBy != "" {
		t.Fatalf("reopen left %+v", m)
	}
}
