package orchestrator

import (
	"errors"
	"os"
	"syscall"
)

// logFailed records that a's output log stopped (it could not be opened or
// written): the agent keeps running and its pane keeps showing output, and
// the failure shows in the status line and in explain. It is called from
// the pane's reader goroutine, or from the reconciler while the pane starts.
func (e *Engine) logFailed(a *agent, err error) {
	why := "at " + e.now().Format("15:04:05") + ", " + logCause(err) + "; later output is shown but not logged (" + err.Error() + ")"
	a.logErr.Store(&why)
	e.status.Set(logStatusKey+a.id, "output not logged: "+logCause(err), a.id, sourceEngine, 0)
	e.poke()
}

// logStatusKey prefixes the status entry of an agent whose log stopped.
const logStatusKey = "log:"

// logCause is the short reason for the status line: "disk full" rather
// than the whole error with its path.
func logCause(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return "disk full"
	case errors.Is(err, syscall.EDQUOT):
		return "disk quota exceeded"
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}
