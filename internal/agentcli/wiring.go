package agentcli

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// EnvTokenFile names a 0600 file holding the agent's secret
// (AGENTGRID_TOKEN), for programs an agent CLI starts with a filtered
// environment (its MCP server): the secret then never appears in a command
// line or a generated settings file.
const EnvTokenFile = "AGENTGRID_TOKEN_FILE"

// HookTimeoutSeconds is the timeout written into generated hook settings
// when $AGENTGRID_HOOK_BUDGET is not set; `agentgrid hook` returns in
// milliseconds, this only bounds a wedged one. With a budget, HookTimeout.
const HookTimeoutSeconds = 5

// EnvHookBudget names the variable that raises every wait of `agentgrid
// hook` (a duration such as "2s") on a machine too slow for its defaults.
const EnvHookBudget = "AGENTGRID_HOOK_BUDGET"

// MaxHookBudget caps $AGENTGRID_HOOK_BUDGET: an agent CLI waits for its
// hook, so a typo must not hold it up for an hour.
const MaxHookBudget = time.Minute

// HookBudget is the budget $AGENTGRID_HOOK_BUDGET=v sets: a duration above
// zero, capped at MaxHookBudget. ok is false for anything else, empty
// included.
func HookBudget(v string) (d time.Duration, ok bool) {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d <= 0 {
		return 0, false
	}
	return min(d, MaxHookBudget), true
}

// HookTimeout is the timeout the generated settings give a hook whose
// environment has $AGENTGRID_HOOK_BUDGET=budget ("" when unset), and so
// how long the hook may take to print its answer: HookTimeoutSeconds, or
// with a budget, the budget plus HookTimeoutSeconds in whole seconds, so
// that a hook that waited its whole budget for the session's decision
// still prints it in time.
func HookTimeout(budget string) time.Duration {
	base := HookTimeoutSeconds * time.Second
	d, ok := HookBudget(budget)
	if !ok {
		return base
	}
	return (base + d + time.Second - 1).Truncate(time.Second)
}

// RewakeTimeoutSeconds is the timeout of the rewake waiter's hook
// (`agentgrid hook claude --rewake`, run in the background at each end of
// turn): how long after its last turn an idle agent can still be woken by
// the agents it started finishing. Past it, their notices wait for its next
// hook.
const RewakeTimeoutSeconds = 24 * 60 * 60

// Wiring is what a CLI needs to know to wire one process to a session, and
// which wiring is wanted.
type Wiring struct {
	Session  string
	Socket   string
	AgentID  string
	StateDir string // where generated per-agent files go
	// Token is the agent's secret; programs the CLI starts find it through
	// the file named by EnvTokenFile.
	Token string
	// Exe is the agentgrid binary the hooks and the MCP server run.
	Exe string
	// Hooks attaches the CLI's hooks, MCP agentgrid's MCP server.
	Hooks, MCP bool
	// HookBudget is $AGENTGRID_HOOK_BUDGET as the agent's environment has
	// it ("" when unset): the hooks' timeout follows it (HookTimeout).
	HookBudget string
	// Teams turns on the CLI's agent teams with teammates in tmux panes
	// (which agentgrid's tmux entry point turns into agentgrid panes):
	// Claude Code's agent teams, OpenCode's oh-my-opencode-slim panes.
	Teams bool
}

// HookTimeout is the timeout the generated settings give this agent's
// hooks (see HookTimeout).
func (w Wiring) HookTimeout() time.Duration { return HookTimeout(w.HookBudget) }

// File writes one generated file for this agent into StateDir, readable by
// the user only, and returns its path.
func (w Wiring) File(name string, data []byte) (string, error) {
	if w.StateDir == "" {
		return "", errors.New("no state directory to write the generated agent settings to")
	}
	if err := os.MkdirAll(w.StateDir, 0o700); err != nil {
		return "", fmt.Errorf("create the state directory %s: %w", w.StateDir, err)
	}
	id := w.AgentID
	if id == "" {
		id = "agent"
	}
	path := filepath.Join(w.StateDir, id+"-"+name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// JSONFile writes v as an indented JSON file (see File).
func (w Wiring) JSONFile(name string, v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode %s: %w", name, err)
	}
	return w.File(name, append(b, '\n'))
}

// MCPEnv is the environment the MCP server needs; CLIs that start MCP
// servers with a filtered environment (Codex) would otherwise drop it.
func (w Wiring) MCPEnv() map[string]string {
	m := map[string]string{"AGENTGRID_SOCKET": w.Socket, "AGENTGRID_SESSION": w.Session}
	if w.AgentID != "" {
		m["AGENTGRID_AGENT_ID"] = w.AgentID
	}
	if w.Token != "" {
		// A file keeps the secret out of command lines (Codex takes this env
		// as a -c argument) and out of the generated settings.
		if path, err := w.File("token", []byte(w.Token+"\n")); err == nil {
			m[EnvTokenFile] = path
		}
	}
	return m
}

// MCPServer is an MCP server entry in the JSON settings of Claude Code and
// Gemini CLI.
type MCPServer struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

// MCPServer is the entry that runs `<exe> mcp` for this agent.
func (w Wiring) MCPServer() MCPServer {
	return MCPServer{Command: w.Exe, Args: []string{"mcp"}, Env: w.MCPEnv()}
}

// HookCommand is one command hook in Claude Code's and Gemini CLI's settings.
type HookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Name    string `json:"name,omitempty"`
	Timeout int    `json:"timeout,omitempty"`
	// AsyncRewake runs the hook in the background; its exit status 2 wakes
	// the model with what it printed, after RewakeMessage (Claude Code).
	AsyncRewake   bool   `json:"asyncRewake,omitempty"`
	RewakeMessage string `json:"rewakeMessage,omitempty"`
	RewakeSummary string `json:"rewakeSummary,omitempty"`
}

// HookGroup is the hooks of one event, with a tool matcher for tool events.
type HookGroup struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []HookCommand `json:"hooks"`
}

// HookTable builds {"Event": [{"matcher": "*", "hooks": [cmd]}]} for events;
// toolEvents get the match-all matcher.
func HookTable(events, toolEvents []string, cmd HookCommand) map[string][]HookGroup {
	t := make(map[string][]HookGroup, len(events))
	for _, ev := range events {
		g := HookGroup{Hooks: []HookCommand{cmd}}
		if slices.Contains(toolEvents, ev) {
			g.Matcher = "*"
		}
		t[ev] = []HookGroup{g}
	}
	return t
}

// InsertAfterCommand puts flags right after argv[0], before any subcommand
// or prompt the user gave.
func InsertAfterCommand(argv []string, flags ...string) []string {
	out := make([]string, 0, len(argv)+len(flags))
	out = append(out, argv[0])
	out = append(out, flags...)
	return append(out, argv[1:]...)
}

// ShellQuote quotes s for a POSIX shell: hook commands in Claude Code and
// Gemini CLI settings are shell command lines.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TOMLString is s as a TOML basic string.
func TOMLString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TOMLArray is items as a TOML array of strings.
func TOMLArray(items ...string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = TOMLString(s)
	}
	return "[" + strings.Join(q, ",") + "]"
}

// TOMLInlineTable is m as a TOML inline table of strings, keys sorted.
func TOMLInlineTable(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+TOMLString(m[k]))
	}
	return "{" + strings.Join(parts, ",") + "}"
}
