package orchestrator

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// TestDecideLoop covers every branch of the decision on a finished turn,
// with the failure modes users of other loop runners report: the promise
// found in the prompt's own template, a promise on the last iteration
// counted as a failure, a loop that goes on after the user typed or
// pressed Esc, and one that never stops.
func TestDecideLoop(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	spec := control.LoopSpec{Promise: "DONE", Max: 5, Task: "port the parser; print <promise>DONE</promise> when done"}
	running := func(iter int) loopState {
		return loopState{spec: spec, iteration: iter, status: control.LoopRunning, started: t0}
	}
	forever := loopState{spec: control.LoopSpec{Promise: "DONE", Forever: true, ForMS: int64(time.Hour / time.Millisecond), Task: "t"},
		iteration: 40, status: control.LoopRunning, started: t0}
	typed := running(2)
	typed.typed = true
	cooled := running(2)
	cooled.spec.CooldownMS = 30000
	cases := []struct {
		name   string
		l      loopState
		turn   loopTurn
		status string
		next   int
		notify bool
		reason string // a part of the reason
		via    string // how a continuation goes out: "answer", "type after D"
	}{
		{"no promise yet: continue", running(1), loopTurn{said: "Half the parser is ported.", now: t0}, control.LoopRunning, 2, false, "iteration 2", "type after 300ms"},
		{"the promise ends it", running(2), loopTurn{said: "All ported.\n<promise>DONE</promise>", now: t0}, control.LoopSucceeded, 0, false, "iteration 2", ""},
		// The prompt and the task carry the tag as its format; only what
		// the assistant said counts, and a turn that said nothing goes on.
		{"the promise in the prompt template does not count", running(1), loopTurn{said: "", now: t0}, control.LoopRunning, 2, false, "", "type after 300ms"},
		{"a near miss is no promise", running(1), loopTurn{said: "<promise>DONE </promise> <promise>done</promise> DONE", now: t0}, control.LoopRunning, 2, false, "", "type after 300ms"},
		{"the promise on the last iteration is a success", running(5), loopTurn{said: "<promise>DONE</promise>", now: t0}, control.LoopSucceeded, 0, false, "iteration 5", ""},
		{"max reached without the promise stops", running(5), loopTurn{said: "more to do", now: t0}, control.LoopStopped, 0, false, "5 iterations", ""},
		{"the user typed mid-loop: pause", typed, loopTurn{said: "<promise>DONE</promise>", now: t0}, control.LoopPaused, 0, false, "you typed", ""},
		{"waiting for the user: pause and notify", running(3), loopTurn{said: "Which database?", waiting: true, now: t0}, control.LoopPaused, 0, true, "waiting for you", ""},
		{"paused (Esc) stays paused", loopState{spec: spec, iteration: 2, status: control.LoopPaused, reason: "paused: interrupted by user"},
			loopTurn{said: "stopped", now: t0}, control.LoopPaused, 0, false, "interrupted by user", ""},
		{"a stopped loop stays stopped", loopState{spec: spec, iteration: 2, status: control.LoopStopped}, loopTurn{now: t0}, control.LoopStopped, 0, false, "", ""},
		{"forever within its time goes on", forever, loopTurn{said: "x", now: t0.Add(59 * time.Minute)}, control.LoopRunning, 41, false, "", "type after 300ms"},
		{"forever stops when its time is up", forever, loopTurn{said: "x", now: t0.Add(time.Hour)}, control.LoopStopped, 0, false, "ran for 1h0m0s", ""},
		// How the continuation goes out: the answer of a hook that makes
		// the CLI go on, else typed; a cooldown is always typed after it.
		{"a Stop that continues the CLI: the answer", running(2), loopTurn{said: "x", answerable: true, now: t0}, control.LoopRunning, 3, false, "", "answer"},
		{"a cooldown is typed after it, also for Claude", cooled, loopTurn{said: "x", answerable: true, now: t0}, control.LoopRunning, 3, false, "", "type after 30s"},
	}
	for _, c := range cases {
		got := decideLoop(c.l, c.turn)
		if got.status != c.status || got.next != c.next || got.notify != c.notify || !strings.Contains(got.reason, c.reason) {
			t.Errorf("%s: got %+v, want status %s next %d notify %v reason ~%q", c.name, got, c.status, c.next, c.notify, c.reason)
		}
		if c.next > 0 && got.prompt != loopPrompt(c.l.spec, c.next) {
			t.Errorf("%s: prompt %q, want the template of iteration %d", c.name, got.prompt, c.next)
		}
		if c.next == 0 && got.prompt != "" {
			t.Errorf("%s: a loop that does not continue sends %q", c.name, got.prompt)
		}
		via := ""
		switch {
		case got.answer && got.delay == 0:
			via = "answer"
		case !got.answer && got.delay > 0:
			via = "type after " + got.delay.String()
		case got.answer || got.delay != 0:
			via = fmt.Sprintf("answer %v and delay %s", got.answer, got.delay)
		}
		if via != c.via {
			t.Errorf("%s: the continuation goes out as %q, want %q", c.name, via, c.via)
		}
	}
}

