// Package agentstate is the agent-state vocabulary every other package
// shares: the lifecycle states of an agent and their names, which of them
// are live or finished, the tallies the status line shows, and the Signal an
// agent CLI's hook adapter reports. It imports nothing of agentgrid's, so
// the per-CLI packages, hooks, config, the engine, the UI and the themes can
// all use it.
package agentstate

// State is an agent's lifecycle state, as the engine reports it (the
// "state" member of list --json, of events and of hook payloads).
type State string

// Lifecycle: pending -> starting -> running <-> waiting / idle -> done | failed | killed.
const (
	Pending  State = "pending"  // not started: waiting for a slot or a concurrency limit
	Starting State = "starting" // the process is being started
	Running  State = "running"  // working
	Waiting  State = "waiting"  // needs the user's input
	Idle     State = "idle"     // alive, nothing to do
	Done     State = "done"     // exited with code 0
	Failed   State = "failed"   // exited non-zero, or could not start
	Killed   State = "killed"   // closed by the user or the session's end
)

// Queued is not a lifecycle state: it names a pending agent that sits in
// the deferred-spawn queue, as the status line counts it and the themes
// colour its badge.
const Queued State = "queued"

// All lists the lifecycle states in display order.
func All() []State {
	return []State{Pending, Starting, Running, Waiting, Idle, Done, Failed, Killed}
}

// Badges lists every state a badge is drawn for (the lifecycle states and
// Queued), in display order; each has a colour token badge_NAME in a theme.
func Badges() []State { return append(All(), Queued) }

// Finished reports whether s is final (done, failed or killed).
func (s State) Finished() bool { return s == Done || s == Failed || s == Killed }

// Alive reports whether s is a state of a live process.
func (s State) Alive() bool { return s == Running || s == Waiting || s == Idle }

// Resting reports whether an agent in s waits for the user or has nothing
// to do (idle or waiting).
func (s State) Resting() bool { return s == Idle || s == Waiting }

// Reported reports whether a hook may report s: running, waiting or idle.
// Only the process decides the others.
func (s State) Reported() bool { return s.Alive() }

// Counts are the agent tallies shown at the left of the status line.
type Counts struct {
	Running, Waiting, Idle, Done, Failed, Queued int
}

// Add counts one agent in state s; queued marks a pending agent that sits
// in the deferred-spawn queue. Killed agents count as failed, pending and
// starting ones as queued.
func (c *Counts) Add(s State, queued bool) {
	switch {
	case queued:
		c.Queued++
	case s == Running:
		c.Running++
	case s == Waiting:
		c.Waiting++
	case s == Idle:
		c.Idle++
	case s == Done:
		c.Done++
	case s == Failed, s == Killed:
		c.Failed++
	case s == Pending, s == Starting:
		c.Queued++
	}
}
