package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/oneline"
	"github.com/agentgrid/agentgrid/internal/timeslice"
	"github.com/agentgrid/agentgrid/ui"
)

// serverCmdName is the hidden command that runs a session server.
const serverCmdName = "__server"

// serverStartTimeout bounds the wait for a new session server's socket.
const serverStartTimeout = 20 * time.Second

func addServerCommands(root *cobra.Command) {
	root.AddCommand(newServerCmd(), usageErrors(withSocketFlag(newAttachCmd())), usageErrors(newLsCmd()),
		usageErrors(withSocketFlag(newKillSessionCmd())))
}

func newServerCmd() *cobra.Command {
	var (
		o          sessionOptions
		cols, rows int
		readyFD    int
	)
	cmd := &cobra.Command{
		Use:    serverCmdName + " --session NAME [-- COMMAND...]",
		Short:  "The session server (started by agentgrid; terminals attach to it)",
		Hidden: true,
		Args:   cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Argv = args
			var ready io.WriteCloser
			if readyFD > 2 {
				ready = os.NewFile(uintptr(readyFD), "ready")
			}
			if err := control.CheckSessionName(o.Session); err != nil {
				if ready != nil {
					_, _ = io.WriteString(ready, "error: "+err.Error()+"\n")
					_ = ready.Close()
				}
				return exitError{exitUsage, err.Error()}
			}
			return serveSession(cmd, o, cols, rows, ready)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.ConfigPath, "config", "", "config file read after the default locations")
	f.StringVar(&o.Layout, "layout", "", "layout to start with")
	f.StringVar(&o.Session, "session", "", "session name")
	f.StringVar(&o.Record, "record", "", "record the first client's screen to FILE")
	f.IntVar(&cols, "cols", 0, "the first client's width")
	f.IntVar(&rows, "rows", 0, "the first client's height")
	f.IntVar(&readyFD, "ready-fd", 0, "a descriptor that receives one line once the socket answers")
	return cmd
}

// logPath is the log file a session of cfg writes to.
func logPath(cfg config.Config) string {
	if cfg.Log.File != "" {
		return cfg.Log.File
	}
	return filepath.Join(config.StateDir(), config.LogFileName)
}

// startServer starts the session server in the background, detached from
// this terminal (its own session, stdio on /dev/null, logs in the log
// file), with this process's environment and directory, which the panes
// need; it returns once the server's socket answers, or why it did not.
func startServer(o sessionOptions, session string, cols, rows int, logFile string) error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("start the session server: %w", err)
	}
	defer r.Close()
	args := []string{serverCmdName, "--session", session, "--cols", strconv.Itoa(cols), "--rows", strconv.Itoa(rows), "--ready-fd", "3"}
	if o.ConfigPath != "" {
		args = append(args, "--config", o.ConfigPath)
	}
	if o.Layout != "" {
		args = append(args, "--layout", o.Layout)
	}
	if o.Record != "" {
		args = append(args, "--record", o.Record)
	}
	args = append(args, "--")
	args = append(args, o.Argv...)
	cmd := exec.Command(executable(), args...)
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		_ = w.Close()
		return fmt.Errorf("start the session server: %w", err)
	}
	_ = w.Close()
	// Reap it if it ends while this client still runs.
	go func() { _ = cmd.Wait() }()
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case s := <-line:
		switch {
		case s == "ok":
			return nil
		case strings.HasPrefix(s, "error: "):
			return errors.New(oneline.Sanitize(strings.TrimPrefix(s, "error: "), 2000))
		}
		return fmt.Errorf("the session server for %s stopped before it was ready; see the log file %s", session, logFile)
	case <-time.After(serverStartTimeout):
		return fmt.Errorf("the session server for %s did not answer within %s; see the log file %s", session, serverStartTimeout, logFile)
	}
}

// attachTerminal attaches this terminal to the session at path until it
// detaches or the session ends, and prints why it came back.
func attachTerminal(cmd *cobra.Command, path, name string, readOnly bool) error {
	if own := os.Getenv(control.EnvSocket); own != "" && filepath.Clean(own) == filepath.Clean(path) {
		// Its own screen would show itself, and its keys would feed the
		// pane it runs in.
		return exitError{1, fmt.Sprintf("this terminal is a pane of session %s, which cannot attach to itself; run agentgrid attach in another terminal", name)}
	}
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		return exitError{1, cmd.Name() + " needs a terminal on stdin and stdout; use agentgrid capture from scripts"}
	}
	cols, rows, err := term.GetSize(os.Stdout.Fd())
	if err != nil || cols <= 0 || rows <= 0 {
		cols, rows = 80, 24
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	s, _, err := control.Attach(ctx, path, control.AttachParams{Cols: cols, Rows: rows, Env: ui.TerminalEnv(), ReadOnly: readOnly})
	if err != nil {
		return exitError{1, err.Error()}
	}
	// This process only relays now: it runs the moment a key or a frame
	// comes, however busy panes keep the CPUs. Under an 8-pane flood, its
	// wait for a CPU after a keystroke was the longest step on the way to
	// the session (traced: 6.2 ms at the 99th percentile, 2.7 ms with it).
	_ = timeslice.Prompt()
	reason, err := ui.AttachTerminal(ctx, s, os.Stdin, os.Stdout)
	stderr := cmd.ErrOrStderr()
	switch {
	case errors.Is(err, ui.ErrConnectionLost):
		// Name the file: the user looks there next.
		l, _ := config.Read("")
		return exitError{1, fmt.Sprintf("lost the connection to session %s (its server ended without a word; see the log file %s)", name, logPath(l.Config))}
	case err != nil:
		return exitError{1, err.Error()}
	case reason == ui.ExitDetached && readOnly:
		// The watcher comes back the way it came, read-only.
		fmt.Fprintf(stderr, "[stopped watching session %s; agentgrid watch %s to look again]\n", name, name)
	case reason == ui.ExitDetached:
		fmt.Fprintf(stderr, "[detached from session %s; agentgrid attach %s to come back]\n", name, name)
	case reason == ui.ExitQuit:
		fmt.Fprintf(stderr, "[session %s quit]\n", name)
	default:
		fmt.Fprintf(stderr, "[session %s ended]\n", name)
	}
	return nil
}
