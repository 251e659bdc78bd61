package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentcli/registry"
)

// Category is a [categories.NAME] entry: a kind of work named by what it
// is ("quick", "deep") rather than by the program that does it. A spawn
// with --category runs its kind with its model and prompt prefix, and
// moves down its fallback list when a start fails or the model's API
// refuses with a rate limit.
type Category struct {
	// Description says what the category is for, for `agentgrid kinds`
	// and the orchestrating model (MCP list_kinds).
	Description string `toml:"description"`
	// Kind is the [kinds.NAME] preset that runs it.
	Kind string `toml:"kind"`
	// Model is passed the way the kind's CLI takes a model (claude
	// --model, codex --model, gemini -m, opencode --model provider/model).
	Model string `toml:"model"`
	// PromptPrefix goes in front of the spawn's prompt.
	PromptPrefix string `toml:"prompt_prefix"`
	// Fallback lists categories or kinds to try, in order, after this one
	// failed to start or hit a rate limit.
	Fallback []string `toml:"fallback"`
	// RetryOn, Backoff and MaxTries are the retry policy; when RetryOn is
	// empty the kind's applies.
	RetryOn  []string `toml:"retry_on"`
	Backoff  Duration `toml:"backoff"`
	MaxTries int      `toml:"max_tries"`
}

// Bounds of a retry policy.
const (
	MaxTriesMax = 20
	MaxBackoff  = time.Hour
	// MaxModelLen bounds a model name.
	MaxModelLen = 200
)

// Route is one way to run a category: a kind, with the model, prompt
// prefix and retry policy that apply to it.
type Route struct {
	// Category is the category whose settings these are; "" when a
	// fallback list names a kind.
	Category     string
	Kind         string
	Model        string
	PromptPrefix string
	RetryOn      []string
	Backoff      time.Duration
	// MaxTries is how often this route is tried in all, at least 1.
	MaxTries int
}

// Routes expands a category into the routes a spawn tries in order: the
// category itself, then its fallbacks depth first (a fallback category
// with its own fallbacks, a fallback kind without a model but with the
// listing category's prompt prefix). A route that is already in the list
// (the same kind and model) is not repeated, and a category is expanded
// once, so a cycle ends (Validate reports it).
func (c Config) Routes(name string) ([]Route, error) {
	if _, ok := c.Categories[name]; !ok {
		return nil, fmt.Errorf("unknown category %q; known categories: %s", name, orNone(sortedMapKeys(c.Categories)))
	}
	var out []Route
	seen := map[string]bool{}
	add := func(r Route) {
		key := r.Kind + "\x00" + r.Model
		if !seen[key] {
			seen[key] = true
			out = append(out, r)
		}
	}
	expanded := map[string]bool{}
	var walk func(string)
	walk = func(name string) {
		if expanded[name] {
			return
		}
		expanded[name] = true
		cat := c.Categories[name]
		add(c.route(name, cat.Kind, cat.Model, cat.PromptPrefix, cat))
		for _, f := range cat.Fallback {
			if _, ok := c.Categories[f]; ok {
				walk(f)
			} else if _, ok := c.Kinds[f]; ok {
				add(c.route("", f, "", cat.PromptPrefix, Category{}))
			}
		}
	}
	walk(name)
	return out, nil
}

// KindRoute is the one route of a spawn that names a kind: its retry
// policy and no model.
func (c Config) KindRoute(kind string) Route { return c.route("", kind, "", "", Category{}) }

// route builds a route; the category's retry policy wins over the kind's
// when it names errors to retry on.
func (c Config) route(category, kind, model, prefix string, cat Category) Route {
	r := Route{Category: category, Kind: kind, Model: model, PromptPrefix: prefix, MaxTries: 1}
	retryOn, backoff, tries := cat.RetryOn, cat.Backoff, cat.MaxTries
	if len(retryOn) == 0 {
		k := c.Kinds[kind]
		retryOn, backoff, tries = k.RetryOn, k.Backoff, k.MaxTries
	}
	if len(retryOn) > 0 {
		r.RetryOn, r.Backoff, r.MaxTries = slices.Clone(retryOn), backoff.Duration, max(tries, 1)
	}
	return r
}

// KindCLI is the agent CLI a kind runs: the one its hooks name, else the
// one its command is; nil for a program agentgrid does not know.
func (c Config) KindCLI(kind string) agentcli.CLI {
	k, ok := c.Kinds[kind]
	if !ok {
		return nil
	}
	if cli, ok := registry.Lookup(k.Hooks); ok && k.Hooks != "" {
		return cli
	}
	if len(k.Command) > 0 {
		if cli, ok := registry.Lookup(filepath.Base(k.Command[0])); ok {
			return cli
		}
	}
	if len(k.Command) == 0 {
		cli, _ := registry.Lookup("shell")
		return cli
	}
	return nil
}

// Provider is who serves an agent of kind running model, for
// [limits.providers]: the kind's CLI says (claude: anthropic, codex:
// openai, gemini: google, opencode and aider: the "provider/" prefix of
// the model); "" when it cannot tell.
func (c Config) Provider(kind, model string) string {
	if cli := c.KindCLI(kind); cli != nil {
		return cli.Provider(model)
	}
	return agentcli.ProviderPrefix(model)
}

