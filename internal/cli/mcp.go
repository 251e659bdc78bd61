package cli

import (
	"context"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/mcpserver"
	"github.com/spf13/cobra"
)

func addMCPCommand(root *cobra.Command) {
	root.AddCommand(&cobra.Command{
		Use:   "mcp",
		Short: "Serve the session's agents to an MCP client over stdio",
		Long: `agentgrid mcp is an MCP server on stdin/stdout bound to the session in
$AGENTGRID_SOCKET. Its tools — ` + strings.Join(control.MCPTools, ", ") + ` —
let an AI CLI running as the orchestrator start background agents that appear
in the grid, watch them, read their results and keep them looping; an agent's
[kinds.NAME] mcp_tools limits the ones it gets.

agentgrid wires it into the agent CLIs it starts with a kind (the generated
--mcp-config for Claude Code, -c mcp_servers for Codex, ...). To add it to a CLI
by hand, register the command "agentgrid mcp" as a stdio MCP server.`,
		Example: `  # by hand, inside a session: Claude Code with agentgrid's tools
  claude mcp add agentgrid -- agentgrid mcp`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path := os.Getenv(control.EnvSocket)
			if path == "" {
				return exitError{1, "agentgrid mcp serves one agentgrid session, and AGENTGRID_SOCKET is not set; run it from inside a session (agents and the orchestrator get the variable)"}
			}
			client, err := control.Dial(path)
			if err != nil {
				return exitError{1, err.Error()}
			}
			defer client.Close()
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			return mcpserver.Run(ctx, client, os.Stdin, os.Stdout)
		},
	})
}
