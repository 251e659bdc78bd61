// Package gemini is agentgrid's knowledge of Gemini CLI: its preset, the
// hook events its per-process settings subscribe to, those settings (in a
// per-agent home passed through GEMINI_CLI_HOME) and the adapter for its
// hook payloads.
package gemini

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// Name is the CLI's name.
const Name = "gemini"

// CLI is Gemini CLI.
type CLI struct{}

// Name implements agentcli.CLI.
func (CLI) Name() string { return Name }

// Preset implements agentcli.CLI.
func (CLI) Preset() agentcli.Preset {
	return agentcli.Preset{Command: []string{"gemini"}, PromptArgs: []string{"-i", "{prompt}"}, Hooks: true, MCP: true, Description: "Gemini CLI, Google's coding agent"}
}

// Events are the Gemini CLI hook events the settings file subscribes to.
// BeforeModel/AfterModel are left out on purpose: AfterModel fires for
// every streamed chunk and would cost a process per chunk.
func (CLI) Events() []string {
	return []string{
		"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "Notification",
		"AfterAgent", "PreCompress", "SessionEnd",
	}
}

// toolEvents are the Events that take a tool matcher.
func toolEvents() []string { return []string{"BeforeTool", "AfterTool"} }

// Adapt implements agentcli.CLI.
func (CLI) Adapt(payload []byte) (agentstate.Signal, error) { return adapt(payload) }

// PayloadInArgs implements agentcli.CLI: the payload comes on stdin.
func (CLI) PayloadInArgs() bool { return false }

// Wire implements agentcli.CLI: a Gemini home for this agent (see
// geminiHome) whose settings add hooks and mcpServers to the user's,
// passed through GEMINI_CLI_HOME.
func (c CLI) Wire(w agentcli.Wiring, argv, env []string) ([]string, []string, error) {
	settings := map[string]any{}
	if w.Hooks {
		cmd := agentcli.HookCommand{Type: "command", Name: "agentgrid", Command: agentcli.ShellQuote(w.Exe) + " hook gemini", Timeout: int(w.HookTimeout() / time.Millisecond)}
		settings["hooks"] = agentcli.HookTable(c.Events(), toolEvents(), cmd)
	}
	if w.MCP {
		settings["mcpServers"] = map[string]agentcli.MCPServer{"agentgrid": w.MCPServer()}
	}
	if w.StateDir == "" {
		return nil, nil, errors.New("no state directory to write the generated agent settings to")
	}
	real, err := realHome(env)
	if err != nil {
		return nil, nil, err
	}
	id := w.AgentID
	if id == "" {
		id = "agent"
	}
	home, err := geminiHome(w.StateDir, id, real, settings)
	if err != nil {
		return nil, nil, err
	}
	env = append(env, "GEMINI_CLI_HOME="+home)
	if !hasEnv(env, "GEMINI_CLI_TRUSTED_FOLDERS_PATH") {
		// Gemini replaces this file by renaming a new one over it, which
		// would cut a link: point it at the user's own.
		env = append(env, "GEMINI_CLI_TRUSTED_FOLDERS_PATH="+filepath.Join(real, ".gemini", "trustedFolders.json"))
	}
	return argv, env, nil
}

// hasEnv reports whether key is set in env or in agentgrid's environment.
func hasEnv(env []string, key string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, key+"=") {
			return true
		}
	}
	return os.Getenv(key) != ""
}

// ModelArgs implements agentcli.CLI: Gemini CLI takes -m NAME.
func (CLI) ModelArgs(model string) []string {
	if model == "" {
		return nil
	}
	return []string{"-m", model}
}

// Provider implements agentcli.CLI: Gemini CLI talks to Google.
func (CLI) Provider(string) string { return "google" }
