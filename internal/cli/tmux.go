package cli

import (
	"os"
	"path/filepath"

	"github.com/agentgrid/agentgrid/internal/tmuxshim"
	"github.com/spf13/cobra"
)

// tmuxByName runs the tmux entry point when the binary was started as
// "tmux" (the link the session puts first on every pane's PATH).
func tmuxByName() (int, bool) {
	if filepath.Base(os.Args[0]) != "tmux" {
		return 0, false
	}
	return tmuxshim.Main(os.Args[1:], os.Stdout, os.Stderr), true
}

func addTmuxCommand(root *cobra.Command) {
	root.AddCommand(&cobra.Command{
		Use:   "tmux [tmux flags] command [args]",
		Short: "Answer tmux commands for the session's panes (what `tmux` runs inside agentgrid)",
		Long: `agentgrid tmux speaks tmux's command language to the session in $TMUX (or
$AGENTGRID_SOCKET). Inside agentgrid every pane has a "tmux" link to it first on
its PATH, so tools that spread agents over tmux panes (Claude Code agent teams,
Oh My OpenCode) create agentgrid agents instead. Set AGENTGRID_TMUX_LOG=1 to
record every call in the session's state folder (tmux-shim.log).`,
		Example: `  # inside a session: what a tool's "tmux split-window" does
  agentgrid tmux split-window -h -P -F '#{pane_id}' 'go test ./...'
  agentgrid tmux list-panes -F '#{pane_id} #{pane_title}'`,
		DisableFlagParsing: true,
		SilenceUsage:       true,
		SilenceErrors:      true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if isHelp(args) {
				return cmd.Help()
			}
			if code := tmuxshim.Main(args, os.Stdout, os.Stderr); code != 0 {
				return exitError{code: code}
			}
			return nil
		},
	})
}

// executable is this binary's path, which the session links as "tmux"
// for its panes; "" (no tmux entry point) when it cannot be found.
func executable() string {
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return p
}

// isHelp reports whether args ask for a command's help alone. The commands
// that read their arguments raw (hook, tmux) see --help as an argument.
func isHelp(args []string) bool {
	return len(args) == 1 && (args[0] == "--help" || args[0] == "-h")
}
