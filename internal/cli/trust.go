package cli

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/spf13/cobra"
)

// ignoredNoticeTTL is how long the status line shows that a project config
// file was ignored.
const ignoredNoticeTTL = 30 * time.Second

// addTrustCommands registers `agentgrid trust` and `agentgrid untrust`.
func addTrustCommands(root *cobra.Command) {
	root.AddCommand(usageErrors(newTrustCmd()), usageErrors(newUntrustCmd()))
}

// showIgnoredConfigs tells the user which project config files the session
// ignored: on stderr (left on the terminal when the session ends), in the
// log, and in the status line for ignoredNoticeTTL.
func showIgnoredConfigs(eng *orchestrator.Engine, ignored []config.Ignored) {
	for _, ig := range ignored {
		fmt.Fprintln(os.Stderr, "agentgrid: "+ig.Msg)
		slog.Warn("project config ignored", "file", ig.Path, "why", ig.Msg)
		if st := eng.Status(); st != nil {
			st.SetNotice("config:"+ig.Path, ig.Msg, ignoredNoticeTTL)
		}
	}
}

// writeIgnored prints the ignored project files for the config commands.
func writeIgnored(w io.Writer, ignored []config.Ignored) {
	for _, ig := range ignored {
		fmt.Fprintln(w, ig.Msg)
	}
}

func newTrustCmd() *cobra.Command {
	var list bool
	cmd := &cobra.Command{
		Use:   "trust [FILE]",
		Short: "Apply a project's .agentgrid.toml from now on, until it changes",
		Long: `A project's ./.agentgrid.toml can start programs ([[startup]], [[hooks]],
orchestrator.command, [kinds.*]) and choose the log file, so agentgrid applies it
only once you have read it and trusted its exact content. Until then a session
starts with your own config only and its status line says which file it ignored.

trust records the SHA-256 of FILE (default ./.agentgrid.toml) under
$XDG_STATE_HOME/agentgrid/@trusted (~/.local/state/agentgrid/@trusted). Any change
to the file needs trusting again. A file not owned by you, or writable by group
or others, is never applied, trusted or not.

Your own config (~/.config/agentgrid/config.toml) and a file given with --config
need no trust.`,
		Example: `  # read it first, then trust it
  cat .agentgrid.toml
  agentgrid trust

  # trust another project's file, then list what is trusted
  agentgrid trust ~/src/app/.agentgrid.toml
  agentgrid trust --list

  # stop applying it
  agentgrid untrust`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if list {
				if len(args) > 0 {
					return exitError{2, "trust --list takes no file"}
				}
				files, err := config.TrustedFiles()
				if err != nil {
					return err
				}
				if len(files) == 0 {
					fmt.Fprintln(out, "no trusted files")
				}
				for _, f := range files {
					fmt.Fprintf(out, "%s\t%s\n", f.Path, f.State)
				}
				return nil
			}
			path := config.LocalFile
			if len(args) > 0 {
				path = args[0]
			} else if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
				wd, _ := os.Getwd()
				return exitError{1, fmt.Sprintf("there is no %s in %s to trust; run agentgrid trust in the project's folder, or give the file's path", path, wd)}
			}
			rec, err := config.Trust(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "trusted %s (sha256 %s); agentgrid applies it until it changes\n", rec.Path, rec.SHA256[:12])
			if data, err := os.ReadFile(path); err == nil {
				if _, diags := config.Decode(config.Default(), path, data); len(diags) > 0 {
					fmt.Fprintf(out, "it has %d %s; see agentgrid config check\n", len(diags), plural(len(diags), "problem", "problems"))
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list the trusted files and whether they changed since")
	return cmd
}

func newUntrustCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "untrust [FILE]",
		Short: "Stop applying a trusted .agentgrid.toml",
		Long: `untrust forgets the trust of FILE (default ./.agentgrid.toml): sessions ignore
it again until it is trusted anew. The file itself is left alone.`,
		Example: `  agentgrid untrust
  agentgrid untrust ~/src/app/.agentgrid.toml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := config.LocalFile
			if len(args) > 0 {
				path = args[0]
			}
			was, err := config.Untrust(path)
			if err != nil {
				return err
			}
			if !was {
				fmt.Fprintf(cmd.OutOrStdout(), "%s was not trusted\n", path)
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s is no longer trusted\n", path)
			return nil
		},
	}
}
