package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentgrid/agentgrid/config"
	"github.com/spf13/cobra"
)

// addConfigCommands registers `agentgrid config check|print`.
func addConfigCommands(root *cobra.Command) {
	root.AddCommand(usageErrors(newConfigCmd()))
}

func newConfigCmd() *cobra.Command {
	var path string
	cmd := &cobra.Command{
		Use:   "config check|print",
		Short: "Validate or print the configuration",
		Long: `agentgrid reads $XDG_CONFIG_HOME/agentgrid/config.toml (~/.config/agentgrid/config.toml),
then ./.agentgrid.toml, then the file given with --config; later files override
earlier ones key by key. Every key has a default; agentgrid config print
--default prints them all as a commented example to start from.

./.agentgrid.toml is applied only once trusted (agentgrid trust); check and
print say when they ignored it. Every config file must be owned by you and not
writable by group or others.`,
		Example: `  agentgrid config check
  agentgrid config print --default > ~/.config/agentgrid/config.toml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.PersistentFlags().StringVar(&path, "config", "", "config file read after the default locations")
	cmd.AddCommand(newConfigCheckCmd(&path), newConfigPrintCmd(&path))
	return cmd
}

func newConfigCheckCmd(path *string) *cobra.Command {
	return &cobra.Command{
		Use:   "check [--config F]",
		Short: "Report every problem in the config files, with file:line",
		Long: `check reads the config files the way a session does and prints every problem
it finds (unknown keys, wrong types, bad values) as file:line: message, all at
once rather than the first only. It exits 1 when there is any problem, and
otherwise prints "config OK" with the files it read. A ./.agentgrid.toml that
is not trusted is not read; check prints a line saying so.`,
		Example: `  agentgrid config check
  agentgrid config check --config ./ci.toml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := config.Read(*path)
			writeIgnored(cmd.OutOrStdout(), l.Ignored)
			diags := l.Diags
			if len(diags) > 0 {
				if werr := writeDiagnostics(cmd.OutOrStdout(), diags); werr != nil {
					return werr
				}
				return exitError{1, fmt.Sprintf("the config has %d %s", len(diags), plural(len(diags), "problem", "problems"))}
			}
			if err != nil {
				return err
			}
			files := l.Files
			if len(files) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "config OK: no config files (looked for %s); using the built-in defaults\n",
					strings.Join(config.Paths(*path), ", "))
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "config OK: %s\n", strings.Join(files, ", "))
			return nil
		},
	}
}

func newConfigPrintCmd(path *string) *cobra.Command {
	var defaults bool
	cmd := &cobra.Command{
		Use:   "print [--default] [--config F]",
		Short: "Print the effective configuration, or the commented defaults",
		Long: `print shows the configuration a session started here would use, as TOML: the
defaults with every config file applied. With --default it prints the
commented example instead: every key with its default value and what it does,
a good start for your own config file.`,
		Example: `  agentgrid config print
  agentgrid config print --default > ~/.config/agentgrid/config.toml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if defaults {
				_, err := io.WriteString(cmd.OutOrStdout(), config.ExampleTOML())
				return err
			}
			l, err := config.Read(*path)
			writeIgnored(cmd.ErrOrStderr(), l.Ignored)
			cfg, diags := l.Config, l.Diags
			if len(diags) > 0 {
				if werr := writeDiagnostics(cmd.ErrOrStderr(), diags); werr != nil {
					return werr
				}
				return exitError{1, fmt.Sprintf("the config has %d %s; fix %s first (agentgrid config check)",
					len(diags), plural(len(diags), "problem", "problems"), plural(len(diags), "it", "them"))}
			}
			if err != nil {
				return err
			}
			_, err = io.WriteString(cmd.OutOrStdout(), config.Print(cfg))
			return err
		},
	}
	cmd.Flags().BoolVar(&defaults, "default", false, "print the commented default config instead")
	return cmd
}

func writeDiagnostics(w io.Writer, diags []config.Diagnostic) error {
	for _, d := range diags {
		if _, err := fmt.Fprintln(w, d.String()); err != nil {
			return err
		}
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
