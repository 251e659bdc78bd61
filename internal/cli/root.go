// Package cli is agentgrid's command line: the cobra commands (the session
// and its hidden server, attach, watch, ls, the client commands, config,
// trust, hook, mcp, tmux, demo and the hidden watchdog) and the wiring of
// config, engine and UI hub in the session server. main only calls Execute.
package cli

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/statedir"
	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/panes"
	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/agentgrid/agentgrid/themes"
	"github.com/agentgrid/agentgrid/ui"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
)

// Execute runs the agentgrid command line with os.Args and returns the exit
// status; version is what --version prints and the socket reports.
func Execute(version string) int {
	if code, ok := tmuxByName(); ok {
		return code
	}
	if args := os.Args[1:]; len(args) > 0 && args[0] == "hook" && !hookHelp(args[1:]) {
		// An agent CLI runs the hook before and after every tool call:
		// it starts without building the command tree, which it does not
		// use (it takes its arguments as they are).
		return runHookCommand(args[1:])
	}
	root := newRootCmd(version)
	if err := root.Execute(); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			if ee.msg != "" {
				fmt.Fprintln(os.Stderr, "agentgrid: "+ee.msg)
			}
			return ee.code
		}
		fmt.Fprintln(os.Stderr, "agentgrid: "+err.Error())
		return 1
	}
	return 0
}

// exitError carries a specific exit status out of a command.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

// sessionOptions are what the root command and `agentgrid demo` need to start a session.
type sessionOptions struct {
	ConfigPath string
	Layout     string
	Record     string // --record FILE: an asciicast of the screen
	Session    string
	Argv       []string
	Demo       bool
}

func newRootCmd(version string) *cobra.Command {
	var o sessionOptions
	root := &cobra.Command{
		Use:   "agentgrid [flags] [-- COMMAND [ARGS...]]",
		Short: "A terminal workbench for watching and steering many agents at once",
		Long: `agentgrid runs an orchestrator (your shell, or an agent CLI such as claude or codex)
in the main view and shows every background agent it starts live in a grid beside it.

Agents are started from inside the session with "agentgrid spawn", through the
control socket, with the prefix key (ctrl+b c), or from [[startup]] in the config.
Inside a session every child sees AGENTGRID_SOCKET, so scripts and agents can
spawn, list, wait for, read and close agents with the same CLI.

A project's ./.agentgrid.toml can start programs, so it is applied only after
you trust its exact content with "agentgrid trust" (again after every change);
until then the session says in its status line that it ignored the file.`,
		Example: `  # try it: a scripted orchestrator spawns simulated agents
  agentgrid demo

  # your shell in the main view
  agentgrid

  # an agent CLI as the orchestrator, with hooks and the MCP server wired in
  agentgrid -- claude

  # a named session: ctrl+b d detaches, it runs on; come back from any terminal
  agentgrid --session work -- claude
  agentgrid ls
  agentgrid attach work
  agentgrid kill-session work

  # apply this project's .agentgrid.toml (after reading it)
  agentgrid trust

  # from inside a session: start a background agent, wait for it, read its screen
  id=$(agentgrid spawn --title tests -- go test ./...)
  agentgrid wait "$id"; agentgrid capture "$id"`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && cmd.ArgsLenAtDash() != 0 {
				return exitError{2, fmt.Sprintf("unknown command %q; to run a program as the orchestrator put it after --, e.g. agentgrid -- %s", args[0], strings.Join(args, " "))}
			}
			o.Argv = args
			return runSession(cmd, o)
		},
	}
	f := root.Flags()
	f.StringVar(&o.ConfigPath, "config", "", "config file read after the default locations")
	f.StringVar(&o.Layout, "layout", "", "layout to start with: "+strings.Join(layout.Names(), ", "))
	f.StringVar(&o.Record, "record", "", "record the screen to FILE, an asciicast v2 file (asciinema play FILE); prefix R stops and starts")
	f.StringVar(&o.Session, "session", "", "session name: letters, digits, ., _ and - (default: agentgrid-<pid>)")

	// A mistyped flag is a usage error (exit 2) that says where to look, for
	// the session's flags and every command without a rule of its own.
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return flagProblem(cmd, err, "see "+cmd.CommandPath()+" --help")
	})
	addClientCommands(root)
	addConfigCommands(root)
	addTrustCommands(root)
	addHookCommands(root)
	addMCPCommand(root)
	addTmuxCommand(root)
	addDemoCommands(root)
	addWatchdogCommand(root)
	addServerCommands(root)
	return root
}

