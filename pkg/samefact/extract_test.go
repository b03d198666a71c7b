package samefact

import (
	"strings"
	"testing"
)

// TestExtract pins the details read from a text, written kind:value
// (weak names with a trailing ~), in order.
func TestExtract(t *testing.T) {
	tests := []struct {
		text string
		want string
		neg  string
	}{
		{"User prefers tabs over spaces.", "name:user~", ""},
		{"The user prefers tabs over spaces.", "", ""},
		{"Fact number 79: the user's laptop choice for project P79 is option 48.", "name:fact~ number:79 name:p79 number:48", ""},
		{"I think the team uses Postgres 15.", "name:postgres number:15", ""},
		{"AWS hosts it.", "name:aws", ""},
		{"Coverage: 65%, 78 percent, 12.5 per cent.", "name:coverage~ number:65% number:78% number:12.5%", ""},
		{"It costs $1,200, €30 or 40 euros.", "number:$1200 number:€30 number:€40", ""},
		{"Pin v2, 1.2.3 and v1.4.0-rc.1; font at 14pt.", "name:pin~ number:2 number:1.2.3 number:1.4.0-rc.1 number:14pt", ""},
		{"The 3rd and the fifth run, twenty-one jobs, three hosts.", "number:ordinal 3 number:ordinal 5 number:21 number:3", ""},
		{"We need one server, not the blue one.", "number:1", "not"},
		{"On 2024-05-05T10:30 and 5/6/2024.", "date:year 2024 date:month 05 date:day 5 date:time 10:30 date:date 5/6/2024", ""},
		{"Meet on May 5th, 2024 at 3 pm.", "name:meet~ date:month 05 date:day 5 date:year 2024 date:time 15:00", ""},
		{"Ship by the 12th of March.", "name:ship~ date:day 12 date:month 03", ""},
		{"Ship in March.", "name:ship~ date:month 03", ""},
		{"May use tabs; we march on.", "name:may~", ""},
		{"Backups run nightly on weekends and Mondays at noon.", "name:backups~ date:when nightly date:when weekend date:weekday monday date:time 12:00", ""},
		{"See https://Example.com/a/, mail Bob@Acme.io, ping @ops in #infra.", "name:see~ name:https://example.com/a name:bob@acme.io name:@ops name:#infra", ""},
		{"Edit ~/src/main.go and src/app/run.sh, not and/or.", "name:edit~ name:~/src/main.go name:src/app/run.sh", "not"},
		{"Set maxRetries and retry_limit in config.yaml via gpt-4o.", "name:set~ name:maxretries name:retry_limit name:config.yaml name:gpt-4o", ""},
		{`Say "Hello  There" to 'Bob'.`, `name:hello there name:bob name:say~ name:hello name:bob`, ""},
		{"The user doesn't like tea.", "", "doesn't"},
		{"The user no longer uses Java.", "name:java", "no longer"},
		{"- Never push on Fridays.\n- Use main.", "date:weekday friday name:use~", "never"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			d := Extract(tt.text)
			var got []string
			for _, it := range d.Items {
				s := it.Kind.String() + ":" + it.Value
				if it.weak {
					s += "~"
				}
				got = append(got, s)
			}
			if g := strings.Join(got, " "); g != tt.want || d.Negation != tt.neg {
				t.Fatalf("details %q negation %q, want %q %q", g, d.Negation, tt.want, tt.neg)
			}
		})
	}
}

func TestVerdictNames(t *testing.T) {
	for v, want := range map[Verdict]string{Same: "same", Richer: "richer", Conflict: "conflict", Different: "different", Reworded: "reworded", 9: "verdict(9)"} {
		if v.String() != want {
			t.Fatalf("%d: %q, want %q", int(v), v.String(), want)
		}
	}
}
