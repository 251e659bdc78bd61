package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentcli/registry"
	"github.com/agentgrid/agentgrid/layout"
)

// The event types a session publishes, which [[hooks]] on may list
// (package hooks says what each one is).
const (
	EventSessionStart  = "session_start"
	EventSessionEnd    = "session_end"
	EventAgentQueued   = "agent_queued"
	EventAgentStarted  = "agent_started"
	EventAgentState    = "agent_state"
	EventAgentExited   = "agent_exited"
	EventAgentClosed   = "agent_closed"
	EventStatusChanged = "status_changed"
	EventBell          = "bell"
	EventAgentTurnDone = "agent_turn_done"
)

// Events are the hook event names, in the order they are documented.
var Events = []string{
	EventSessionStart, EventSessionEnd, EventAgentQueued, EventAgentStarted, EventAgentState,
	EventAgentExited, EventAgentClosed, EventStatusChanged, EventBell, EventAgentTurnDone,
}

// The grants [kinds.NAME] grants may list: each lets agents of the kind do
// that to any agent of the session (internal/control names the methods each
// one opens); GrantAll is every one of them.
const (
	GrantRead   = "read"
	GrantWait   = "wait"
	GrantSend   = "send"
	GrantClose  = "close"
	GrantSignal = "signal"
	GrantAll    = "all"
)

// Grants are what [kinds.NAME] grants may list, GrantAll last.
var Grants = []string{GrantRead, GrantWait, GrantSend, GrantClose, GrantSignal, GrantAll}

// The agentgrid MCP tools, by the names [kinds.NAME] mcp_tools may list
// (internal/control says which socket methods each one stands for).
const (
	ToolSpawn  = "spawn_agent"
	ToolList   = "list_agents"
	ToolRead   = "read_agent_output"
	ToolSend   = "send_to_agent"
	ToolWait   = "wait_agent"
	ToolClose  = "close_agent"
	ToolStatus = "set_status"
	ToolEvents = "agent_events"
	ToolKinds  = "list_kinds"
	ToolLoop   = "loop_agent"
)

// MCPTools lists every MCP tool, in the order the server offers them.
var MCPTools = []string{ToolSpawn, ToolList, ToolRead, ToolSend, ToolWait, ToolClose, ToolStatus, ToolEvents, ToolKinds, ToolLoop}

// BuiltinThemes are the themes compiled into the binary, and "auto" (light
// or dark after the outer terminal's background); ui.TestThemeNamesAgree
// keeps the list equal to the themes package's.
var BuiltinThemes = []string{"auto", "dark", "light", "solarized", "gruvbox", "nord", "high-contrast"}

// LogLevels are the accepted values of log.level.
var LogLevels = []string{"debug", "info", "warn", "error"}

// Bounds checked by Validate. Every number and duration has a range, so a
// typo such as kill_grace = "2562047h" (which overflows when doubled) or
// scrollback = 1000000000 is reported instead of breaking the session.
const (
	MinMainSize       = 20
	MaxMainSize       = 80
	MinAgentWidthMin  = 10
	MinAgentWidthMax  = 500
	MinAgentHeightMin = 3
	MinAgentHeightMax = 200
	MaxFPS            = 120
	MaxQueuedMax      = 10000
	MaxScrollback     = 1000000
	MaxLimit          = 10000
	MaxEntryWidthMax  = 500
	// MaxKillGrace bounds agents.kill_grace: quitting waits up to twice this.
	MaxKillGrace = 5 * time.Minute
	// MaxWait bounds finished_linger, idle_after and stale_after.
	MaxWait = 24 * time.Hour
	// MaxHookTimeout bounds hooks[].timeout.
	MaxHookTimeout = time.Hour
	// MaxKeepState bounds agents.keep_state: ten years.
	MaxKeepState = 3650 * 24 * time.Hour
)

// problem is a validation failure about a key path of the merged config.
type problem struct {
	path []string
	msg  string
}

// Validate checks a config's values and cross-references (kinds, themes,
// events, the prefix key). Diagnostics have no file or line; Load reports
// the same problems located in the files.
func Validate(cfg Config) []Diagnostic {
	var out []Diagnostic
	for _, p := range validate(cfg, ThemeDir()) {
		out = append(out, Diagnostic{Msg: p.msg})
	}
	return out
}

