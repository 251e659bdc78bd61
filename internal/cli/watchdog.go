package cli

import (
	"log/slog"
	"os"

	"github.com/agentgrid/agentgrid/internal/watchdog"
	"github.com/spf13/cobra"
)

// addWatchdogCommand registers the hidden `agentgrid __watchdog`, which a
// session starts to end its agents if it dies without shutting down.
func addWatchdogCommand(root *cobra.Command) {
	root.AddCommand(&cobra.Command{
		Use:    watchdog.Command,
		Short:  "Ends a session's agents when the session dies (started by agentgrid itself)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			watchdog.Run(os.Stdin)
			return nil
		},
	})
}

// startWatchdog starts the session's watchdog; without one (the binary cannot
// be found or started) the session still runs, and says so in its log.
func startWatchdog() *watchdog.Process {
	exe, err := os.Executable()
	if err == nil {
		var wd *watchdog.Process
		if wd, err = watchdog.Start(exe, slog.Default()); err == nil {
			return wd
		}
	}
	slog.Default().Warn("no watchdog: agents that ignore SIGHUP would outlive a crash of this session", "err", err)
	return nil
}