// CheckModel says what is wrong with a model name, or nil. A model is
// passed to the CLI as one argv element, never through a shell; one that
// begins with "-" would be read as a flag, and control characters or
// spaces are no model's name.
func CheckModel(model string) error {
	switch {
	case model == "":
		return nil
	case len(model) > MaxModelLen:
		return fmt.Errorf("longer than %d bytes", MaxModelLen)
	case strings.HasPrefix(model, "-"):
		return fmt.Errorf("begins with \"-\", which the CLI would read as a flag")
	case strings.IndexFunc(model, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return fmt.Errorf("has spaces or control characters")
	}
	return nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none (add a [categories.NAME] table to the config)"
	}
	return strings.Join(names, ", ")
}

// validateCategories checks [categories] and the retry policies of kinds.
func validateCategories(cfg Config, bad func(path, format string, args ...any)) {
	retry := func(p, what string, on []string, backoff Duration, tries int) {
		for _, f := range on {
			if !slices.Contains(agentcli.Failures, f) {
				bad(p+".retry_on", "%s.retry_on: unknown error %q (one of %s)", what, f, strings.Join(agentcli.Failures, ", "))
			}
		}
		if tries < 0 || tries > MaxTriesMax {
			bad(p+".max_tries", "%s.max_tries = %d: must be between 0 and %d", what, tries, MaxTriesMax)
		}
		if backoff.Duration < 0 || backoff.Duration > MaxBackoff {
			bad(p+".backoff", "%s.backoff = %s: must be between 0s and %s", what, backoff.Duration, shortDuration(MaxBackoff))
		}
	}
	for _, name := range sortedMapKeys(cfg.Kinds) {
		k := cfg.Kinds[name]
		retry("kinds."+name, "kinds."+name, k.RetryOn, k.Backoff, k.MaxTries)
	}
	for _, name := range sortedMapKeys(cfg.Categories) {
		cat := cfg.Categories[name]
		p, what := "categories."+name, "categories."+displayKey([]string{name})
		if _, ok := cfg.Kinds[name]; ok {
			bad(p, "%s: a kind has this name too; give the category another name so that fallback lists and spawns are unambiguous", what)
		}
		switch _, ok := cfg.Kinds[cat.Kind]; {
		case cat.Kind == "":
			bad(p+".kind", "%s.kind: say which kind runs it (one of %s)", what, strings.Join(sortedMapKeys(cfg.Kinds), ", "))
		case !ok:
			bad(p+".kind", "%s.kind = %q: no such kind (known: %s)", what, cat.Kind, strings.Join(sortedMapKeys(cfg.Kinds), ", "))
		case cat.Model != "":
			checkCategoryModel(cfg, p, what, cat, bad)
		}
		for _, f := range cat.Fallback {
			_, isCat := cfg.Categories[f]
			_, isKind := cfg.Kinds[f]
			if !isCat && !isKind {
				bad(p+".fallback", "%s.fallback: %q is neither a category nor a kind", what, f)
			}
		}
		retry(p, what, cat.RetryOn, cat.Backoff, cat.MaxTries)
		if cycle := fallbackCycle(cfg, name); cycle != nil {
			bad(p+".fallback", "%s.fallback: a fallback cycle %s; remove one of these fallbacks", what, strings.Join(cycle, " → "))
		}
	}
}

func checkCategoryModel(cfg Config, p, what string, cat Category, bad func(path, format string, args ...any)) {
	if err := CheckModel(cat.Model); err != nil {
		bad(p+".model", "%s.model = %q: %v", what, cat.Model, err)
		return
	}
	switch err := cfg.CheckKindModel(cat.Kind, cat.Model); {
	case errors.Is(err, ErrNoModelArgs):
		bad(p+".model", "%s.model: %v; leave model out", what, err)
	case err != nil:
		bad(p+".model", "%s.model = %q: %v", what, cat.Model, err)
	}
}

// ErrNoModelArgs is CheckKindModel's answer for a kind whose program
// takes no model.
var ErrNoModelArgs = errors.New("runs a program agentgrid passes no model to (claude, codex, gemini, opencode and aider take one)")

// CheckKindModel says why kind cannot be started with model (a category's
// model, or spawn --model), or nil: the model's own form (CheckModel), a
// kind whose program takes no model (ErrNoModelArgs, wrapped), and
// OpenCode's provider/model form.
func (c Config) CheckKindModel(kind, model string) error {
	if err := CheckModel(model); err != nil {
		return err
	}
	cli := c.KindCLI(kind)
	if cli == nil || cli.ModelArgs(model) == nil {
		return fmt.Errorf("kind %s %w", kind, ErrNoModelArgs)
	}
	if cli.Name() == "opencode" && agentcli.ProviderPrefix(model) == "" {
		return fmt.Errorf("opencode takes provider/model, e.g. \"anthropic/%s\"", model)
	}
	return nil
}

// fallbackCycle returns a cycle of fallbacks that starts and ends at
// name (["a", "b", "a"]), or nil. Only cycles through name itself whose
// alphabetically first category is name count, so that each cycle is
// reported once.
func fallbackCycle(cfg Config, name string) []string {
	var path []string
	onPath := map[string]bool{}
	done := map[string]bool{}
	var visit func(string) []string
	visit = func(n string) []string {
		path = append(path, n)
		onPath[n] = true
		for _, f := range cfg.Categories[n].Fallback {
			if _, ok := cfg.Categories[f]; !ok {
				continue
			}
			if f == name {
				cycle := append(slices.Clone(path), f)
				if slices.Min(cycle) != name {
					return nil // reported by the first of its categories
				}
				return cycle
			}
			if onPath[f] || done[f] {
				continue
			}
			if c := visit(f); c != nil {
				return c
			}
		}
		path = path[:len(path)-1]
		onPath[n] = false
		done[n] = true
		return nil
	}
	return visit(name)
}
