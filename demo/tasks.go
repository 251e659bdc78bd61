package demo

// outcome is how a simulated run ends.
type outcome int

const (
	// succeeds: the tests pass and the agent exits 0.
	succeeds outcome = iota
	// fails: the tests fail and the agent exits 1 with a red error.
	fails
	// asks: the agent stops and asks the user before applying its change.
	asks
	// titled: the agent keeps its window title (OSC 2) up to date and rings
	// the bell while it waits for a lock held by another agent.
	titled
)

// hunk is one side-by-side change in a diff: the old and the new lines.
type hunk struct {
	at       int
	context  string
	del, add []string
}

// task is the story of one simulated agent: what it is asked to do, what it
// reads, what it changes, and which tests it runs.
type task struct {
	name    string // script name, as given to --script
	title   string // pane title
	prompt  string
	reads   []string
	grep    string
	edit    string
	hunk    hunk
	pkg     string
	tests   []string
	failing []string // tests that fail (outcome fails)
	files   int      // files changed, for the summary and the question
	outcome outcome
}

// tasks is the demo's cast, in the order the demo orchestrator starts them.
// The asking agent comes early so that it is on screen when it asks.
var tasks = []task{
	{
		name: "pagination", title: "api: add pagination",
		prompt: "add cursor pagination to GET /v1/items",
		reads:  []string{"internal/api/handler.go", "internal/store/items.go"},
		grep:   "func .*List", edit: "internal/api/handler.go",
		hunk: hunk{at: 41, context: "func (h *Handler) ListItems(",
			del: []string{"items, err := h.store.List(ctx, limit)"},
			add: []string{"cursor := r.URL.Query().Get(\"cursor\")", "items, next, err := h.store.Page(ctx,", "\tcursor, limit)", "w.Header().Set(\"X-Next-Cursor\", next)"}},
		pkg: "./internal/api/...", tests: []string{"TestListItems", "TestListItemsCursor", "TestListItemsLimit"},
		files: 2, outcome: succeeds,
	},
	{
		name: "migrate", title: "db: migrate users table",
		prompt: "add a unique email index to users",
		reads:  []string{"db/schema.sql", "db/migrations/0041_orgs.sql"},
		grep:   "CREATE TABLE users", edit: "db/migrations/0042_users_email.sql",
		hunk: hunk{at: 1, context: "-- 0042 users email",
			add: []string{"ALTER TABLE users", "  ALTER COLUMN email SET NOT NULL;", "CREATE UNIQUE INDEX users_email", "  ON users (lower(email));"}},
		pkg: "./db/...", tests: []string{"TestMigrateUp", "TestMigrateDown"},
		files: 3, outcome: asks,
	},
	{
		name: "docs", title: "docs: document the CLI",
		prompt: "write docs/cli.md from the cobra commands",
		reads:  []string{"cmd/root.go", "cmd/serve.go", "README.md"},
		grep:   "cobra.Command{", edit: "docs/cli.md",
		hunk: hunk{at: 12, context: "## Commands",
			del: []string{"TODO"},
			add: []string{"### serve", "Starts the HTTP API on --addr.", "### migrate", "Applies pending migrations."}},
		pkg: "./cmd/...", tests: []string{"TestHelpOutput", "TestDocsUpToDate"},
		files: 1, outcome: titled,
	},
	{
		name: "auth", title: "auth: refresh tokens",
		prompt: "rotate refresh tokens on every use",
		reads:  []string{"internal/auth/token.go", "internal/auth/store.go"},
		grep:   "RefreshToken", edit: "internal/auth/token.go",
		hunk: hunk{at: 88, context: "func (s *Service) Refresh(",
			del: []string{"return s.issue(ctx, t.UserID)"},
			add: []string{"if err := s.store.Revoke(ctx, t.ID); err != nil {", "\treturn Pair{}, err", "}", "return s.issue(ctx, t.UserID)"}},
		pkg: "./internal/auth/...", tests: []string{"TestRefreshRotates", "TestRefreshReuseDetected", "TestExpiry"},
		files: 2, outcome: succeeds,
	},
	{
		name: "deps", title: "deps: upgrade rpc to v2",
		prompt: "upgrade github.com/acme/rpc to v2",
		reads:  []string{"go.mod", "internal/client/rpc.go"},
		grep:   "rpc.Dial", edit: "internal/client/rpc.go",
		hunk: hunk{at: 23, context: "func New(addr string) (*Client, error) {",
			del: []string{"conn, err := rpc.Dial(addr)"},
			add: []string{"conn, err := rpc.NewClient(addr,", "\trpc.WithTimeout(5*time.Second))"}},
		pkg: "./internal/client/...", tests: []string{"TestDial", "TestRetry", "TestStreaming"},
		failing: []string{"TestRetry", "TestStreaming"},
		files:   4, outcome: fails,
	},
	{
		name: "flaky", title: "ci: fix flaky test",
		prompt: "TestWorkerShutdown fails 1 run in 20 — fix it",
		reads:  []string{"internal/worker/pool_test.go", "internal/worker/pool.go"},
		grep:   "time.Sleep", edit: "internal/worker/pool_test.go",
		hunk: hunk{at: 57, context: "func TestWorkerShutdown(",
			del: []string{"time.Sleep(50 * time.Millisecond)"},
			add: []string{"waitFor(t, time.Second, p.Idle)"}},
		pkg: "./internal/worker/...", tests: []string{"TestWorkerShutdown", "TestWorkerPanics"},
		files: 1, outcome: succeeds,
	},
	{
		name: "lint", title: "lint: fix vet warnings",
		prompt: "make go vet and staticcheck clean",
		reads:  []string{"internal/report/csv.go"},
		grep:   "fmt.Sprintf(\"%s\"", edit: "internal/report/csv.go",
		hunk: hunk{at: 14, context: "func header(cols []string) string {",
			del: []string{"return fmt.Sprintf(\"%s\", strings.Join(cols, \",\"))"},
			add: []string{"return strings.Join(cols, \",\")"}},
		pkg: "./internal/report/...", tests: []string{"TestCSVHeader", "TestCSVEscape"},
		files: 3, outcome: succeeds,
	},
	{
		name: "perf", title: "perf: cache price lookups",
		prompt: "GET /v1/quote is slow — add a cache",
		reads:  []string{"internal/pricing/lookup.go", "internal/pricing/lookup_test.go"},
		grep:   "func Lookup", edit: "internal/pricing/lookup.go",
		hunk: hunk{at: 30, context: "func (l *Lookup) Price(sku string) (Money, error) {",
			add: []string{"if p, ok := l.cache.Get(sku); ok {", "\treturn p, nil", "}"}},
		pkg: "./internal/pricing/...", tests: []string{"TestPrice", "TestPriceCached", "BenchmarkPrice"},
		files: 2, outcome: succeeds,
	},
	{
		name: "i18n", title: "web: extract strings",
		prompt: "move UI strings into locales/en.json",
		reads:  []string{"web/src/Checkout.tsx", "web/locales/en.json"},
		grep:   "\"Pay now\"", edit: "web/src/Checkout.tsx",
		hunk: hunk{at: 77, context: "export function Checkout() {",
			del: []string{"<button>Pay now</button>"},
			add: []string{"<button>{t(\"checkout.pay\")}</button>"}},
		pkg: "./web/...", tests: []string{"TestLocalesComplete"},
		files: 5, outcome: succeeds,
	},
	{
		name: "logging", title: "obs: structured logs",
		prompt: "switch the server to log/slog",
		reads:  []string{"cmd/serve.go", "internal/api/middleware.go"},
		grep:   "log.Printf", edit: "internal/api/middleware.go",
		hunk: hunk{at: 19, context: "func logRequests(next http.Handler) http.Handler {",
			del: []string{"log.Printf(\"%s %s\", r.Method, r.URL)"},
			add: []string{"slog.Info(\"request\", \"method\", r.Method,", "\t\"path\", r.URL.Path)"}},
		pkg: "./internal/api/...", tests: []string{"TestLogRequests"},
		files: 6, outcome: succeeds,
	},
}

// findTask returns the task with the given script name.
func findTask(name string) (task, bool) {
	for _, t := range tasks {
		if t.name == name {
			return t, true
		}
	}
	return task{}, false
}

// ScriptNames lists the simulated agents' script names in demo order.
func ScriptNames() []string {
	out := make([]string, len(tasks))
	for i, t := range tasks {
		out[i] = t.name
	}
	return out
}
