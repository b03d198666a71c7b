package console

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/pkg/api"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// view is what every page's template gets: who is logged in, the tenant
// the page is about, the session's CSRF token for its forms, and the
// page's own data.
type view struct {
	Title   string
	Section string // highlighted in the navigation
	Who     api.WhoAmI
	Tenant  string
	CSRF    string
	Flash   string // a notice after an action (rendered as text)
	Error   string
	Data    any
}

func (c *Console) view(r *http.Request, s *session, title, section string, data any) view {
	v := view{Title: title, Section: section, Tenant: r.PathValue("tenant"), Flash: r.URL.Query().Get("done"), Data: data}
	if s != nil {
		v.Who, v.CSRF = s.who, s.csrf
	}
	return v
}

type errorData struct {
	Status        int
	Text, Message string
}

// pages holds one template set per page: the layout and the page's
// "content".
type pages struct{ set map[string]*template.Template }

var funcs = template.FuncMap{
	"when":      when,
	"whenp":     func(t *time.Time) string { return whenPtr(t) },
	"num":       func(f float64) string { return fmt.Sprintf("%.3f", f) },
	"tenantURL": tenantURL,
	"memoryURL": func(tenant, id string) string { return tenantURL(tenant, "memories/"+url.PathEscape(id)) },
	"join":      strings.Join,
	"short":     short,
	"dict":      dict,
	"inc":       func(i int) int { return i + 1 },
}

// dict pairs keys and values for a sub-template's data.
func dict(kv ...any) (map[string]any, error) {
	if len(kv)%2 != 0 {
		return nil, fmt.Errorf("dict wants pairs, got %d values", len(kv))
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			return nil, fmt.Errorf("dict key %v is not a string", kv[i])
		}
		m[k] = kv[i+1]
	}
	return m, nil
}

func parsePages() (*pages, error) {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	p := &pages{set: map[string]*template.Template{}}
	for _, n := range names {
		name := path.Base(n)
		if name == "layout.html" || name == "partials.html" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partials.html", n)
		if err != nil {
			return nil, fmt.Errorf("parse console template %s: %w", name, err)
		}
		p.set[name] = t
	}
	return p, nil
}

// render executes a page into a buffer first, so a template error never
// leaves half a page.
func (p *pages) render(w http.ResponseWriter, name string, v view) {
	t, ok := p.set[name]
	var buf bytes.Buffer
	if !ok {
		http.Error(w, "no page "+name, http.StatusInternalServerError)
		return
	}
	if err := t.Execute(&buf, v); err != nil {
		http.Error(w, "render "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

func (c *Console) asset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	data, err := assetFS.ReadFile("assets/" + name)
	if err != nil || strings.Contains(name, "/") {
		http.NotFound(w, r)
		return
	}
	switch path.Ext(name) {
	case ".css":
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
	case ".js":
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	case ".svg":
		w.Header().Set("Content-Type", "image/svg+xml")
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(data)
}

func tenantURL(tenant, rest string) string { return "/ui/t/" + url.PathEscape(tenant) + "/" + rest }

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

func whenPtr(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return when(*t)
}

// short cuts s to n characters for a table cell (the page shows it whole).
func short(n int, s string) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// localNext is where a login goes back to: a path of the console only.
func localNext(next string) string {
	if !strings.HasPrefix(next, "/ui/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return "/ui/"
	}
	return next
}