// runSession does the checks that need the user in the foreground (the
// config, the terminal, a nested session, the name), starts the session
// server in the background and attaches this terminal to it.
func runSession(cmd *cobra.Command, o sessionOptions) error {
	// An empty --session means the default name only when it is not given.
	if f := cmd.Flags().Lookup("session"); o.Session != "" || f != nil && f.Changed {
		if err := control.CheckSessionName(o.Session); err != nil {
			return exitError{exitUsage, err.Error()}
		}
	}
	loaded, err := loadSessionConfig(o)
	if err != nil {
		return err
	}
	if o.Record != "" {
		if err := checkRecordPath(o.Record); err != nil {
			return exitError{1, err.Error()}
		}
	}
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		return exitError{1, "a session needs a terminal on stdin and stdout; use the client commands (agentgrid spawn, list, ...) from scripts"}
	}
	if os.Getenv("AGENTGRID_SOCKET") != "" && os.Getenv("AGENTGRID_NESTED") == "" {
		return exitError{1, "already inside an agentgrid session (AGENTGRID_SOCKET is set); use agentgrid spawn to start agents, or set AGENTGRID_NESTED=1 to nest anyway"}
	}
	session := o.Session
	if session == "" {
		session = control.DefaultSessionName()
	}
	if c, err := control.Dial(control.SocketPath(session)); err == nil {
		_ = c.Close()
		return exitError{1, fmt.Sprintf("a session named %s is already running; attach to it with agentgrid attach %s, or choose another name with --session", session, session)}
	}
	if config.StateDir() == "" {
		return exitError{1, "cannot find the state directory: neither XDG_STATE_HOME nor HOME is set; set XDG_STATE_HOME"}
	}
	cols, rows, err := term.GetSize(os.Stdout.Fd())
	if err != nil || cols <= 0 || rows <= 0 {
		cols, rows = 80, 24
	}
	// Left on the terminal for after the session; the server shows them
	// in the status line and the log.
	for _, ig := range loaded.Ignored {
		fmt.Fprintln(os.Stderr, "agentgrid: "+ig.Msg)
	}
	if err := startServer(o, session, cols, rows, logPath(loaded.Config)); err != nil {
		return exitError{1, err.Error()}
	}
	return attachTerminal(cmd, control.SocketPath(session), session, false)
}

// checkRecordPath opens the --record file the way the recording will
// (created when missing, never through a symbolic link) and leaves it as it
// was, so that a path the session could not write stops it here, in one
// sentence, rather than as a passing notice once it runs.
func checkRecordPath(path string) error {
	_, statErr := os.Lstat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot record to %s: %v; give --record a file in a folder you can write", path, err)
	}
	_ = f.Close()
	if errors.Is(statErr, os.ErrNotExist) {
		_ = os.Remove(path)
	}
	return nil
}

// loadSessionConfig reads the config and applies --layout, reporting every
// problem the way the user can act on.
func loadSessionConfig(o sessionOptions) (config.Loaded, error) {
	loaded, err := config.Read(o.ConfigPath)
	if err != nil {
		return loaded, err
	}
	if diags := loaded.Diags; len(diags) > 0 {
		for _, d := range diags {
			fmt.Fprintln(os.Stderr, d.String())
		}
		return loaded, exitError{1, fmt.Sprintf("the config has %d %s; fix %s (agentgrid config check) and start again",
			len(diags), plural(len(diags), "problem", "problems"), plural(len(diags), "it", "them"))}
	}
	if o.Layout != "" {
		loaded.Config.Layout.Name = o.Layout
		if ds := config.Validate(loaded.Config); len(ds) > 0 {
			return loaded, exitError{2, fmt.Sprintf("unknown layout %q; choose one of %s", o.Layout, strings.Join(layout.Names(), ", "))}
		}
	}
	return loaded, nil
}