func validate(cfg Config, themeDir string) []problem {
	var ps []problem
	bad := func(path string, format string, args ...any) {
		ps = append(ps, problem{path: strings.Split(path, "."), msg: fmt.Sprintf(format, args...)})
	}
	kindKnown := func(k string) bool { _, ok := cfg.Kinds[k]; return ok }
	kindList := func() string {
		names := make([]string, 0, len(cfg.Kinds))
		for k := range cfg.Kinds {
			names = append(names, k)
		}
		slices.Sort(names)
		return strings.Join(names, ", ")
	}
	between := func(path string, v, lo, hi int) {
		if v < lo || v > hi {
			bad(path, "%s = %d: must be between %d and %d", displayKey(strings.Split(path, ".")), v, lo, hi)
		}
	}
	durBetween := func(path string, d Duration, hi time.Duration) {
		if d.Duration < 0 || d.Duration > hi {
			bad(path, "%s = %s: must be between 0s and %s", displayKey(strings.Split(path, ".")), d.Duration, shortDuration(hi))
		}
	}

	if k := cfg.Orchestrator.Kind; k != "" && !kindKnown(k) {
		bad("orchestrator.kind", "orchestrator.kind = %q: no such kind (known: %s)", k, kindList())
	}

	l := cfg.Layout
	if !layout.Valid(l.Name) {
		bad("layout.name", "layout.name = %q: unknown layout (one of %s)", l.Name, strings.Join(layout.Names(), ", "))
	}
	if l.MainSize < MinMainSize || l.MainSize > MaxMainSize {
		bad("layout.main_size", "layout.main_size = %d: must be between %d and %d (percent)", l.MainSize, MinMainSize, MaxMainSize)
	}
	between("layout.min_agent_width", l.MinAgentWidth, MinAgentWidthMin, MinAgentWidthMax)
	between("layout.min_agent_height", l.MinAgentHeight, MinAgentHeightMin, MinAgentHeightMax)

	a := cfg.Agents
	between("agents.max_queued", a.MaxQueued, 0, MaxQueuedMax)
	between("agents.scrollback", a.Scrollback, 0, MaxScrollback)
	durBetween("agents.finished_linger", a.FinishedLinger, MaxWait)
	durBetween("agents.kill_grace", a.KillGrace, MaxKillGrace)
	durBetween("agents.idle_after", a.IdleAfter, MaxWait)
	durBetween("agents.keep_state", a.KeepState, MaxKeepState)
	between("agents.max_depth", a.MaxDepth, 1, 64)
	between("agents.max_descendants", a.MaxDescendants, 0, 10000)
	if a.LogMax.Bytes != 0 && a.LogMax.Bytes < MinLogMax {
		bad("agents.log_max", "agents.log_max = %d bytes: must be 0 (no limit) or at least 64KiB", a.LogMax.Bytes)
	}

	between("limits.default", cfg.Limits.Default, 0, MaxLimit)
	for _, k := range sortedMapKeys(cfg.Limits.Kinds) {
		p := "limits.kinds." + k
		between(p, cfg.Limits.Kinds[k], 0, MaxLimit)
		if !kindKnown(k) {
			bad(p, "limits.kinds.%s: no such kind (known: %s)", k, kindList())
		}
	}
	// Model names hold dots ("gpt-4.1"): their paths are built by parts.
	for _, table := range []string{"providers", "models"} {
		m := cfg.Limits.Providers
		if table == "models" {
			m = cfg.Limits.Models
		}
		for _, k := range sortedMapKeys(m) {
			if path := []string{"limits", table, k}; m[k] < 0 || m[k] > MaxLimit {
				ps = append(ps, problem{path: path, msg: fmt.Sprintf("%s = %d: must be between 0 and %d", displayKey(path), m[k], MaxLimit)})
			}
		}
	}

	if err := ParseKey(cfg.Keys.Prefix); err != nil {
		bad("keys.prefix", "keys.prefix = %q: %v", cfg.Keys.Prefix, err)
	} else if p, _ := NormalizeKey(cfg.Keys.Prefix); cfg.Keys.AltArrowsFocus && isAltArrow(p) {
		bad("keys.alt_arrows_focus", "keys.alt_arrows_focus = true takes %s, the prefix key: turn it off or choose another prefix", p)
	}

	if err := checkTheme(cfg.UI.Theme, themeDir); err != nil {
		bad("ui.theme", "ui.theme = %q: %v", cfg.UI.Theme, err)
	}
	for _, ev := range cfg.UI.NotifyOn {
		if !slices.Contains(NoticeEvents, ev) {
			bad("ui.notify_on", "ui.notify_on: %q is not an event (known: %s)", ev, strings.Join(NoticeEvents, ", "))
		}
	}
	if v := cfg.Clipboard.PaneOSC52; v != PaneOSC52Off && v != PaneOSC52Write {
		bad("clipboard.pane_osc52", "clipboard.pane_osc52 = %q: must be %q or %q", v, PaneOSC52Off, PaneOSC52Write)
	}
	if cfg.UI.FPS < 1 || cfg.UI.FPS > MaxFPS {
		bad("ui.fps", "ui.fps = %d: must be between 1 and %d", cfg.UI.FPS, MaxFPS)
	}

	between("status.max_entry_width", cfg.Status.MaxEntryWidth, 1, MaxEntryWidthMax)
	durBetween("status.stale_after", cfg.Status.StaleAfter, MaxWait)

	if !slices.Contains(LogLevels, cfg.Log.Level) {
		bad("log.level", "log.level = %q: must be one of %s", cfg.Log.Level, strings.Join(LogLevels, ", "))
	}

	for i, s := range cfg.Startup {
		p := "startup." + strconv.Itoa(i)
		_, catKnown := cfg.Categories[s.Category]
		switch {
		case s.Kind != "" && s.Category != "":
			bad(p+".category", "startup[%d]: give a kind or a category, not both", i)
		case s.Category != "" && !catKnown:
			bad(p+".category", "startup[%d].category = %q: no such category (known: %s)", i, s.Category, orNone(sortedMapKeys(cfg.Categories)))
		case s.Kind != "" && !kindKnown(s.Kind):
			bad(p+".kind", "startup[%d].kind = %q: no such kind (known: %s)", i, s.Kind, kindList())
		case len(s.Command) == 0 && s.Kind == "" && s.Category == "":
			bad(p, "startup[%d]%s: needs a command or a kind", i, titled(s.Title))
		case len(s.Command) > 0 && s.Command[0] == "":
			bad(p+".command", "startup[%d].command: the program name is empty", i)
		}
	}

	for i, h := range cfg.Hooks {
		p := "hooks." + strconv.Itoa(i)
		if len(h.On) == 0 {
			bad(p+".on", "hooks[%d].on: list at least one event (%s)", i, strings.Join(Events, ", "))
		}
		for _, ev := range h.On {
			if !slices.Contains(Events, ev) {
				bad(p+".on", "hooks[%d].on: unknown event %q (one of %s)", i, ev, strings.Join(Events, ", "))
			}
		}
		if len(h.Run) == 0 || h.Run[0] == "" {
			bad(p+".run", "hooks[%d].run: needs a command to run", i)
		}
		durBetween(p+".timeout", h.Timeout, MaxHookTimeout)
	}

	validatePolicies(cfg, bad)
	validateCategories(cfg, bad)

	for _, name := range sortedMapKeys(cfg.Kinds) {
		k := cfg.Kinds[name]
		p := "kinds." + name
		if _, ok := registry.Adapter(k.Hooks); k.Hooks != "" && !ok {
			bad(p+".hooks", "kinds.%s.hooks = %q: unknown adapter (one of %s)", name, k.Hooks, strings.Join(registry.Adapters(), ", "))
		}
		if len(k.Command) > 0 && k.Command[0] == "" {
			bad(p+".command", "kinds.%s.command: the program name is empty", name)
		}
		if k.Teams && teamsCLI(k) != "claude" {
			bad(p+".teams", "kinds.%s.teams: agentgrid turns on agent teams only for claude; for OpenCode's oh-my-opencode-slim use omo = true", name)
		}
		if k.OMO && teamsCLI(k) != "opencode" {
			bad(p+".omo", "kinds.%s.omo: oh-my-opencode-slim's panes are an OpenCode plugin's; set omo only for a kind that runs opencode", name)
		}
		for _, g := range k.Grants {
			if !slices.Contains(Grants, g) {
				bad(p+".grants", "kinds.%s.grants: unknown grant %q (one of %s)", name, g, strings.Join(Grants, ", "))
			}
		}
		for _, tool := range k.MCPTools {
			if !slices.Contains(MCPTools, tool) {
				bad(p+".mcp_tools", "kinds.%s.mcp_tools: unknown MCP tool %q (one of %s)", name, tool, strings.Join(MCPTools, ", "))
			}
		}
	}
	return ps
}

