package registry

import (
	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// Ask reports what an answerable hook payload of the named CLI asks; ok is
// false for a CLI that takes no answers and for events without one.
func Ask(cli string, payload []byte) (ask agentstate.Ask, ok bool, err error) {
	c, found := Adapter(cli)
	if !found || len(payload) > MaxPayload {
		return agentstate.Ask{}, false, nil
	}
	a, is := c.(agentcli.Answerer)
	if !is {
		return agentstate.Ask{}, false, nil
	}
	return a.Ask(payload)
}

// Answer is the named CLI's output for a decision at ask; nil when there is
// nothing to print.
func Answer(cli string, ask agentstate.Ask, d agentstate.Decision) []byte {
	c, found := Adapter(cli)
	if !found || d.Action == agentstate.ActionNone {
		return nil
	}
	a, is := c.(agentcli.Answerer)
	if !is {
		return nil
	}
	return a.Answer(ask, d)
}

// ContinuesAtStop reports whether the named CLI goes on with a turn when its
// end-of-turn hook is answered with a block (agentcli.StopContinuer).
func ContinuesAtStop(cli string) bool {
	c, found := Adapter(cli)
	if !found {
		return false
	}
	s, ok := c.(agentcli.StopContinuer)
	return ok && s.ContinuesAtStop()
}
