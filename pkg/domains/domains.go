// Package domains is the registry of memory domains (000): each has an id, a
// display heading for prompt blocks, a description and the parts of its
// extraction prompt. Stages downstream (extraction, recall budgets, prompt
// headings, stats) read it rather than hard-coding domain names, so adding
// a domain is one entry in the YAML file given by --domains-file.
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
	// Role frames the extraction prompt's first line: who the extractor is
	// and what it looks for.
	Role string `json:"role,omitempty" yaml:"role"`
	// Extract lists what this domain captures. Every other domain's prompt
	// lists these under "Do NOT extract", so the prompts stay
	// complementary without editing them.
	Extract []string `json:"extract,omitempty" yaml:"extract"`
	// Exclude lists what no domain should capture from this one's point of
	// view (small talk, secrets); it comes first under "Do NOT extract".
	Exclude []string `json:"do_not_extract,omitempty" yaml:"do_not_extract"`
	// Types are the memory types this domain's facts usually take, as a
	// hint to the model.
	Types []memory.Type `json:"types,omitempty" yaml:"types"`
	// Disabled removes a domain (a built-in one) when loading a file.
	Disabled bool `json:"-" yaml:"disabled"`
}

// Default is the fallback domain for facts whose domain is unknown; it
// cannot be disabled.
const Default = memory.DomainGeneral

// Registry holds the known domains. It is read-only once loaded and safe
// for concurrent reads.
type Registry struct {
	byID map[string]Domain
}

// Builtin returns the registry with the three built-in domains.
func Builtin() *Registry {
	r := &Registry{byID: map[string]Domain{}}
	for _, d := range builtins() {
		r.byID[d.ID] = d
	}
	return r
}

// Add registers or replaces a domain.
func (r *Registry) Add(d Domain) { r.byID[d.ID] = d }

// Remove drops a domain.
func (r *Registry) Remove(id string) { delete(r.byID, id) }

// Get returns the domain, or a generic one named after an unknown id.
func (r *Registry) Get(id string) Domain {
	if d, ok := r.byID[id]; ok {
		return d
	}
	return Domain{ID: id, Name: id, Heading: id, Order: 1 << 20}
}

// Known reports whether id is registered.
func (r *Registry) Known(id string) bool { _, ok := r.byID[id]; return ok }

// Resolve returns id when it is registered, else the default domain, so a
// fact routed to a domain an operator disabled still lands somewhere.
func (r *Registry) Resolve(id string) string {
	if r.Known(id) {
		return id
	}
	return Default
}

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

// IDs lists the domain ids in display order.
func (r *Registry) IDs() []string {
	all := r.All()
	out := make([]string, len(all))
	for i, d := range all {
		out[i] = d.ID
	}
	return out
}
