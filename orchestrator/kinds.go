package orchestrator

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/hooks"
)

// SessionEnv is what a kind preset needs to know about the session to wire
// an agent CLI to it.
type SessionEnv struct {
	Session  string
	Socket   string
	AgentID  string
	StateDir string // where generated per-agent files go
	// Token is the agent's secret (AGENTGRID_TOKEN); programs the CLI starts
	// with a filtered environment (its MCP server) find it through a file.
	Token string
	// Exe is the agentgrid binary the CLI's hooks and MCP server run; empty
	// means os.Executable().
	Exe string
}

// hookTimeoutSeconds is the timeout written into generated hook settings;
// `agentgrid hook` returns in milliseconds, this only bounds a wedged one.
const hookTimeoutSeconds = 5

// resolveKind turns a spawn request into the argv to run and the extra
// environment the preset adds (the engine adds AGENTGRID_* and req.Env).
//
// Without a kind the request's argv runs as is. With one, the preset's
// command (or req.Argv when given) gets the prompt arguments with {prompt}
// substituted, and the agent CLI named by the preset's `hooks` is wired to
// this session for this process only — never by editing the user's own
// config files:
//
//   - claude: a settings file with hooks calling `<exe> hook claude` for
//     every event the adapter maps, and an MCP config naming `<exe> mcp`, both
//     generated in StateDir and passed with --mcp-config and --settings.
//   - codex: -c overrides for notify = [<exe>, "hook", "codex"] and
//     mcp_servers.agentgrid.
//   - gemini: a settings file with hooks and mcpServers, passed through
//     GEMINI_CLI_SYSTEM_SETTINGS_PATH (the one per-process settings file Gemini
//     CLI reads; it takes the place of /etc/gemini-cli/settings.json for this
//     process).
//   - opencode: OPENCODE_CONFIG_CONTENT (inline config merged over the user's)
//     adding a generated plugin that forwards events to `<exe> hook opencode`
//     and the MCP server.
func resolveKind(cfg config.Config, req SpawnRequest, sess SessionEnv) (argv []string, env []string, err error) {
	if req.Kind == "" {
		if len(req.Argv) == 0 {
			return nil, nil, errors.New("no command given: pass a command after -- or choose a kind with --kind")
		}
		return slices.Clone(req.Argv), nil, nil
	}
	k, ok := cfg.Kinds[req.Kind]
	if !ok {
		return nil, nil, fmt.Errorf("unknown kind %q; known kinds: %s", req.Kind, strings.Join(slices.Sorted(maps.Keys(cfg.Kinds)), ", "))
	}
	argv = slices.Clone(req.Argv)
	if len(argv) == 0 {
		argv = slices.Clone(k.Command)
	}
	if len(argv) == 0 {
		argv = []string{defaultShell()}
	}
	if req.Prompt != "" {
		if len(k.PromptArgs) == 0 {
			return nil, nil, fmt.Errorf("kind %q takes no prompt (its prompt_args are empty); pass the command instead", req.Kind)
		}
		for _, a := range k.PromptArgs {
			argv = append(argv, strings.ReplaceAll(a, "{prompt}", req.Prompt))
		}
	}
	for _, key := range slices.Sorted(maps.Keys(k.Env)) {
		env = append(env, key+"="+k.Env[key])
	}
	cli := k.Hooks
	if cli == "" && k.MCP {
		cli = cliOf(argv[0])
	}
	return wireCLI(cli, k.Hooks != "", k.MCP, argv, env, sess)
}

// ResolveOrchestrator wires the orchestrator command (`agentgrid -- claude`)
// the way resolveKind wires an agent: with the preset named by
// orchestrator.kind, or else the preset whose command or hooks adapter
// matches argv[0]'s base name. A command no preset matches runs unchanged.
// sess.AgentID is normally MainID. An empty argv takes the preset's command.
func ResolveOrchestrator(cfg config.Config, argv []string, sess SessionEnv) ([]string, []string, error) {
	name := cfg.Orchestrator.Kind
	if name == "" && len(argv) > 0 {
		name = kindFor(cfg, argv[0])
	}
	if name == "" {
		if len(argv) == 0 {
			return nil, nil, errors.New("no orchestrator command: pass one after -- or set orchestrator.command")
		}
		return slices.Clone(argv), nil, nil
	}
	return resolveKind(cfg, SpawnRequest{Kind: name, Argv: argv}, sess)
}

