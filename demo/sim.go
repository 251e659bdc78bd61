// Package demo is agentgrid's built-in demo: simulated agents whose output
// looks like an AI coding CLI at work, and a scripted orchestrator that starts
// them through a session's real control socket.
//
// Both run as hidden subcommands of the agentgrid binary, so the demo needs
// nothing but the binary itself.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// SimOptions configures one simulated agent.
type SimOptions struct {
	Script string
	Seed   uint64
	// Speed divides every pause; 1 is the live pace.
	Speed float64
	In    io.Reader
	Out   io.Writer
	// Sleep overrides the pause between frames (tests); nil means real time.
	Sleep Sleeper
}

// RunSim plays a simulated agent until it ends or ctx is cancelled and
// returns the process exit code: the script's own, 130 when interrupted, 2
// for an unknown script.
func RunSim(ctx context.Context, o SimOptions) int {
	s, err := NewScript(o.Script, o.Seed)
	if err != nil {
		fmt.Fprintln(o.Out, paint(fgRed, "sim-agent: "+err.Error()))
		return 2
	}
	code, err := s.Play(ctx, o.Out, o.In, PlayOptions{Speed: o.Speed, Sleep: o.Sleep})
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "sim-agent:", err)
	}
	return code
}

// RunSimProcess is the body of the hidden `__sim-agent` command: it plays the
// script on the process's own terminal and exits cleanly on SIGHUP, SIGTERM
// or SIGINT (the cursor is shown again and colours reset).
func RunSimProcess(script string, seed uint64, speed float64) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	return RunSim(ctx, SimOptions{Script: script, Seed: seed, Speed: speed, In: os.Stdin, Out: os.Stdout})
}