// serveSession is the session server (agentgrid __server): the engine, the
// panes, the socket and the watchdog, with no terminal of its own; the
// terminals attach through the socket. ready receives one line once the
// socket answers ("ok") or why the session could not start.
func serveSession(cmd *cobra.Command, o sessionOptions, cols, rows int, ready io.WriteCloser) (err error) {
	readySent := false
	defer func() {
		if !readySent && ready != nil {
			msg := "the session server stopped before it was ready"
			if err != nil {
				msg = err.Error()
			}
			_, _ = io.WriteString(ready, "error: "+strings.ReplaceAll(msg, "\n", " ")+"\n")
			_ = ready.Close()
		}
	}()
	// Keystrokes from attached terminals are read at once while panes flood.
	panes.KeepAProcForInput()
	paceGC()
	loaded, err := loadSessionConfig(o)
	if err != nil {
		return err
	}
	cfg := loaded.Config
	session := o.Session
	stateBase := config.StateDir()
	if stateBase == "" {
		return exitError{1, "cannot find the state directory: neither XDG_STATE_HOME nor HOME is set; set XDG_STATE_HOME"}
	}
	state, err := statedir.Claim(stateBase, session)
	if err != nil {
		return exitError{1, err.Error()}
	}
	defer state.Release()
	stateDir := state.Path
	logger, closeLog, err := openLog(cfg, stateBase, session)
	if err != nil {
		return err
	}
	defer closeLog()
	slog.SetDefault(logger)
	removed, err := statedir.Clean(stateBase, session, cfg.Agents.KeepState.Duration, time.Now())
	for _, dir := range removed {
		logger.Info("removed the state folder of a session that ended long ago", "dir", dir, "keep_state", cfg.Agents.KeepState.Duration)
	}
	if err != nil {
		logger.Warn("an old state folder could not be removed", "err", err)
	}

	palette, err := sessionPalette(cfg)
	if err != nil {
		return err
	}

	argv := o.Argv
	if len(argv) == 0 {
		argv = cfg.Orchestrator.Command
	}
	if len(argv) == 0 {
		argv = []string{config.DefaultShell()}
	}

	// What the user copies is kept for agentgrid paste.
	buffers := control.NewBuffers()
	// The watchdog ends every agent if this process dies without shutting
	// down (SIGKILL, a crash); it is hung up after the orderly shutdown.
	var watcher orchestrator.GroupWatcher
	if wd := startWatchdog(); wd != nil {
		watcher = wd
		defer func() { _ = wd.Close() }()
	}
	// Panes report the theme's colours until a client's terminal says
	// what its own are; a colour the theme sets itself stays.
	termColors := vterm.NewDefaultColors(palette.TerminalColors())
	outerColors := func(fg, bg color.Color) {
		if palette.Fg != "" {
			fg = nil
		}
		if palette.Bg != "" {
			bg = nil
		}
		termColors.Set(fg, bg)
	}
	hub := ui.NewHub(cfg, palette.Styles(), ui.WithOuterColors(outerColors), ui.WithBuffers(buffers), ui.WithRecord(o.Record), ui.WithFloods(panes.Flooding, panes.OnFloodStart))
	eng, err := orchestrator.New(cfg, orchestrator.Options{
		Session:    session,
		Spawner:    panes.PTYSpawner{},
		StateDir:   stateDir,
		SocketPath: control.SocketPath(session),
		Env:        os.Environ(),
		Logger:     logger,
		Version:    cmd.Root().Version,
		Buffers:    buffers,
		Attach:     hub,
		Watchdog:   watcher,
		TermColors: termColors,
		TmuxShim:   executable(),
	})
	if err != nil {
		return err
	}
	hub.Bind(eng)
	showIgnoredConfigs(eng, loaded.Ignored)
	// SIGTERM, SIGINT and SIGHUP end the session the same way as quitting,
	// so every agent's process group is still shut down. The server has no
	// terminal: a client's terminal closing only detaches that client.
	ctx, cancel := signal.NotifyContext(cmd.Context(), syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	// Shut the engine down on every way out, a panic included, so no agent
	// outlives the session.
	defer func() { _ = eng.Shutdown(context.Background()) }()
	if cols > 0 && rows > 1 {
		// The first client's pane area, so the main view starts at its size.
		eng.Resize(cols, rows-1)
	}
	if err := eng.Start(ctx, argv); err != nil {
		return err
	}
	logger.Info("session server ready", "pid", os.Getpid())
	if ready != nil {
		_, _ = io.WriteString(ready, "ok\n")
		_ = ready.Close()
	}
	readySent = true
	select {
	case <-ctx.Done():
		logger.Info("session server stopping on a signal")
	case <-hub.Quit():
		logger.Info("session quit from a client")
	}
	// The clients' programs first, so every terminal gets its modes back at
	// once; then the agents; then, with the session's name free again,
	// every client learns why and exits.
	hub.Close()
	err = eng.Shutdown(context.Background())
	state.Release()
	hub.Release()
	return err
}

// sessionPalette is the session's colour theme: a user theme from the
// themes folder of the config directory the config was read from (and
// validated against), or a built-in one; for "auto", dark until the UI
// hears the terminal's background.
func sessionPalette(cfg config.Config) (themes.Palette, error) {
	if cfg.UI.Theme == themes.Auto {
		// The UI settles it when the terminal says its background.
		return themes.Load(themes.Pick(nil), config.ThemeDir())
	}
	return themes.Load(cfg.UI.Theme, config.ThemeDir())
}

// openLog opens the session's log file (log.file, by default the one in the
// state directory, shared by every session); logs never go to the screen.
func openLog(cfg config.Config, stateBase, session string) (*slog.Logger, func(), error) {
	path := cfg.Log.File
	if path == "" {
		path = filepath.Join(stateBase, config.LogFileName)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open the log file %s: %w", path, err)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.Log.Level)); err != nil {
		level = slog.LevelInfo
	}
	h := slog.NewTextHandler(f, &slog.HandlerOptions{Level: level})
	return slog.New(h).With("session", session), func() { _ = f.Close() }, nil
}