// TestLoopPromptCarriesIterationTaskAndFormat checks the continuation: the
// iteration k/N, the original task, the promise's format.
func TestLoopPromptCarriesIterationTaskAndFormat(t *testing.T) {
	p := loopPrompt(control.LoopSpec{Promise: "SHIPPED", Max: 10, Task: "  make the build green  "}, 4)
	for _, want := range []string{"iteration 4/10", "make the build green", "<promise>SHIPPED</promise>"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt %q lacks %q", p, want)
		}
	}
	p = loopPrompt(control.LoopSpec{Promise: "X", Forever: true, ForMS: 7200000, Task: "t"}, 3)
	if !strings.Contains(p, "iteration 3, for at most 2h0m0s") {
		t.Errorf("forever prompt %q does not say its time bound", p)
	}
	// The template's own tag is no promise: decided on it, a loop goes on.
	l := loopState{spec: control.LoopSpec{Promise: "SHIPPED", Max: 3, Task: "t"}, iteration: 1, status: control.LoopRunning}
	if step := decideLoop(l, loopTurn{said: "I read: " + p[:strings.Index(p, "Keep")]}); step.status != control.LoopRunning {
		t.Errorf("a turn quoting the task ended the loop: %+v", step)
	}
}

func TestClassifyLoopInput(t *testing.T) {
	cases := []struct {
		in   string
		want loopKey
	}{
		{"\x1b", loopKeyInterrupt},
		{"\x03", loopKeyInterrupt},
		{"\x1b[27u", loopKeyInterrupt},
		{"a", loopKeyTyped},
		{"fix it\r", loopKeyTyped},
		{"\x1b[A", loopKeyTyped},
		{"\x1b[200~pasted\x1b[201~", loopKeyTyped},
		{"\x1b[I", loopKeyNone},
		{"\x1b[O", loopKeyNone},
		{"\x1b[<0;10;5M", loopKeyNone},
		{"\x1b[M !!", loopKeyNone},
		{"", loopKeyNone},
	}
	for _, c := range cases {
		if got := classifyLoopInput([]byte(c.in)); got != c.want {
			t.Errorf("%q: %d, want %d", c.in, got, c.want)
		}
	}
}

func TestLoopSpecCheck(t *testing.T) {
	ok := control.LoopSpec{Promise: "DONE", Max: 3}
	if err := ok.Check(); err != nil {
		t.Fatal(err)
	}
	bad := map[string]control.LoopSpec{
		"no bound":              {Promise: "DONE"},
		"forever without --for": {Promise: "DONE", Forever: true},
		"forever and max":       {Promise: "DONE", Forever: true, Max: 3, ForMS: 1000},
		"no promise":            {Max: 3},
		"promise with a tag":    {Promise: "<promise>DONE</promise>", Max: 3},
		"promise with newline":  {Promise: "DO\nNE", Max: 3},
		"huge max":              {Promise: "DONE", Max: control.MaxLoopIterations + 1},
		"negative cooldown":     {Promise: "DONE", Max: 3, CooldownMS: -1},
		"stall without todos":   {Promise: "DONE", Max: 3, Stall: 2},
		"todos without a bound": {WhileTodos: true},
	}
	for name, s := range bad {
		if err := s.Check(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := (control.LoopSpec{Promise: "DONE", Forever: true, ForMS: 60000}).Check(); err != nil {
		t.Errorf("forever with --for: %v", err)
	}
	if err := (control.LoopSpec{WhileTodos: true, Max: 5, Stall: 2}).Check(); err != nil {
		t.Errorf("--while-todos without a promise: %v", err)
	}
}

// TestDecideLoopWhileTodos covers --while-todos: a list without open items
// is a success, an item done is progress, and K continuations in a row
// that complete nothing stop the loop.
func TestDecideLoopWhileTodos(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	spec := control.LoopSpec{WhileTodos: true, Max: 20, Task: "port the parser"}
	at := func(iter, doneAt, stalls int) loopState {
		return loopState{spec: spec, iteration: iter, status: control.LoopRunning, started: t0, doneAt: doneAt, stalls: stalls}
	}
	todos := func(open, done int) *agentstate.Todos { return &agentstate.Todos{Open: open, Done: done} }
	cases := []struct {
		name           string
		l              loopState
		todos          *agentstate.Todos
		status         string
		doneAt, stalls int
	}{
		{"no open items: success", at(3, 1, 0), todos(0, 4), control.LoopSucceeded, 0, 0},
		{"an item done: progress", at(3, 1, 2), todos(2, 2), control.LoopRunning, 2, 0},
		{"a new, shorter list is progress", at(3, 5, 2), todos(3, 0), control.LoopRunning, 0, 0},
		{"the first turn never stalls", at(1, 0, 0), todos(3, 0), control.LoopRunning, 0, 0},
		{"no list seen yet: a stall", at(2, 0, 0), nil, control.LoopRunning, 0, 1},
		{"nothing done: one more stall", at(4, 1, 1), todos(2, 1), control.LoopRunning, 1, 2},
		{"the third continuation without progress stops", at(5, 1, 2), todos(2, 1), control.LoopStopped, 0, 0},
	}
	for _, c := range cases {
		got := decideLoop(c.l, loopTurn{said: "working", todos: c.todos, now: t0})
		if got.status != c.status || got.doneAt != c.doneAt || got.stalls != c.stalls {
			t.Errorf("%s: got %+v, want status %s doneAt %d stalls %d", c.name, got, c.status, c.doneAt, c.stalls)
		}
	}
	if got := decideLoop(at(5, 1, 2), loopTurn{todos: todos(2, 1)}); !strings.Contains(got.reason, "3 continuations in a row completed no todo item") {
		t.Errorf("stall reason %q", got.reason)
	}
	// The promise still ends it, and without one the template asks for none.
	withPromise := at(2, 0, 0)
	withPromise.spec.Promise = "DONE"
	if got := decideLoop(withPromise, loopTurn{said: "<promise>DONE</promise>", todos: todos(2, 0)}); got.status != control.LoopSucceeded {
		t.Errorf("the promise with open items: %+v", got)
	}
	p := loopPrompt(spec, 2)
	if strings.Contains(p, "<promise>") || !strings.Contains(p, "todo list") {
		t.Errorf("the --while-todos template without a promise: %q", p)
	}
}