// teamsCLI is the agent CLI a kind runs: its hooks adapter, else its
// command's name.
func teamsCLI(k Kind) string {
	if k.Hooks != "" {
		return k.Hooks
	}
	if len(k.Command) > 0 {
		return filepath.Base(k.Command[0])
	}
	return ""
}

// shortDuration writes a bound the way a user would: "5m", "24h", "1h".
func shortDuration(d time.Duration) string {
	s := d.String()
	s = strings.TrimSuffix(s, "0s")
	return strings.TrimSuffix(s, "0m")
}

func titled(title string) string {
	if title == "" {
		return ""
	}
	return fmt.Sprintf(" (%q)", title)
}

// checkTheme accepts a built-in theme or a user theme file in themeDir.
func checkTheme(name, themeDir string) error {
	if slices.Contains(BuiltinThemes, name) {
		return nil
	}
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return fmt.Errorf("not a theme name (built-in: %s)", strings.Join(BuiltinThemes, ", "))
	}
	if themeDir == "" {
		return fmt.Errorf("unknown theme (built-in: %s)", strings.Join(BuiltinThemes, ", "))
	}
	path := filepath.Join(themeDir, name+".toml")
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("unknown theme: not built in (%s) and %s does not exist", strings.Join(BuiltinThemes, ", "), path)
	}
	return nil
}

func sortedMapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Keys are matched against Bubble Tea's key strings (tea.KeyPressMsg's
// String()), which print modifiers in this fixed order.
var modifierOrder = []string{"ctrl", "alt", "shift", "meta", "hyper", "super"}

// namedKeys are the key names the key strings use for non-printing keys.
var namedKeys = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`enter tab backspace esc space up down left right begin find insert delete
		select pgup pgdown home end caps_lock scroll_lock num_lock print_screen pause menu`) {
		m[k] = true
	}
	for i := 1; i <= 63; i++ {
		m["f"+strconv.Itoa(i)] = true
	}
	return m
}()

// ParseKey checks that s names a key the way the UI matches keys, e.g.
// "ctrl+b", "ctrl+a", "alt+space", "ctrl+]", "f12". Modifiers may be
// written in any order and case; NormalizeKey gives the canonical form.
func ParseKey(s string) error {
	_, err := NormalizeKey(s)
	return err
}

// NormalizeKey returns the canonical form of a key description: lower-case
// modifiers in the order ctrl, alt, shift, meta, hyper, super, then the key
// ("Alt+Ctrl+B" -> "ctrl+alt+b").
func NormalizeKey(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("empty key")
	}
	// The key itself may be "+", as in "ctrl++".
	var mods []string
	rest := s
	for {
		i := strings.IndexByte(rest, '+')
		if i <= 0 || i == len(rest)-1 {
			break
		}
		mod := strings.ToLower(rest[:i])
		if !slices.Contains(modifierOrder, mod) {
			return "", fmt.Errorf("unknown modifier %q (use %s)", rest[:i], strings.Join(modifierOrder, ", "))
		}
		if slices.Contains(mods, mod) {
			return "", fmt.Errorf("modifier %q given twice", mod)
		}
		mods = append(mods, mod)
		rest = rest[i+1:]
	}
	key := rest
	switch {
	case namedKeys[strings.ToLower(key)]:
		key = strings.ToLower(key)
	case strings.ToLower(key) == "escape":
		key = "esc"
	case len([]rune(key)) == 1:
		r := []rune(key)[0]
		if r < ' ' || r == 0x7f {
			return "", fmt.Errorf("control character in key; write it as ctrl+LETTER")
		}
		if r == ' ' {
			key = "space"
		}
		if slices.Contains(mods, "ctrl") && r >= 'A' && r <= 'Z' {
			// Control combinations ignore case: "Ctrl+B" means ctrl+b.
			key = strings.ToLower(key)
		} else if len(mods) > 0 && r >= 'A' && r <= 'Z' {
			return "", fmt.Errorf("upper-case %q with a modifier never matches; write shift+%c", key, r+'a'-'A')
		}
	default:
		return "", fmt.Errorf("unknown key %q (a single character or a name such as space, enter, tab, esc, f1)", key)
	}
	slices.SortFunc(mods, func(a, b string) int {
		return slices.Index(modifierOrder, a) - slices.Index(modifierOrder, b)
	})
	return strings.Join(append(mods, key), "+"), nil
}

// isAltArrow reports whether a normalized key is one of the alt+arrow keys
// that [keys] alt_arrows_focus binds.
func isAltArrow(key string) bool {
	switch key {
	case "alt+left", "alt+right", "alt+up", "alt+down":
		return true
	}
	return false
}
