// Package config layers configuration sources onto a pflag.FlagSet: a flag
// given on the command line wins over its RECOLLECT_* environment variable,
// which wins over the YAML file, which wins over the default.
package config

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"
)

// EnvPrefix starts every environment variable: --nats-url is RECOLLECT_NATS_URL.
const EnvPrefix = "RECOLLECT_"

// EnvName is the environment variable of a flag.
func EnvName(flag string) string {
	return EnvPrefix + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(flag))
}

// Apply fills every flag not set on the command line from the environment
// (lookup, usually os.LookupEnv) and then from the YAML file at path (empty:
// none). The file is a flat map of flag names to values; an unknown key or a
// bad value is an error naming it.
func Apply(fs *pflag.FlagSet, path string, lookup func(string) (string, bool)) error {
	fromFile := map[string]string{}
	if path != "" {
		var err error
		if fromFile, err = readFile(path); err != nil {
			return err
		}
		for k := range fromFile {
			if fs.Lookup(k) == nil {
				return fmt.Errorf("config file %s: unknown setting %q", path, k)
			}
		}
	}
	var errs []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Changed {
			return
		}
		if v, ok := lookup(EnvName(f.Name)); ok {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Sprintf("%s=%q: %v", EnvName(f.Name), v, err))
			}
			return
		}
		if v, ok := fromFile[f.Name]; ok {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Sprintf("%s: setting %q=%q: %v", path, f.Name, v, err))
			}
		}
	})
	if len(errs) > 0 {
		sort.Strings(errs)
		return fmt.Errorf("invalid configuration: %s", strings.Join(errs, "; "))
	}
	return nil
}

func readFile(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config file: %w", err)
	}
	var raw map[string]any
	if err := yaml.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("parse config file %s: %w", path, err)
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		switch x := v.(type) {
		case []any:
			parts := make([]string, len(x))
			for i, p := range x {
				parts[i] = fmt.Sprint(p)
			}
			out[k] = strings.Join(parts, ",")
		case map[string]any:
			return nil, fmt.Errorf("config file %s: setting %q must be a scalar or a list", path, k)
		case nil:
			out[k] = ""
		default:
			out[k] = fmt.Sprint(x)
		}
	}
	return out, nil
}
