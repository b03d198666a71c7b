// Package domains is the registry of memory domains (000): each has an id, a
// display heading for prompt blocks and a description. Stages downstream
// (recall budgets, prompt headings, stats) read it rather than hard-coding
// domain names.
package domains

import (
	"sort"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Domain describes one memory domain.
type Domain struct {
	ID          string `json:"id" yaml:"id"`
	Name        string `json:"name" yaml:"name"`
	Heading     string `json:"heading" yaml:"heading"`
	Description string `json:"description" yaml:"description"`
	Order       int    `json:"order" yaml:"order"`
}

// Registry holds the known domains.
type Registry struct {
	byID map[string]Domain
}

// Builtin returns the registry with the three built-in domains.
func Builtin() *Registry {
	r := &Registry{byID: map[string]Domain{}}
	for _, d := range []Domain{
		{ID: memory.DomainToolUsage, Name: "Tool usage", Heading: "Tool Usage Patterns", Order: 1,
			Description: "commands, tools, build/test/deploy procedures and how the project's tooling behaves"},
		{ID: memory.DomainUserPreferences, Name: "User preferences", Heading: "User Preferences", Order: 2,
			Description: "how the user likes things done: style, communication, workflow preferences"},
		{ID: memory.DomainGeneral, Name: "General", Heading: "General Knowledge", Order: 3,
			Description: "project facts, people, decisions and everything else worth remembering"},
	} {
		r.byID[d.ID] = d
	}
	return r
}

// Add registers or replaces a domain.
func (r *Registry) Add(d Domain) { r.byID[d.ID] = d }

// Get returns the domain, or a generic one named after an unknown id.
func (r *Registry) Get(id string) Domain {
	if d, ok := r.byID[id]; ok {
		return d
	}
	return Domain{ID: id, Name: id, Heading: id, Order: 1 << 20}
}

// Known reports whether id is registered.
func (r *Registry) Known(id string) bool { _, ok := r.byID[id]; return ok }

// All lists the domains in display order.
func (r *Registry) All() []Domain {
	out := make([]Domain, 0, len(r.byID))
	for _, d := range r.byID {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Order != out[j].Order {
			return out[i].Order < out[j].Order
		}
		return out[i].ID < out[j].ID
	})
	return out
}
