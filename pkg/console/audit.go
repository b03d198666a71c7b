package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/recollect-dev/recollect/pkg/api"
	"github.com/recollect-dev/recollect/pkg/auditlog"
	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/memory"
)

// auditLimit is how many entries the audit page reads at once.
const auditLimit = 200

// auditRow is one entry with what it changed, field by field.
type auditRow struct {
	api.AuditEntry
	Changes []change
	// Created and Removed are memories only after or only before.
	Created, Removed []memory.Memory
}

// change is one field of one memory, before and after.
type change struct {
	ID, Field, Before, After string
}

// epochGroup is the entries of one epoch (or of none: user and operator
// actions), newest first.
type epochGroup struct {
	Epoch string
	Rows  []auditRow
}

type auditData struct {
	Epoch, Phase, Op, Memory string
	Phases                   []string
	Groups                   []epochGroup
	Count                    int
	Limit                    int
}

var auditPhases = []string{"triage", "gate", "merge", "reconcile", "supersede", "distill", "audit", "decay", "archive", "retention", "purge", "quarantine"}

// auditPage: the tenant's audit log by epoch and phase, each entry with
// its before/after difference.
func (c *Console) auditPage(w http.ResponseWriter, r *http.Request, s *session) {
	tenant := r.PathValue("tenant")
	q := r.URL.Query()
	d := auditData{Epoch: q.Get("epoch"), Phase: q.Get("phase"), Op: q.Get("op"), Memory: q.Get("memory"), Phases: auditPhases, Limit: auditLimit}
	resp, err := c.api(s).Audit(r.Context(), client.AuditOptions{Tenant: tenant, Epoch: d.Epoch, Phase: d.Phase, Op: d.Op, MemoryID: d.Memory, Limit: auditLimit})
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d.Count = len(resp.Entries)
	for _, row := range auditRows(resp.Entries) {
		if n := len(d.Groups); n > 0 && d.Groups[n-1].Epoch == row.Epoch {
			d.Groups[n-1].Rows = append(d.Groups[n-1].Rows, row)
			continue
		}
		d.Groups = append(d.Groups, epochGroup{Epoch: row.Epoch, Rows: []auditRow{row}})
	}
	c.pages.render(w, "audit.html", c.view(r, s, "Audit log · "+tenant, "audit", d))
}

func auditRows(entries []api.AuditEntry) []auditRow {
	rows := make([]auditRow, 0, len(entries))
	for _, e := range entries {
		row := auditRow{AuditEntry: e}
		before, _ := auditlog.Memories(e.Before)
		after, _ := auditlog.Memories(e.After)
		for _, a := range after {
			i := slices.IndexFunc(before, func(b memory.Memory) bool { return b.ID == a.ID })
			if i < 0 {
				row.Created = append(row.Created, a)
				continue
			}
			row.Changes = append(row.Changes, diff(before[i], a)...)
		}
		for _, b := range before {
			if !slices.ContainsFunc(after, func(a memory.Memory) bool { return a.ID == b.ID }) && len(after) > 0 {
				row.Removed = append(row.Removed, b)
			}
		}
		if len(after) == 0 {
			row.Removed = before
		}
		rows = append(rows, row)
	}
	return rows
}

// diff lists the fields that differ between two versions of a memory, by
// their JSON names (the wire names an operator knows).
func diff(a, b memory.Memory) []change {
	fa, fb := fields(a), fields(b)
	var names []string
	for k := range fa {
		names = append(names, k)
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	var out []change
	for _, n := range names {
		if n == "modified_at" || fa[n] == fb[n] {
			continue
		}
		out = append(out, change{ID: a.ID, Field: n, Before: fa[n], After: fb[n]})
	}
	return out
}

func fields(m memory.Memory) map[string]string {
	m.Vector = nil
	data, _ := json.Marshal(m)
	var raw map[string]json.RawMessage
	_ = json.Unmarshal(data, &raw)
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		var s string
		if json.Unmarshal(v, &s) == nil {
			out[k] = s
		} else {
			out[k] = strings.TrimSpace(fmt.Sprintf("%s", v))
		}
	}
	return out
}