// kindFor finds the preset for a command by its base name: a preset of that
// name, one whose command starts with it, or one whose hooks adapter is it.
func kindFor(cfg config.Config, cmd string) string {
	base := filepath.Base(cmd)
	if k, ok := cfg.Kinds[base]; ok && (k.Hooks != "" || k.MCP) {
		return base
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Kinds)) {
		k := cfg.Kinds[name]
		if k.Hooks == "" && !k.MCP {
			continue
		}
		if len(k.Command) > 0 && filepath.Base(k.Command[0]) == base || k.Hooks == base {
			return name
		}
	}
	return ""
}

// cliOf names the agent CLI a command is, for MCP wiring without hooks.
func cliOf(cmd string) string {
	base := filepath.Base(cmd)
	if slices.Contains(hooks.CLIs(), base) {
		return base
	}
	return ""
}

func defaultShell() string {
	if sh := os.Getenv("SHELL"); sh != "" {
		return sh
	}
	return "/bin/sh"
}

// wireCLI adds the per-process hook and MCP wiring for cli to argv/env.
func wireCLI(cli string, withHooks, withMCP bool, argv, env []string, sess SessionEnv) ([]string, []string, error) {
	if cli == "" || (!withHooks && !withMCP) {
		return argv, env, nil
	}
	if !slices.Contains(hooks.CLIs(), cli) {
		return nil, nil, fmt.Errorf("unknown hooks adapter %q; known: %s", cli, strings.Join(hooks.CLIs(), ", "))
	}
	exe := sess.Exe
	if exe == "" {
		p, err := os.Executable()
		if err != nil {
			return nil, nil, fmt.Errorf("find the agentgrid binary to wire %s hooks: %w", cli, err)
		}
		exe = p
	}
	w := wiring{sess: sess, exe: exe, hooks: withHooks, mcp: withMCP}
	switch cli {
	case "claude":
		return w.claude(argv, env)
	case "codex":
		return w.codex(argv, env)
	case "gemini":
		return w.gemini(argv, env)
	default:
		return w.opencode(argv, env)
	}
}

type wiring struct {
	sess  SessionEnv
	exe   string
	hooks bool
	mcp   bool
}

// mcpEnv is the environment the MCP server needs; CLIs that start MCP
// servers with a filtered environment (Codex) would otherwise drop it.
func (w wiring) mcpEnv() map[string]string {
	m := map[string]string{"AGENTGRID_SOCKET": w.sess.Socket, "AGENTGRID_SESSION": w.sess.Session}
	if w.sess.AgentID != "" {
		m["AGENTGRID_AGENT_ID"] = w.sess.AgentID
	}
	if w.sess.Token != "" {
		// A file keeps the secret out of command lines (Codex takes this env
		// as a -c argument) and out of the generated settings.
		if path, err := w.file("token", []byte(w.sess.Token+"\n")); err == nil {
			m[EnvTokenFile] = path
		}
	}
	return m
}

// file writes one generated file for this agent into StateDir.
func (w wiring) file(name string, data []byte) (string, error) {
	if w.sess.StateDir == "" {
		return "", errors.New("no state directory to write the generated agent settings to")
	}
	if err := os.MkdirAll(w.sess.StateDir, 0o700); err != nil {
		return "", fmt.Errorf("create the state directory %s: %w", w.sess.StateDir, err)
	}
	id := w.sess.AgentID
	if id == "" {
		id = "agent"
	}
	path := filepath.Join(w.sess.StateDir, id+"-"+name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

func (w wiring) jsonFile(name string, v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode %s: %w", name, err)
	}
	return w.file(name, append(b, '\n'))
}

type hookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Name    string `json:"name,omitempty"`
	Timeout int    `json:"timeout,omitempty"`
}

type hookGroup struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []hookCommand `json:"hooks"`
}

// hookTable builds {"Event": [{"matcher": "*", "hooks": [cmd]}]} for events.
func hookTable(events, toolEvents []string, cmd hookCommand) map[string][]hookGroup {
	t := make(map[string][]hookGroup, len(events))
	for _, ev := range events {
		g := hookGroup{Hooks: []hookCommand{cmd}}
		if slices.Contains(toolEvents, ev) {
			g.Matcher = "*"
		}
		t[ev] = []hookGroup{g}
	}
	return t
}

