package config

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

const categoriesDoc = `
[kinds.claude]
retry_on = ["overloaded"]
backoff = "5s"
max_tries = 2

[categories.quick]
description = "small changes"
kind = "claude"
model = "claude-haiku-4-5"
prompt_prefix = "Small change. "
fallback = ["codex", "deep", "gemini"]

[categories.deep]
kind = "claude"
model = "claude-opus-4-5"
fallback = ["wide", "codex"]
retry_on = ["rate_limit", "overloaded"]
backoff = "1m"
max_tries = 3

[categories.wide]
kind = "opencode"
model = "openrouter/google/gemini-2.5-pro"
prompt_prefix = "Wide: "
fallback = ["quick"]

[categories.plain]
kind = "claude"
`

// TestCategoryRoutes resolves categories into the routes a spawn tries.
func TestCategoryRoutes(t *testing.T) {
	isolate(t)
	cfg, diags := Decode(Default(), "f.toml", []byte(categoriesDoc))
	// deep -> wide -> quick -> deep is a cycle: reported, and still
	// resolved without looping.
	if len(diags) != 1 || !strings.Contains(diags[0].Msg, "deep → wide → quick → deep") {
		t.Fatalf("diagnostics: %v", diags)
	}
	kindRetry := func(r Route) Route {
		r.RetryOn, r.Backoff, r.MaxTries = []string{"overloaded"}, 5*time.Second, 2
		return r
	}
	deepRetry := func(r Route) Route {
		r.RetryOn, r.Backoff, r.MaxTries = []string{"rate_limit", "overloaded"}, time.Minute, 3
		return r
	}
	cases := []struct {
		name string
		want []Route
		err  string
	}{
		{name: "quick", want: []Route{
			kindRetry(Route{Category: "quick", Kind: "claude", Model: "claude-haiku-4-5", PromptPrefix: "Small change. "}),
			// A fallback kind: no model, the listing category's prefix.
			{Kind: "codex", PromptPrefix: "Small change. ", MaxTries: 1},
			// A fallback category: its own settings, then its own fallbacks
			// depth first; codex again is not repeated.
			deepRetry(Route{Category: "deep", Kind: "claude", Model: "claude-opus-4-5"}),
			{Category: "wide", Kind: "opencode", Model: "openrouter/google/gemini-2.5-pro", PromptPrefix: "Wide: ", MaxTries: 1},
			{Kind: "gemini", PromptPrefix: "Small change. ", MaxTries: 1},
		}},
		{name: "deep", want: []Route{
			deepRetry(Route{Category: "deep", Kind: "claude", Model: "claude-opus-4-5"}),
			{Category: "wide", Kind: "opencode", Model: "openrouter/google/gemini-2.5-pro", PromptPrefix: "Wide: ", MaxTries: 1},
			kindRetry(Route{Category: "quick", Kind: "claude", Model: "claude-haiku-4-5", PromptPrefix: "Small change. "}),
			{Kind: "codex", PromptPrefix: "Small change. ", MaxTries: 1},
			{Kind: "gemini", PromptPrefix: "Small change. ", MaxTries: 1},
		}},
		{name: "plain", want: []Route{kindRetry(Route{Category: "plain", Kind: "claude"})}},
		{name: "nope", err: `unknown category "nope"; known categories: deep, plain, quick, wide`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := cfg.Routes(c.name)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("routes:\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
	if r := cfg.KindRoute("codex"); !reflect.DeepEqual(r, Route{Kind: "codex", MaxTries: 1}) {
		t.Errorf("KindRoute(codex) = %+v", r)
	}
}

// TestProvider derives the provider of [limits.providers] from the kind
// and the model.
func TestProvider(t *testing.T) {
	cfg := Default()
	cfg.Kinds["myclaude"] = Kind{Command: []string{"/opt/bin/claude"}}
	cfg.Kinds["wrapped"] = Kind{Command: []string{"run-it"}, Hooks: "codex"}
	cases := []struct{ kind, model, want string }{
		{"claude", "", "anthropic"},
		{"claude", "claude-opus-4-5", "anthropic"},
		{"myclaude", "x", "anthropic"}, // by its command's name
		{"codex", "gpt-5", "openai"},
		{"wrapped", "", "openai"}, // by its hooks
		{"gemini", "gemini-2.5-pro", "google"},
		{"opencode", "anthropic/claude-haiku-4-5", "anthropic"},
		{"opencode", "openrouter/google/gemini-2.5-pro", "openrouter"},
		{"opencode", "", ""},
		{"aider", "deepseek/deepseek-chat", "deepseek"},
		{"shell", "", ""},
		{"nope", "mistral/large", "mistral"},
	}
	for _, c := range cases {
		if got := cfg.Provider(c.kind, c.model); got != c.want {
			t.Errorf("Provider(%q, %q) = %q, want %q", c.kind, c.model, got, c.want)
		}
	}
}

// TestCategoryValidation: every mistake is one sentence on its line.
func TestCategoryValidation(t *testing.T) {
	isolate(t)
	doc := `[categories.a]
kind = "nope"

[categories.b]
fallback = ["c", "missing"]

[categories.c]
kind = "claude"
fallback = ["b"]
model = "--dangerously-skip-permissions"

[categories.claude]
kind = "codex"

[categories.d]
kind = "shell"
model = "x"

[categories.e]
kind = "opencode"
model = "gpt-5"
retry_on = ["timeout"]
max_tries = 50
backoff = "2h"

[categories.f]
kind = "claude"
fallback = ["f"]

[[startup]]
kind = "claude"
category = "f"

[[startup]]
category = "zzz"

[limits.models]
"gpt-4.1" = 10001
`
	_, diags := Decode(Default(), "f.toml", []byte(doc))
	var got []string
	for _, d := range diags {
		got = append(got, fmt.Sprintf("%d: %s", d.Line, d.Msg))
	}
	want := []string{
		`2: categories.a.kind = "nope": no such kind (known: aider, claude, codex, gemini, opencode, shell)`,
		`4: categories.b.kind: say which kind runs it`,
		`5: categories.b.fallback: "missing" is neither a category nor a kind`,
		`5: categories.b.fallback: a fallback cycle b → c → b; remove one of these fallbacks`,
		`10: categories.c.model = "--dangerously-skip-permissions": begins with "-", which the CLI would read as a flag`,
		`12: categories.claude: a kind has this name too`,
		`17: categories.d.model: kind shell runs a program agentgrid passes no model to`,
		`21: categories.e.model = "gpt-5": opencode takes provider/model, e.g. "anthropic/gpt-5"`,
		`22: categories.e.retry_on: unknown error "timeout" (one of rate_limit, overloaded)`,
		`23: categories.e.max_tries = 50: must be between 0 and 20`,
		`24: categories.e.backoff = 2h0m0s: must be between 0s and 1h`,
		`28: categories.f.fallback: a fallback cycle f → f`,
		`32: startup[0]: give a kind or a category, not both`,
		`35: startup[1].category = "zzz": no such category`,
		`38: limits.models."gpt-4.1" = 10001: must be between 0 and 10000`,
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, w)
		}
		if !found {
			t.Errorf("missing %q in:\n%s", w, strings.Join(got, "\n"))
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
}

func TestCheckModel(t *testing.T) {
	for _, c := range []struct {
		model string
		ok    bool
	}{
		{"claude-haiku-4-5", true}, {"anthropic/claude-haiku-4-5", true}, {"gpt-4.1", true},
		{"$(rm${IFS}-rf${IFS}~);`x`|y&z>/tmp/p", true}, // one argv element: no shell ever reads it
		{"-m", false}, {"a b", false}, {"a\nb", false}, {"a\x1b[2J", false}, {strings.Repeat("m", 201), false},
	} {
		if err := CheckModel(c.model); (err == nil) != c.ok {
			t.Errorf("CheckModel(%q) = %v", c.model, err)
		}
	}
}
