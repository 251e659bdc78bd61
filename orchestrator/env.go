package orchestrator

import (
	"strings"

	"github.com/agentgrid/agentgrid/internal/agentcli"
)

// childBaseEnv is the environment every child starts from: the base env
// without variables agentgrid sets itself, plus the session's. An inherited
// TMUX or TMUX_PANE never reaches a child: it names the tmux agentgrid runs
// in, and a program that splits "its" pane there would open panes outside
// agentgrid, in the user's own window. Nor does the outer terminal's name
// (TERM_PROGRAM, TERM_PROGRAM_VERSION): a child's terminal is agentgrid.
// Of agentgrid's own variables only the user's setting of the hooks'
// budget (AGENTGRID_HOOK_BUDGET) goes on: the rest name another session.
func childBaseEnv(base []string, session, socket string) []string {
	out := make([]string, 0, len(base)+5)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if k == "TERM" || k == "COLORTERM" || k == "TMUX" || k == "TMUX_PANE" || k == "TERM_PROGRAM" || k == "TERM_PROGRAM_VERSION" ||
			strings.HasPrefix(k, "AGENTGRID_") && k != agentcli.EnvHookBudget {
			continue
		}
		out = append(out, kv)
	}
	return append(out,
		"TERM=xterm-256color", "COLORTERM=truecolor",
		"AGENTGRID_SESSION="+session, "AGENTGRID_SOCKET="+socket)
}

// withVars returns env with vars (KEY=VALUE) set, replacing earlier values
// so that the child sees each key once.
func withVars(env []string, vars ...string) []string {
	keys := make(map[string]bool, len(vars))
	for _, kv := range vars {
		k, _, _ := strings.Cut(kv, "=")
		keys[k] = true
	}
	out := make([]string, 0, len(env)+len(vars))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !keys[k] {
			out = append(out, kv)
		}
	}
	return append(out, vars...)
}
