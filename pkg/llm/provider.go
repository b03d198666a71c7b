package llm

import (
	"net/url"
	"strings"
	"sync/atomic"
)

// provider is one OpenAI-compatible endpoint the client may call.
type provider struct {
	name     string // host[:port], as recorded in usage and spans
	endpoint string // .../chat/completions, the base URL's query kept
	// shown stands for endpoint in errors: no user info, query values
	// hidden (a query may carry a key, e.g. ?key= or ?api-key=).
	shown  string
	apiKey string
	model  string // "" uses the tier's model
	// noJSONMode is set once the provider rejected response_format (json
	// mode auto), so later calls do not pay for the rejection again.
	noJSONMode atomic.Bool
}

// providers lists the primary, then the fallbacks, in the order tried.
// Validate has checked the URLs.
func (c *Config) providers() []*provider {
	out := []*provider{newProvider(c.URL, c.APIKey, "")}
	for i := range c.fallbackCount() {
		u, model, key := at(c.FallbackURLs, i), at(c.FallbackModels, i), at(c.FallbackAPIKeys, i)
		if u == "" {
			u = c.URL
		}
		if key == "" && sameURL(u, c.URL) {
			key = c.APIKey
		}
		out = append(out, newProvider(u, key, model))
	}
	return out
}

func newProvider(base, key, model string) *provider {
	name := base
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		name = u.Host
	}
	endpoint := strings.TrimRight(base, "/") + "/chat/completions"
	shown := "<llm url>"
	if u, err := url.Parse(base); err == nil {
		// The path goes before the query: .../v1/chat/completions?api-version=x.
		u.Path = strings.TrimRight(u.Path, "/") + "/chat/completions"
		u.RawPath = ""
		endpoint = u.String()
		u.User = nil
		if u.RawQuery != "" {
			q := u.Query()
			for k := range q {
				q[k] = []string{"redacted"}
			}
			u.RawQuery = q.Encode()
		}
		shown = u.String()
	}
	return &provider{
		name:     name,
		endpoint: endpoint,
		shown:    shown,
		apiKey:   key,
		model:    model,
	}
}

func at(list []string, i int) string {
	if i < len(list) {
		return strings.TrimSpace(list[i])
	}
	return ""
}

func sameURL(a, b string) bool { return strings.TrimRight(a, "/") == strings.TrimRight(b, "/") }