type mcpServer struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

func (w wiring) mcpServer() mcpServer {
	return mcpServer{Command: w.exe, Args: []string{"mcp"}, Env: w.mcpEnv()}
}

// insertAfterCommand puts flags right after argv[0], before any subcommand
// or prompt the user gave.
func insertAfterCommand(argv []string, flags ...string) []string {
	out := make([]string, 0, len(argv)+len(flags))
	out = append(out, argv[0])
	out = append(out, flags...)
	return append(out, argv[1:]...)
}

func (w wiring) claude(argv, env []string) ([]string, []string, error) {
	var flags []string
	if w.mcp {
		path, err := w.jsonFile("mcp.json", map[string]any{"mcpServers": map[string]mcpServer{"agentgrid": w.mcpServer()}})
		if err != nil {
			return nil, nil, err
		}
		flags = append(flags, "--mcp-config", path)
	}
	// --settings always follows --mcp-config: the latter takes several
	// values and would otherwise swallow a prompt that comes next.
	settings := map[string]any{}
	if w.hooks {
		cmd := hookCommand{Type: "command", Command: shellQuote(w.exe) + " hook claude", Timeout: hookTimeoutSeconds}
		settings["hooks"] = hookTable(hooks.ClaudeEvents(), hooks.ClaudeToolEvents(), cmd)
	}
	path, err := w.jsonFile("claude-settings.json", settings)
	if err != nil {
		return nil, nil, err
	}
	flags = append(flags, "--settings", path)
	return insertAfterCommand(argv, flags...), env, nil
}

func (w wiring) codex(argv, env []string) ([]string, []string, error) {
	var flags []string
	if w.hooks {
		flags = append(flags, "-c", "notify="+tomlArray(w.exe, "hook", "codex"))
	}
	if w.mcp {
		flags = append(flags,
			"-c", "mcp_servers.agentgrid.command="+tomlString(w.exe),
			"-c", "mcp_servers.agentgrid.args="+tomlArray("mcp"),
			"-c", "mcp_servers.agentgrid.env="+tomlInlineTable(w.mcpEnv()),
		)
	}
	return insertAfterCommand(argv, flags...), env, nil
}

func (w wiring) gemini(argv, env []string) ([]string, []string, error) {
	settings := map[string]any{}
	if w.hooks {
		cmd := hookCommand{Type: "command", Name: "agentgrid", Command: shellQuote(w.exe) + " hook gemini", Timeout: hookTimeoutSeconds * 1000}
		settings["hooks"] = hookTable(hooks.GeminiEvents(), hooks.GeminiToolEvents(), cmd)
		settings["hooksConfig"] = map[string]any{"enabled": true}
	}
	if w.mcp {
		settings["mcpServers"] = map[string]mcpServer{"agentgrid": w.mcpServer()}
	}
	path, err := w.jsonFile("gemini-settings.json", settings)
	if err != nil {
		return nil, nil, err
	}
	return argv, append(env, "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+path), nil
}

func (w wiring) opencode(argv, env []string) ([]string, []string, error) {
	inline := map[string]any{}
	if w.hooks {
		path, err := w.file("opencode-plugin.js", []byte(hooks.OpenCodePlugin(w.exe)))
		if err != nil {
			return nil, nil, err
		}
		inline["plugin"] = []string{"file://" + path}
	}
	if w.mcp {
		inline["mcp"] = map[string]any{"agentgrid": map[string]any{
			"type": "local", "command": []string{w.exe, "mcp"}, "enabled": true, "environment": w.mcpEnv(),
		}}
	}
	b, err := json.Marshal(inline)
	if err != nil {
		return nil, nil, fmt.Errorf("encode the opencode config: %w", err)
	}
	return argv, append(env, "OPENCODE_CONFIG_CONTENT="+string(b)), nil
}

// shellQuote quotes s for a POSIX shell: hook commands in Claude Code and
// Gemini CLI settings are shell command lines.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// tomlString is s as a TOML basic string (what codex -c values are parsed as).
func tomlString(s string) string {
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

func tomlArray(items ...string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = tomlString(s)
	}
	return "[" + strings.Join(q, ",") + "]"
}

func tomlInlineTable(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+tomlString(m[k]))
	}
	return "{" + strings.Join(parts, ",") + "}"
}
