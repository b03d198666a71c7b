package domains

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// Config says where extra domains come from.
type Config struct {
	// File is a YAML file of domains merged over the built-in ones; "" keeps
	// the built-ins alone.
	File string
}

// RegisterFlags adds --<prefix>domains-file.
func (c *Config) RegisterFlags(prefix string, fs *pflag.FlagSet) {
	fs.StringVar(&c.File, prefix+"domains-file", "", "YAML file of memory domains added to (or overriding, or disabling) the built-in tool-usage, user-preferences and general")
}

// Validate loads the file, so a bad one is reported at start-up with the
// rest of the configuration.
func (c *Config) Validate() error {
	_, err := Load(*c)
	return err
}

// file is the YAML document: {domains: [...]}.
type file struct {
	Domains []Domain `yaml:"domains"`
}

// Load returns the built-in domains merged with cfg.File's. An entry whose
// id is built in overrides the fields it sets (lists replace lists) or,
// with disabled: true, removes the domain; a new id adds a domain.
func Load(cfg Config) (*Registry, error) {
	r := Builtin()
	if cfg.File == "" {
		return r, nil
	}
	raw, err := os.ReadFile(cfg.File)
	if err != nil {
		return nil, fmt.Errorf("read domains file: %w", err)
	}
	if err := r.merge(raw); err != nil {
		return nil, fmt.Errorf("domains file %s: %w", cfg.File, err)
	}
	return r, nil
}

// Parse is Load from YAML text, for tests and embedding.
func Parse(text string) (*Registry, error) {
	r := Builtin()
	if err := r.merge([]byte(text)); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Registry) merge(raw []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true) // a misspelt field is an error, not a silent default
	var f file
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("parse: %w", err)
	}
	seen := map[string]bool{}
	for i, d := range f.Domains {
		d.ID = strings.TrimSpace(d.ID)
		if err := checkID(d.ID); err != nil {
			return fmt.Errorf("domains[%d]: %w", i, err)
		}
		if seen[d.ID] {
			return fmt.Errorf("domains[%d]: id %q appears twice", i, d.ID)
		}
		seen[d.ID] = true
		if d.Disabled {
			if d.ID == Default {
				return fmt.Errorf("domains[%d]: %q cannot be disabled: it is the fallback domain", i, d.ID)
			}
			r.Remove(d.ID)
			continue
		}
		merged := d
		if old, ok := r.byID[d.ID]; ok {
			merged = overlay(old, d)
		} else if merged.Order == 0 {
			merged.Order = 100 + i // after the built-ins, in file order
		}
		if merged.Name == "" {
			merged.Name = merged.ID
		}
		if merged.Heading == "" {
			merged.Heading = merged.Name
		}
		if err := check(merged); err != nil {
			return fmt.Errorf("domains[%d] (%s): %w", i, d.ID, err)
		}
		r.Add(merged)
	}
	return nil
}

// overlay sets the fields of upd that are set over old.
func overlay(old, upd Domain) Domain {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&old.Name, upd.Name)
	set(&old.Heading, upd.Heading)
	set(&old.Description, upd.Description)
	set(&old.Role, upd.Role)
	if upd.Order != 0 {
		old.Order = upd.Order
	}
	if upd.Extract != nil {
		old.Extract = upd.Extract
	}
	if upd.Exclude != nil {
		old.Exclude = upd.Exclude
	}
	if upd.Types != nil {
		old.Types = upd.Types
	}
	return old
}

// checkID keeps ids usable as a NATS subject token (recollect.fact.<id>)
// and a metrics label: lowercase letters, digits and hyphens.
func checkID(id string) error {
	if id == "" || len(id) > memory.MaxNameChars {
		return fmt.Errorf("id %q: want 1-%d characters", id, memory.MaxNameChars)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' && i > 0) {
			return fmt.Errorf("id %q: want lowercase letters, digits and inner hyphens", id)
		}
	}
	return nil
}

func check(d Domain) error {
	if strings.TrimSpace(d.Description) == "" {
		return errors.New("description is required")
	}
	if len(d.Extract) == 0 {
		return errors.New("extract needs at least one item: it is what the domain's prompt asks for and what the others' prompts exclude")
	}
	for i, e := range d.Extract {
		if strings.TrimSpace(e) == "" {
			return fmt.Errorf("extract[%d] is empty", i)
		}
	}
	for i, t := range d.Types {
		if !t.Valid() {
			return fmt.Errorf("types[%d]: %q is not a memory type", i, t)
		}
	}
	return nil
}
