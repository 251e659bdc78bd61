package panes

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// childSignals are the signals a program in a pane must find at their
// default action. A signal agentgrid inherited as ignored (started under
// nohup, or from a service manager that ignores SIGHUP) would otherwise
// stay ignored across exec in every child: closing an agent sends SIGHUP
// first, and an agent that ignores it lives out the whole kill grace.
var childSignals = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU}

var resetOnce sync.Once

// resetIgnoredSignals gives each child signal that agentgrid inherited as
// ignored a handler of its own, which exec resets to the default action
// in the child (an ignored disposition would survive exec). agentgrid
// itself keeps ignoring them: their deliveries are drained and dropped.
func resetIgnoredSignals() {
	resetOnce.Do(func() {
		var ignored []os.Signal
		for _, sig := range childSignals {
			if signal.Ignored(sig) {
				ignored = append(ignored, sig)
			}
		}
		if len(ignored) == 0 {
			return
		}
		c := make(chan os.Signal, 8)
		signal.Notify(c, ignored...)
		go func() {
			for range c {
			}
		}()
	})
}
