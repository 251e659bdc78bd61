package cli

import (
	"log/slog"
	"os"

	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/spf13/cobra"
)

// addWatchdogCommand registers the hidden `agentgrid __watchdog`, which a
// session starts to end its agents if it dies without shutting down.
func addWatchdogCommand(root *cobra.Command) {
	root.AddCommand(&cobra.Command{
		Use:    orchestrator.WatchdogCommand,
		Short:  "Ends a session's agents when the session dies (started by agentgrid itself)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			orchestrator.RunWatchdog(os.Stdin)
			return nil
		},
	})
}

// startWatchdog starts the session's watchdog; without one (the binary cannot
// be found or started) the session still runs, and says so in its log.
func startWatchdog() *orchestrator.Watchdog {
	exe, err := os.Executable()
	if err == nil {
		var wd *orchestrator.Watchdog
		if wd, err = orchestrator.StartWatchdog(exe, slog.Default()); err == nil {
			return wd
		}
	}
	slog.Default().Warn("no watchdog: agents that ignore SIGHUP would outlive a crash of this session", "err", err)
	return nil
}
