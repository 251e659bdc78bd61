package agentcli

import (
	"encoding/json"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// Answerer is a CLI whose hooks accept an answer: `agentgrid hook NAME`
// asks the session about the events Ask recognises and prints what Answer
// makes of the session's decision.
type Answerer interface {
	// Ask reports what an answerable event asks; ok is false for an event
	// the CLI takes no answer to (the hook then only notifies).
	Ask(payload []byte) (ask agentstate.Ask, ok bool, err error)
	// Answer is the CLI's own output for a decision at that Ask, nil when
	// the CLI has no way to say it (or the decision is none).
	Answer(ask agentstate.Ask, d agentstate.Decision) []byte
}

// MustJSON encodes v; an answer is built from plain maps and strings, which
// always encode.
func MustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// PathsOf returns the file paths in a tool's input, under the keys file
// tools use.
func PathsOf(in map[string]any, keys ...string) []string {
	var out []string
	for _, k := range keys {
		if s := Str(in, k); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// StopContinuer is an Answerer whose CLI goes on working when its
// end-of-turn hook is answered with a block and a reason: a continuation
// loop goes on through that answer instead of typing into its screen.
type StopContinuer interface {
	ContinuesAtStop() bool
}
