package cli

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// changes summarises what an entry did to its memories, from its before
// and after snapshots: "layer working→core", "importance 0.50→0.70",
// "archived", "superseded by <id>", "content", "tags", "new". Several
// memories are told apart by id. Unreadable snapshots say so.
func changes(before, after json.RawMessage) string {
	bs, err := auditlog.Memories(before)
	if err != nil {
		return "(before unreadable)"
	}
	as, err := auditlog.Memories(after)
	if err != nil {
		return "(after unreadable)"
	}
	old := map[string]memory.Memory{}
	for _, m := range bs {
		old[m.ID] = m
	}
	var parts []string
	for _, m := range as {
		var what []string
		if b, ok := old[m.ID]; ok {
			what = diffMemory(b, m)
		} else {
			what = []string{"new"}
		}
		if len(what) == 0 {
			continue
		}
		s := strings.Join(what, ", ")
		if len(as) > 1 {
			s = m.ID + ": " + s
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}

func diffMemory(b, a memory.Memory) []string {
	var out []string
	if b.Layer != a.Layer {
		out = append(out, fmt.Sprintf("layer %s→%s", b.Layer, a.Layer))
	}
	if fmt.Sprintf("%.2f", b.Importance) != fmt.Sprintf("%.2f", a.Importance) {
		out = append(out, fmt.Sprintf("importance %.2f→%.2f", b.Importance, a.Importance))
	}
	if b.Archived != a.Archived {
		out = append(out, map[bool]string{true: "archived", false: "unarchived"}[a.Archived])
	}
	if b.SupersededBy != a.SupersededBy || (b.InvalidAt == nil) != (a.InvalidAt == nil) {
		switch {
		case a.SupersededBy != "":
			out = append(out, "superseded by "+a.SupersededBy)
		case a.InvalidAt != nil:
			out = append(out, "invalidated")
		default:
			out = append(out, "valid again")
		}
	}
	if a.ValidUntil != nil && (b.ValidUntil == nil || !b.ValidUntil.Equal(*a.ValidUntil)) {
		out = append(out, "valid until "+a.ValidUntil.UTC().Format(time.RFC3339))
	}
	if b.Content != a.Content {
		out = append(out, "content")
	}
	if !slices.Equal(b.Tags, a.Tags) {
		out = append(out, "tags")
	}
	return out
}
