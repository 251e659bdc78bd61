// Package config holds agentgrid's configuration schema, its defaults, and
// the loader that reads TOML files and reports every problem with file:line.
package config

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentcli/registry"
)

// Duration is a time.Duration that decodes from a TOML string such as "15s".
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration string ("500ms", "15s", "2m"), or a
// whole number of days ("7d").
func (d *Duration) UnmarshalText(b []byte) error {
	if days, ok := strings.CutSuffix(string(b), "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 && n <= 100000 {
			d.Duration = time.Duration(n) * 24 * time.Hour
			return nil
		}
	}
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration the way it is read.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.Duration.String()), nil }

// Size is a number of bytes that decodes from a TOML string with a binary
// unit: "64MiB", "512KiB", "1GiB", or "0".
type Size struct{ Bytes int64 }

var sizeUnits = []struct {
	name string
	n    int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}

// UnmarshalText parses "64MiB", "512KiB", "1GiB", "4096B" or "0".
func (s *Size) UnmarshalText(b []byte) error {
	text := strings.TrimSpace(string(b))
	if text == "0" {
		s.Bytes = 0
		return nil
	}
	for _, u := range sizeUnits {
		num, ok := strings.CutSuffix(text, u.name)
		if !ok {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
		if err != nil || v < 0 || v > (1<<62)/u.n {
			break
		}
		s.Bytes = v * u.n
		return nil
	}
	return fmt.Errorf("%q is not a size; write a whole number with a unit, e.g. \"64MiB\", \"512KiB\" or \"1GiB\" (\"0\" for no limit)", text)
}

// MarshalText writes the size in the largest unit that divides it.
func (s Size) MarshalText() ([]byte, error) {
	if s.Bytes == 0 {
		return []byte("0"), nil
	}
	for _, u := range sizeUnits {
		if s.Bytes%u.n == 0 {
			return []byte(strconv.FormatInt(s.Bytes/u.n, 10) + u.name), nil
		}
	}
	return []byte(strconv.FormatInt(s.Bytes, 10) + "B"), nil
}

// Config is the whole effective configuration of a session.
type Config struct {
	Orchestrator Orchestrator    `toml:"orchestrator"`
	Layout       Layout          `toml:"layout"`
	Agents       Agents          `toml:"agents"`
	Limits       Limits          `toml:"limits"`
	Keys         Keys            `toml:"keys"`
	UI           UI              `toml:"ui"`
	Clipboard    Clipboard       `toml:"clipboard"`
	Tmux         Tmux            `toml:"tmux"`
	Status       Status          `toml:"status"`
	Log          Log             `toml:"log"`
	Startup      []Startup       `toml:"startup"`
	Hooks        []Hook          `toml:"hooks"`
	Policies     []Policy        `toml:"policies"`
	Kinds        map[string]Kind `toml:"kinds"`
	// Categories name kinds of work: a kind, a model, a prompt prefix and
	// fallbacks (categories.go).
	Categories map[string]Category `toml:"categories"`
}

// Orchestrator is the program shown in the main view.
type Orchestrator struct {
	// Command is the argv of the orchestrator; empty means DefaultShell().
	Command []string `toml:"command"`
	// Kind names a [kinds.NAME] preset used to wire hooks/MCP into the orchestrator.
	Kind string `toml:"kind"`
}

// DefaultShell is the program run where a command is left empty (the
// orchestrator, a kind without a command): $SHELL, or /bin/sh when it is
// unset or empty.
func DefaultShell() string {
	if sh := os.Getenv("SHELL"); sh != "" {
		return sh
	}
	return "/bin/sh"
}

// Layout is the arrangement of the main view and the agents grid.
type Layout struct {
	// Name is one of main-vertical, main-horizontal, tiled, even-horizontal, even-vertical.
	Name string `toml:"name"`
	// MainSize is the main view's share of the width (main-vertical) or height
	// (main-horizontal), in percent, 20..80.
	MainSize int `toml:"main_size"`
	// MinAgentWidth and MinAgentHeight are the smallest agent pane content size.
	MinAgentWidth  int `toml:"min_agent_width"`
	MinAgentHeight int `toml:"min_agent_height"`
}

// Agents controls the deferred-spawn queue and the agents' panes.
type Agents struct {
	MaxQueued      int      `toml:"max_queued"`
	StartOffscreen bool     `toml:"start_offscreen"`
	FinishedLinger Duration `toml:"finished_linger"`
	Scrollback     int      `toml:"scrollback"`
	// KillGrace is how long close/quit waits between SIGHUP, SIGTERM and SIGKILL.
	KillGrace Duration `toml:"kill_grace"`
	// IdleAfter is the output quiet period after which a running agent counts as idle
	// (only when no fresher source says otherwise).
	IdleAfter Duration `toml:"idle_after"`
	// LogMax caps each agent's output log: at the cap the log is renamed to
	// <id>.log.1 (replacing the previous one) and a new one is started, so at
	// most twice this much is on disk per agent. 0 means no cap.
	LogMax Size `toml:"log_max"`
	// KeepState is how long the state folder of a session that has ended is
	// kept; a session removes older ones when it starts. 0 keeps them forever.
	KeepState Duration `toml:"keep_state"`
	// MaxDepth is how deep the family tree may grow: an agent the user or
	// the main view started is at depth 1, its child at 2.
	MaxDepth int `toml:"max_depth"`
	// MaxDescendants caps the live descendants of any one agent (the main
	// view included); 0 means no cap.
	MaxDescendants int `toml:"max_descendants"`
}

// Limits caps how many agents run at once: in total, per kind, per
// provider and per model. Every cap that matches an agent holds; they are
// looked up model, provider, kind, then the total, and a waiting agent's
// reason names the first that is full.
type Limits struct {
	// Default is the cap on running agents of any kind; 0 means no cap.
	Default int `toml:"default"`
	// Kinds caps agents of one kind: [limits.kinds] claude = 2.
	Kinds map[string]int `toml:"kinds"`
	// Providers caps agents whose model one provider serves:
	// [limits.providers] anthropic = 5 (see Config.Provider).
	Providers map[string]int `toml:"providers"`
	// Models caps agents running one model: [limits.models]
	// "claude-opus-4-5" = 2.
	Models map[string]int `toml:"models"`
}

// Keys configures the prefix key and the direct bindings.
type Keys struct {
	Prefix string `toml:"prefix"`
	// AltArrowsFocus makes alt+arrow move the focus without the prefix.
	// Off by default, as in tmux: vim, mc and readline use those keys.
	AltArrowsFocus bool `toml:"alt_arrows_focus"`
}

// UI configures the look and terminal notifications.
type UI struct {
	Theme string `toml:"theme"`
	// Bell rings the outer terminal when an agent starts waiting for input.
	Bell bool `toml:"bell"`
	// OSC9 also sends an OSC 9 desktop notification when an agent starts waiting.
	OSC9 bool `toml:"osc9"`
	// OSC777 also sends an OSC 777 desktop notification (the form some
	// terminals read instead of OSC 9).
	OSC777 bool `toml:"osc777"`
	// NotifyOn are the agent events that ring or notify: any of
	// "waiting", "done", "failed". Never for the pane the user looks at.
	NotifyOn []string `toml:"notify_on"`
	// PaneNotices forwards a pane's own OSC 9/777/99 notifications to the
	// outer terminal, with the pane's title, sanitised.
	PaneNotices bool `toml:"pane_notices"`
	// Mouse enables click-to-focus and wheel scrolling.
	Mouse bool `toml:"mouse"`
	// FPS caps redraws per second while output is arriving (1..120).
	FPS int `toml:"fps"`
}

// Tmux configures the tmux entry point in every pane.
type Tmux struct {
	// FollowLayout lets `tmux select-layout` and `tmux resize-pane` from a
	// pane change agentgrid's layout; off, they are accepted and the
	// user's layout stays.
	FollowLayout bool `toml:"follow_layout"`
}

// Clipboard configures what may reach the outer terminal's clipboard.
type Clipboard struct {
	// PaneOSC52 is what a pane's own OSC 52 clipboard requests do: "off"
	// (dropped) or "write" (forwarded to the outer terminal).
	PaneOSC52 string `toml:"pane_osc52"`
}

// Clipboard settings for a pane's OSC 52.
const (
	PaneOSC52Off   = "off"
	PaneOSC52Write = "write"
)

// Notice events, for [ui] notify_on.
var NoticeEvents = []string{"waiting", "done", "failed"}

// Status configures the status line.
type Status struct {
	// MaxEntryWidth caps each status entry's display width.
	MaxEntryWidth int `toml:"max_entry_width"`
	// StaleAfter dims entries (and hook-reported states) not confirmed for this long.
	StaleAfter Duration `toml:"stale_after"`
}

// Log configures the log file (never the screen).
type Log struct {
	// File is the log path; empty means $XDG_STATE_HOME/agentgrid/agentgrid.log.
	File  string `toml:"file"`
	Level string `toml:"level"`
}

// Startup is an agent started with the session.
type Startup struct {
	Title   string   `toml:"title"`
	Command []string `toml:"command"`
	Cwd     string   `toml:"cwd"`
	Kind    string   `toml:"kind"`
	// Category runs a [categories.NAME] instead of a kind.
	Category string            `toml:"category"`
	Prompt   string            `toml:"prompt"`
	Env      map[string]string `toml:"env"`
}

// Hook is an external handler run for engine events.
type Hook struct {
	On      []string `toml:"on"`
	Run     []string `toml:"run"`
	Timeout Duration `toml:"timeout"`
}

// Kind is a preset for launching one agent CLI with agentgrid wired in.
type Kind struct {
	// Command is the argv that starts the CLI.
	Command []string `toml:"command"`
	// PromptArgs is appended to Command when a prompt is given; "{prompt}" is replaced.
	PromptArgs []string `toml:"prompt_args"`
	// Hooks names the adapter (claude, codex, gemini, opencode) whose hooks are attached
	// for this process only; empty attaches none.
	Hooks string `toml:"hooks"`
	// MCP attaches the agentgrid MCP server to this process.
	MCP bool `toml:"mcp"`
	// Env is added to the agent's environment.
	Env map[string]string `toml:"env"`
	// Grants lets agents of this kind act on any agent of the session, the
	// main view included: "read", "wait", "send", "close", "signal", or "all".
	// Without a grant an agent acts only on itself and the agents it started
	// (and signals only itself).
	Grants []string `toml:"grants"`
	// MCPTools, when set, is the only agentgrid MCP tools agents of this
	// kind may use (see MCPTools): the session refuses the socket calls
	// behind the others for their identity, whichever program makes them
	// (the MCP server, agentgrid's own commands, the tmux entry point for
	// spawns). Unset (nil) allows every tool. An agent never holds a tool
	// the agent that started it lacks.
	MCPTools []string `toml:"mcp_tools"`
	// Teams turns on the CLI's agent teams for this process (claude only):
	// its teammates then open as agentgrid panes through the session's
	// tmux entry point.
	Teams bool `toml:"teams"`
	// OMO turns on oh-my-opencode-slim's panes for this process (opencode
	// only): its background agents then open as agentgrid panes. Oh My
	// OpenCode itself has no per-process switch (see the README).
	OMO bool `toml:"omo"`
	// Description says what the kind is, for `agentgrid kinds` and MCP
	// list_kinds.
	Description string `toml:"description"`
	// RetryOn names the recoverable errors ("rate_limit", "overloaded")
	// after which an agent of this kind is started again, up to MaxTries
	// tries in all, waiting Backoff before the second and twice as long
	// before each further one.
	RetryOn  []string `toml:"retry_on"`
	Backoff  Duration `toml:"backoff"`
	MaxTries int      `toml:"max_tries"`
}

// DefaultLogMax is the default cap of one agent's output log.
const DefaultLogMax = 64 << 20

// MinLogMax is the smallest cap an agent's output log may have.
const MinLogMax = 64 << 10

// Default returns the built-in configuration.
func Default() Config {
	return Config{
		Layout: Layout{Name: "main-vertical", MainSize: 50, MinAgentWidth: 40, MinAgentHeight: 8},
		Agents: Agents{
			MaxQueued:      100,
			StartOffscreen: true,
			FinishedLinger: Duration{15 * time.Second},
			Scrollback:     10000,
			KillGrace:      Duration{2 * time.Second},
			IdleAfter:      Duration{5 * time.Second},
			LogMax:         Size{DefaultLogMax},
			KeepState:      Duration{7 * 24 * time.Hour},
			MaxDepth:       2,
		},
		Keys:      Keys{Prefix: "ctrl+b"},
		UI:        UI{Theme: "dark", Bell: true, Mouse: true, FPS: 60, NotifyOn: []string{"waiting"}, PaneNotices: true},
		Clipboard: Clipboard{PaneOSC52: PaneOSC52Off},
		Status:    Status{MaxEntryWidth: 40, StaleAfter: Duration{60 * time.Second}},
		Log:       Log{Level: "info"},
		Kinds:     DefaultKinds(),
	}
}

// DefaultKinds returns the built-in agent CLI presets: one per CLI of the
// registry, named after it.
func DefaultKinds() map[string]Kind {
	kinds := make(map[string]Kind)
	for _, c := range registry.All() {
		kinds[c.Name()] = kindOf(c.Name(), c.Preset())
	}
	return kinds
}

// kindOf is the [kinds.NAME] preset of a registry CLI's defaults.
func kindOf(name string, p agentcli.Preset) Kind {
	k := Kind{Command: slices.Clone(p.Command), PromptArgs: slices.Clone(p.PromptArgs), MCP: p.MCP, Description: p.Description}
	if p.Hooks {
		k.Hooks = name
	}
	return k
}
