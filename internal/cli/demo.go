package cli

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/demo"
	"github.com/agentgrid/agentgrid/layout"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
)

// addDemoCommands registers `agentgrid demo` and the two hidden programs it
// runs inside the session: the scripted orchestrator and the simulated agent.
func addDemoCommands(root *cobra.Command) {
	root.AddCommand(newDemoCmd(), newDemoOrchestratorCmd(), newSimAgentCmd())
}

func newDemoCmd() *cobra.Command {
	var (
		o      sessionOptions
		seed   uint64
		agents int
		speed  float64
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Start a session with a scripted orchestrator and simulated agents",
		Long: `demo starts a real agentgrid session whose orchestrator is a small scripted
program. It explains what you see, then starts simulated agents through the
control socket: they read files, run tests and print diffs like an AI coding
CLI. More agents are started than fit on screen, so the queue drains as they
finish; one fails, and one stops to ask you a question.

Nothing is changed on disk; the agents only print. Quit with ctrl+b q.`,
		Example: `  agentgrid demo
  agentgrid demo --seed 42 --agents 6

  # record it, to play back with asciinema play demo.cast
  agentgrid demo --record demo.cast`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if agents < 1 || agents > 100 {
				return exitError{2, fmt.Sprintf("--agents must be between 1 and 100, not %d", agents)}
			}
			if speed <= 0 {
				return exitError{2, fmt.Sprintf("--speed must be positive, not %g", speed)}
			}
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find the agentgrid binary to run the demo agents: %w", err)
			}
			o.Argv = []string{exe, "__demo-orchestrator",
				"--seed", strconv.FormatUint(seed, 10),
				"--agents", strconv.Itoa(agents),
				"--speed", strconv.FormatFloat(speed, 'g', -1, 64)}
			o.Demo = true
			if o.ConfigPath == "" {
				path, err := writeDemoConfig(o.Layout)
				if err != nil {
					return err
				}
				o.ConfigPath = path
			}
			return runSession(cmd, o)
		},
	}
	f := cmd.Flags()
	f.Uint64Var(&seed, "seed", 1, "seed of the simulation: the same seed replays the same demo")
	f.IntVar(&agents, "agents", 10, "how many simulated agents to start")
	f.Float64Var(&speed, "speed", 1, "pace of the simulation (2 = twice as fast)")
	_ = f.MarkHidden("speed")
	f.StringVar(&o.ConfigPath, "config", "", "config file read after the default locations")
	f.StringVar(&o.Layout, "layout", "", "layout to start with")
	f.StringVar(&o.Record, "record", "", "record the screen to FILE, an asciicast v2 file (asciinema play FILE); prefix R stops and starts")
	f.StringVar(&o.Session, "session", "", "session name: letters, digits, ., _ and - (default: agentgrid-<pid>)")
	return cmd
}

func newDemoOrchestratorCmd() *cobra.Command {
	var (
		seed   uint64
		agents int
		speed  float64
	)
	cmd := &cobra.Command{
		Use:    "__demo-orchestrator",
		Short:  "The demo's scripted orchestrator (runs inside agentgrid demo)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			code := demo.RunDirectorProcess(demo.DirectorOptions{Seed: seed, Agents: agents, Speed: speed})
			if code != 0 {
				return exitError{code, ""}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.Uint64Var(&seed, "seed", 1, "seed of the simulation")
	f.IntVar(&agents, "agents", 10, "how many simulated agents to start")
	f.Float64Var(&speed, "speed", 1, "pace of the simulation")
	return cmd
}

func newSimAgentCmd() *cobra.Command {
	var (
		script string
		seed   uint64
		speed  float64
	)
	cmd := &cobra.Command{
		Use:    "__sim-agent",
		Short:  "A simulated coding agent (runs inside agentgrid demo)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if code := demo.RunSimProcess(script, seed, speed); code != 0 {
				return exitError{code, ""}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&script, "script", "pagination", "script to play")
	f.Uint64Var(&seed, "seed", 1, "seed of the simulation")
	f.Float64Var(&speed, "speed", 1, "pace of the simulation")
	return cmd
}

// writeDemoConfig writes a config layer that makes the demo easy to follow:
// queued agents start only when they get a pane (so every run is seen from
// its first line), finished panes make room sooner, and a terminal too narrow
// for the default layout gets one that shows agents. Settings the user
// changed in their own config are left alone.
//
// The layer is named after its content in the cache directory: a session
// can end by a signal without running deferred cleanups, and a fixed set of
// names cannot pile up.
func writeDemoConfig(layoutName string) (string, error) {
	cfg, _, err := config.Load("")
	if err != nil {
		// runSession loads the same files and reports the problems.
		return "", nil
	}
	def := config.Default()
	var b strings.Builder
	b.WriteString("# agentgrid demo: settings that make the demo easy to follow (written by agentgrid demo)\n[agents]\n")
	if cfg.Agents.StartOffscreen == def.Agents.StartOffscreen {
		b.WriteString("start_offscreen = false\n")
	}
	if cfg.Agents.FinishedLinger == def.Agents.FinishedLinger {
		b.WriteString("finished_linger = \"4s\"\n")
	}
	if name := demoLayout(cfg, layoutName); name != "" {
		fmt.Fprintf(&b, "\n[layout]\nname = %q\n", name)
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "agentgrid")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("write the demo's config: %w", err)
	}
	sum := sha256.Sum256([]byte(b.String()))
	path := filepath.Join(dir, fmt.Sprintf("demo-%x.toml", sum[:6]))
	// Write then rename, so a demo starting at the same moment never reads
	// half a file.
	tmp, err := os.CreateTemp(dir, "demo-*.tmp")
	if err != nil {
		return "", fmt.Errorf("write the demo's config: %w", err)
	}
	_, werr := tmp.WriteString(b.String())
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return "", fmt.Errorf("write the demo's config: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return "", fmt.Errorf("write the demo's config: %w", err)
	}
	return path, nil
}

// demoLayout picks main-horizontal when the terminal is too narrow for an
// agent pane beside a main view of main_size (below 84 columns by default:
// the main view would give up its share, down to 38 columns at 80x24, and
// the demo's text, written for 40 or more, would wrap badly). It returns ""
// to keep the configured layout: the user chose one (--layout or a
// non-default config), it already fits, or the other would not help.
func demoLayout(cfg config.Config, flagLayout string) string {
	if flagLayout != "" || cfg.Layout.Name != config.Default().Layout.Name {
		return ""
	}
	w, h, err := term.GetSize(os.Stdout.Fd())
	if err != nil {
		return ""
	}
	area := layout.Rect{W: w, H: h - 1} // the status line takes a row
	opts := layout.Options{Name: cfg.Layout.Name, MainSize: cfg.Layout.MainSize,
		MinAgentWidth: cfg.Layout.MinAgentWidth, MinAgentHeight: cfg.Layout.MinAgentHeight, HasMain: true, Zoom: -1}
	if w-w*cfg.Layout.MainSize/100 >= cfg.Layout.MinAgentWidth+2 {
		return ""
	}
	opts.Name = layout.MainHorizontal
	if layout.Capacity(area, opts) == 0 {
		return ""
	}
	return layout.MainHorizontal
}
