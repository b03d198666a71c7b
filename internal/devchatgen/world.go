package devchatgen

// The world the conversations happen in: people, projects and the
// languages' files and tools. Names are invented.

var users = []string{"Maya", "Tomas", "Priya", "Jonas", "Aiko", "Dmitri", "Lena", "Kwame", "Sofia", "Ravi", "Elif", "Noah"}

// assistantName speaks the assistant's turns. A stored turn starts with
// its speaker's name, and a name keeps those turns apart from forged
// "assistant:" lines that the injection filter refuses.
const assistantName = "Sage"

type lang struct {
	name       string // as people write it: Go, Python, TypeScript
	short      string // code fence tag
	config     string // where a port lives
	pin        string // the file that pins the runtime version
	versions   []string
	testCmd    string
	pkgWord    string // package, module, component
	components []string
}

var golang = lang{name: "Go", short: "go", config: "config/dev.yaml", pin: "go.mod", versions: []string{"1.21", "1.22", "1.23", "1.24"},
	testCmd: "go test ./... -race -cover", pkgWord: "package",
	components: []string{"internal/store", "internal/httpapi", "internal/worker", "cmd/server", "internal/auth", "internal/billing"}}

var python = lang{name: "Python", short: "python", config: ".env", pin: "pyproject.toml", versions: []string{"3.10", "3.11", "3.12", "3.13"},
	testCmd: "pytest -q --cov", pkgWord: "module",
	components: []string{"app/models.py", "app/api.py", "app/tasks.py", "app/services/importer.py", "app/auth.py", "app/reports.py"}}

var typescript = lang{name: "Node", short: "ts", config: ".env.local", pin: ".nvmrc", versions: []string{"18", "20", "22"},
	testCmd: "npm test -- --coverage", pkgWord: "component",
	components: []string{"src/components/OrderTable.tsx", "src/hooks/useCart.ts", "src/api/client.ts", "src/pages/Checkout.tsx", "src/store/session.ts", "src/server/routes.ts"}}

type project struct {
	name   string
	lang   lang
	what   string   // one line about it
	things []string // the entities it deals with
}

var projects = []project{
	{"ledger-api", golang, "a double-entry ledger HTTP API", []string{"account", "entry", "transfer"}},
	{"billing-worker", golang, "a queue worker that issues invoices", []string{"invoice", "customer", "charge"}},
	{"inventory-svc", golang, "the warehouse inventory service", []string{"sku", "shipment", "warehouse"}},
	{"metrics-exporter", golang, "a Prometheus exporter for the build farm", []string{"runner", "job", "queue"}},
	{"photo-tagger", python, "a service that tags uploaded photos", []string{"photo", "tag", "album"}},
	{"etl-pipeline", python, "nightly ETL from the CRM into the warehouse", []string{"contact", "deal", "batch"}},
	{"recipe-bot", python, "a Telegram bot that suggests recipes", []string{"recipe", "ingredient", "user"}},
	{"report-builder", python, "PDF reports for the finance team", []string{"report", "ledger", "period"}},
	{"dashboard-web", typescript, "the internal admin dashboard in React", []string{"order", "widget", "user"}},
	{"shopfront", typescript, "the Next.js storefront", []string{"product", "cart", "checkout"}},
	{"chat-widget", typescript, "an embeddable support chat widget", []string{"message", "thread", "agent"}},
	{"geo-search", typescript, "a map search API on Node", []string{"place", "tile", "query"}},
}

var ordinals = []string{"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth"}

var smallNumbers = []string{"zero", "one", "two", "three", "four", "five", "six", "seven"}
