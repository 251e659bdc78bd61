package config

import (
	"bytes"
	"fmt"

	"github.com/BurntSushi/toml"
)

// exampleTOML is the commented default configuration. A test checks that
// decoding it yields exactly Default() and that it mentions every key of
// Config, so it cannot drift from the schema.
const exampleTOML = `# agentgrid configuration.
#
# Files are read in this order, later ones overriding earlier ones key by key:
#   $XDG_CONFIG_HOME/agentgrid/config.toml  (default ~/.config/agentgrid/config.toml)
#   ./.agentgrid.toml                        (the directory agentgrid starts in)
#   the file given with --config
# [[startup]] and [[hooks]] entries accumulate across files; [kinds.NAME]
# tables merge into the built-in kinds. Every value below is the default.
# Check a config with "agentgrid config check".

[orchestrator]
# The program in the main view, as an argv list; empty means $SHELL (then /bin/sh).
command = []
# A [kinds.NAME] preset whose hooks/MCP wiring is applied to the orchestrator; empty for none.
kind = ""

[layout]
# Arrangement: main-vertical, main-horizontal, tiled, even-horizontal or even-vertical.
name = "main-vertical"
# The main view's share of the width (main-vertical) or height (main-horizontal), percent, 20..80.
# When what it leaves is too small for one agent pane, the main view gives up that much.
main_size = 50
# Smallest agent pane content width in cells, 10..500; decides how many panes fit.
min_agent_width = 40
# Smallest agent pane content height in rows, 3..200.
min_agent_height = 8

[agents]
# Spawns waiting for a free pane beyond this many are refused with an error, 0..10000.
max_queued = 100
# Start a queued agent's process at once in an off-screen 80x24 terminal.
start_offscreen = true
# How long a finished agent's pane stays before a queued agent may take its place (up to 24h).
finished_linger = "15s"
# Lines of scrollback kept per pane, 0..1000000.
scrollback = 10000
# Wait between SIGHUP, SIGTERM and SIGKILL when closing an agent or quitting (up to 5m).
kill_grace = "2s"
# Output quiet period after which a running agent counts as idle (up to 24h).
idle_after = "5s"
# Cap of each agent's output log (<state dir>/<session>/<id>.log): "512KiB", "64MiB", "1GiB";
# "0" means no cap. At the cap the log moves to <id>.log.1 (replacing the older one) and a new
# one starts, so an agent keeps at most twice this much on disk, always its newest output.
log_max = "64MiB"
# A session that starts removes the state folders of sessions that are no longer running
# and have not been written to for this long: "168h" or "7d" (whole days only).
# "0s" keeps them forever; at most "3650d". A running session's folder is never removed.
keep_state = "168h"
# How deep the family tree may grow, 1..64: an agent started by the user or the main view is
# at depth 1, an agent it starts at 2. A spawn beyond it is refused, naming the limit.
max_depth = 2
# Live descendants any one agent (the main view too) may have, 0..10000; 0 means no cap.
max_descendants = 0

[limits]
# Most agents running at once, of any kind, up to 10000; 0 means no limit.
default = 0

[limits.kinds]
# Most agents of one kind running at once, e.g.:
# claude = 2

[limits.providers]
# Most agents running at once whose model one provider serves, e.g.:
# anthropic = 5
# The provider comes from the kind's CLI: claude is anthropic, codex openai, gemini google;
# opencode and aider name it in the model, before the first "/" ("openrouter/..." is openrouter).

[limits.models]
# Most agents running one model at once (the model a category passes), e.g.:
# "claude-opus-4-5" = 2
# Every limit that matches an agent holds. They are looked up model, provider, kind, then
# default, and a waiting agent's reason names the first that is full:
# "waiting for a slot: model claude-opus-4-5 2/2".

[keys]
# The prefix key for workbench commands (pressed twice, it reaches the pane).
prefix = "ctrl+b"
# alt+arrow moves the focus without the prefix. Off, as in tmux: vim, mc and
# the shell's line editor then get those keys; prefix + arrow always works.
alt_arrows_focus = false

[ui]
# Colour theme: dark, light, solarized, gruvbox, nord, high-contrast, auto (light
# or dark after the terminal's background), or NAME for
# $XDG_CONFIG_HOME/agentgrid/themes/NAME.toml. prefix T switches at run time.
theme = "dark"
# Ring the terminal bell when an agent starts waiting for input.
bell = true
# Also send an OSC 9 desktop notification when an agent starts waiting.
osc9 = false
# Also send an OSC 777 desktop notification (the form some terminals read instead).
osc777 = false
# The agent events that ring or notify: any of "waiting", "done", "failed".
# Never for the pane you are looking at.
notify_on = ["waiting"]
# Forward a pane's own OSC 9/777/99 notifications, with its title.
pane_notices = true
# Click to focus and wheel to scroll.
mouse = true
# Most redraws per second while output arrives, 1..120.
fps = 60

[clipboard]
# A pane's own OSC 52 clipboard writes: "off" (dropped) or "write" (sent on to
# your terminal's clipboard). Copying in scrollback mode always works.
pane_osc52 = "off"

[tmux]
# Let tools that drive tmux (agent teams, subagent plugins) change agentgrid's
# layout with select-layout and resize-pane of the main pane; off, their
# layout calls are accepted and your layout stays.
follow_layout = false

[status]
# Widest a single status line entry may be, in cells, 1..500.
max_entry_width = 40
# Entries and hook-reported states not refreshed for this long are dimmed (up to 24h).
stale_after = "1m0s"

[log]
# Log file; empty means $XDG_STATE_HOME/agentgrid/agentgrid.log.
file = ""
# One of debug, info, warn, error.
level = "info"

# Agents started with the session (none by default), e.g.:
# [[startup]]
# title = "tests"                     # shown in the pane border
# command = ["go", "test", "./..."]   # argv; may be left out when kind is set
# cwd = "."                           # working directory; empty means agentgrid's
# kind = ""                           # a [kinds.NAME] preset to launch instead of command
# category = ""                       # or a [categories.NAME] (not both)
# prompt = ""                         # passed to the kind's prompt_args as {prompt}
# env = { GOFLAGS = "-count=1" }      # added to the agent's environment

# Commands run for engine events, with the event as JSON on stdin (none by default), e.g.:
# [[hooks]]
# on = ["agent_state", "agent_exited"]  # session_start, session_end, agent_queued, agent_started,
#                                       # agent_state, agent_exited, agent_closed, status_changed, bell,
#                                       # agent_turn_done
# run = ["notify-send", "agentgrid"]    # argv, no shell unless you write one
# timeout = "5s"                        # a hook running longer is killed (up to 1h); empty means the default

# Answers to the agent CLIs' own hooks (none by default), e.g.:
# [[policies]]
# name = "protect-secrets"
# on = "pre_tool"                   # pre_tool | post_tool | prompt | stop
# tools = ["Edit", "Write", "Bash"] # tool names; empty means every tool
# paths = ["secrets/**", ".env"]    # globs against the tool's file paths, relative to the agent's cwd
# kinds = []                        # limit to these kinds; empty means all
# agents = []                       # limit to these agent ids ("main" is the main view); empty means all
# action = "block"                  # block (deny the tool or prompt, or keep the turn going) | hint (add context)
# message = "secrets/ and .env are off limits; ask the user"
# [[policies]]
# use = "delegation_nudge"          # built-in: after file tools in the main view, the next prompt carries one reminder
# [[policies]]
# use = "overlap"                   # built-in: an agent edits a file another live agent edited lately
# within = "10m"                    # how far back it looks
# action = "hint"                   # hint (warn both agents) | block

# Presets for launching agent CLIs with agentgrid wired in. Each has:
#   command      argv that starts the CLI (empty: $SHELL)
#   prompt_args  appended when a prompt is given; "{prompt}" is replaced by it
#   hooks        adapter whose hooks are attached for this process: claude, codex, gemini, opencode, or empty
#   mcp          attach the agentgrid MCP server to this process
#   env          added to the process's environment, e.g. env = { DEBUG = "1" }
#   grants       lets agents of this kind act on any agent, the main view included:
#                "read", "wait", "send", "close", "signal", or "all". Without a grant an
#                agent reads, waits for, sends to and closes only itself and the agents
#                it started, and signals only itself. An agent never holds more grants
#                than the agent that started it.
#   mcp_tools    the only agentgrid MCP tools agents of this kind may use, e.g.
#                ["list_agents", "read_agent_output", "wait_agent", "set_status"]; the
#                session refuses the others for their identity, from the MCP server,
#                agentgrid's commands and tmux alike. Unset: every tool (spawns are
#                still bounded by [agents] max_depth). An agent never holds a tool the
#                agent that started it lacks.
#   teams        turn on the CLI's agent teams (claude only): each teammate opens as an
#                agentgrid pane, through the tmux that agentgrid puts on every pane's PATH
#   omo          turn on oh-my-opencode-slim's panes (opencode only): its background
#                agents open as agentgrid panes; agentgrid gives this process a copy of
#                your oh-my-opencode-slim settings with "multiplexer": {"type": "tmux"}
#   description  what the kind is, shown by "agentgrid kinds" and the MCP list_kinds tool
#   retry_on     recoverable errors after which the agent is started again: "rate_limit",
#                "overloaded" (seen in the CLI's hook events where it reports them, else
#                in the last screen of a process that exited with an error)
#   backoff      wait before the second try, twice as long before each further one (up to 1h)
#   max_tries    tries in all, 0..20 (0 or 1: no retry); each try shows in "agentgrid explain"

[kinds.aider]
command = ["aider"]
prompt_args = ["--message", "{prompt}"]
hooks = ""
mcp = false
description = "Aider, a pair programmer for many model providers"
# env = {}
# grants = []
# mcp_tools = ["list_agents", "read_agent_output", "wait_agent", "set_status", "agent_events"]   # unset: every tool
# retry_on = []      # e.g. ["rate_limit", "overloaded"]
# backoff = "0s"     # e.g. "30s"
# max_tries = 0      # e.g. 3

[kinds.claude]
command = ["claude"]
prompt_args = ["{prompt}"]
hooks = "claude"
mcp = true
description = "Claude Code, Anthropic's coding agent"
# teams = false   # true: Claude Code agent teams, each teammate an agentgrid pane

[kinds.codex]
command = ["codex"]
prompt_args = ["{prompt}"]
hooks = "codex"
mcp = true
description = "Codex CLI, OpenAI's coding agent"

[kinds.gemini]
command = ["gemini"]
prompt_args = ["-i", "{prompt}"]
hooks = "gemini"
mcp = true
description = "Gemini CLI, Google's coding agent"

[kinds.opencode]
command = ["opencode"]
prompt_args = ["--prompt", "{prompt}"]
hooks = "opencode"
mcp = true
description = "OpenCode, a coding agent for many model providers"
# omo = false     # true: oh-my-opencode-slim's background agents as agentgrid panes

[kinds.shell]
command = []
prompt_args = []
hooks = ""
mcp = false
description = "your shell ($SHELL)"

# Categories name kinds of work (none by default). "agentgrid spawn --category NAME" and
# the MCP spawn_agent(category=NAME) run the category's kind with its model and prompt
# prefix; when the program cannot start, or its model's API answers with a rate limit or
# an overload (after the retries of its retry policy), the agent moves to the next fallback.
# "agentgrid explain ID" shows each step. A category may not share a kind's name. E.g.:
# [categories.quick]
# description = "small, well-defined changes"    # for "agentgrid kinds" and MCP list_kinds
# kind = "claude"                                # the [kinds.NAME] that runs it
# model = "claude-haiku-4-5"                     # passed as that CLI takes one: claude --model,
#                                                # codex --model, gemini -m, opencode --model
#                                                # provider/model, aider --model
# prompt_prefix = "Small, well-defined change. " # put before the spawn's prompt
# fallback = ["codex"]                           # categories or kinds to try next, in order
# retry_on = ["rate_limit"]                      # the retry policy; empty: the kind's
# backoff = "30s"
# max_tries = 2
`

// ExampleTOML returns a commented config file that lists every key with its
// default value and a one-line explanation.
func ExampleTOML() string { return exampleTOML }

// Print renders an effective configuration as TOML.
func Print(cfg Config) string {
	var buf bytes.Buffer
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	if err := enc.Encode(cfg); err != nil {
		// Config holds only TOML-encodable types; this cannot happen short
		// of a schema change, which the tests would catch.
		return fmt.Sprintf("# cannot render the configuration: %v\n", err)
	}
	return buf.String()
}
