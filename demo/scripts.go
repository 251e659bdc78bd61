package demo

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path"
	"strings"
	"time"
)

// Bounds of one simulated run (up to its question, if it asks one), so every
// agent stays on screen long enough to watch and the demo still moves on.
const (
	minRun = 6 * time.Second
	maxRun = 20 * time.Second
	// askTimeout is how long the asking agent waits before taking "no" as
	// the answer, so an unattended demo keeps moving: on a small terminal
	// the waiting agent holds the only agent pane, and the queue behind it
	// would stand still until it is answered.
	askTimeout = 30 * time.Second
)

// NewScript plans the run of the named script for a seed. The same name and
// seed always give the same bytes and the same pauses.
func NewScript(name string, seed uint64) (Script, error) {
	t, ok := findTask(name)
	if !ok {
		return Script{}, fmt.Errorf("unknown demo script %q (known: %s)", name, strings.Join(ScriptNames(), ", "))
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	b := &builder{rng: rand.New(rand.NewPCG(seed, h.Sum64()))}
	s := Script{Name: t.name, Title: t.title}

	b.intro(t, seed)
	b.explore(t)
	if t.outcome == titled {
		b.waitForLock(t)
	}
	b.spinner("Planning the change", b.between(1200*time.Millisecond, 2600*time.Millisecond),
		"weighing 2 approaches", "checking callers", "drafting the edit")
	b.say(planSentence(t))

	switch t.outcome {
	case asks:
		b.proposal(t)
		b.fit(minRun, maxRun)
		main := b.take()
		q := &question{timeout: askTimeout}
		q.yes, q.exitYes = b.afterYes(t), 0
		q.no, q.exitNo = b.afterNo(t), 0
		s.frames = append(main, frame{out: askPrompt(t), ask: q})
		return s, nil
	default:
		b.edit(t)
		passed := b.testRun(t)
		b.fit(minRun, maxRun)
		s.exit = b.finish(t, passed)
	}
	s.frames = b.take()
	return s, nil
}

// intro prints the simulated CLI's banner and the task it was given.
func (b *builder) intro(t task, seed uint64) {
	if t.outcome == titled {
		b.emit(0, setTitle(t.title+" — reading"))
	}
	b.emit(0, paint(fgViolet+sgrBold, "✻ sim-agent")+paint(fgGray, fmt.Sprintf(" · simulated coding agent · seed %d", seed))+"\n")
	b.emit(0, paint(fgGray, "  model demo-1 · cwd ~/src/shop · /help for help")+"\n")
	b.blank()
	b.emit(b.between(200*time.Millisecond, 500*time.Millisecond), paint(sgrBold, "> ")+t.prompt+"\n")
	b.blank()
	b.spinner("Thinking", b.between(1500*time.Millisecond, 3200*time.Millisecond))
}

// explore reads files, indexes the workspace and searches it.
func (b *builder) explore(t task) {
	b.say("Let me look at the code first.")
	for _, f := range t.reads {
		b.tool("Read", f)
		b.result(fmt.Sprintf("Read %d lines", 40+b.rng.IntN(260)))
	}
	b.progress("indexing", 120+b.rng.IntN(400), b.between(1500*time.Millisecond, 3500*time.Millisecond))
	b.tool("Grep", fmt.Sprintf("%q", t.grep))
	n := 1 + b.rng.IntN(4)
	var hits []string
	for i := 0; i < n && i < len(t.reads); i++ {
		hits = append(hits, paint(fgGray, fmt.Sprintf("%s:%d", t.reads[i], 10+b.rng.IntN(200))))
	}
	b.result("Found "+plural(n, "match"), hits...)
}

// waitForLock is the titled agent's pause: it sets its title and rings the
// bell because it is waiting on something outside itself.
func (b *builder) waitForLock(t task) {
	b.emit(b.between(200*time.Millisecond, 500*time.Millisecond),
		setTitle(t.title+" — waiting for lock")+bell+
			paint(fgYellow, "⏸ waiting: docs/ is locked by another agent")+"\n")
	b.spinner("Waiting for the lock", b.between(2*time.Second, 4*time.Second), "docs/.lock held by a1", "retrying")
	b.emit(0, setTitle(t.title+" — writing")+paint(fgGreen, "▶ lock acquired")+"\n")
}

// planSentence is what the agent says before it edits.
func planSentence(t task) string {
	return fmt.Sprintf("I'll edit %s, then run the tests.", path.Base(t.edit))
}

// diffLines renders the task's change as a coloured unified diff.
func diffLines(t task) []string {
	h := t.hunk
	out := []string{paint(fgCyan, fmt.Sprintf("@@ -%d,%d +%d,%d @@ ", h.at, len(h.del)+1, h.at, len(h.add)+1)) + paint(fgGray, h.context)}
	n := h.at
	for _, d := range h.del {
		out = append(out, paint(fgGray, fmt.Sprintf("%4d ", n))+paint(bgDiffDel+fgRed, "- "+d))
		n++
	}
	n = h.at
	for _, a := range h.add {
		out = append(out, paint(fgGray, fmt.Sprintf("%4d ", n))+paint(bgDiffAdd+fgGreen, "+ "+a))
		n++
	}
	return out
}

// edit applies the change and shows its diff.
func (b *builder) edit(t task) {
	b.tool("Update", t.edit)
	b.result(fmt.Sprintf("Updated with %s and %s", plural(len(t.hunk.add), "addition"), plural(len(t.hunk.del), "removal")), diffLines(t)...)
}

// proposal shows the diff the asking agent wants to apply.
func (b *builder) proposal(t task) {
	b.tool("Propose", t.edit)
	b.result(fmt.Sprintf("%d files would change, first:", t.files), diffLines(t)...)
}

// askPrompt is the question line, with the title, bell and notification that
// tell agentgrid (and the user) this agent needs an answer.
func askPrompt(t task) string {
	return setTitle("? "+t.title+" — waiting for you") + bell + notify(t.title+": needs your answer") +
		"\n" + paint(fgYellow+sgrBold, "?") + " " + paint(sgrBold, fmt.Sprintf("Apply this change to %d files? [y/N] ", t.files)) +
		paint(fgGray, fmt.Sprintf("(no answer in %s means no) ", askTimeout))
}

// afterYes plans the rest of the asking agent's run when the user says yes.
func (b *builder) afterYes(t task) []frame {
	b.emit(0, setTitle(t.title))
	b.tool("Update", t.edit)
	b.result(fmt.Sprintf("Applied to %d files", t.files))
	passed := b.testRun(t)
	b.finish(t, passed)
	return b.take()
}

// afterNo plans the rest of the asking agent's run when the user says no.
func (b *builder) afterNo(t task) []frame {
	b.emit(0, setTitle(t.title))
	b.say("Okay — I left every file unchanged.")
	b.emit(b.between(300*time.Millisecond, 700*time.Millisecond),
		paint(fgYellow, "○ Skipped")+paint(fgGray, " · no files changed · nothing to test")+"\n")
	return b.take()
}

// testRun runs the task's tests and reports whether they all passed.
func (b *builder) testRun(t task) bool {
	b.tool("Bash", "go test "+t.pkg)
	b.spinner("Running tests", b.between(1200*time.Millisecond, 3*time.Second), "compiling", "running")
	failed := map[string]bool{}
	if t.outcome == fails {
		for _, f := range t.failing {
			failed[f] = true
		}
	}
	first := true
	for _, name := range t.tests {
		dur := fmt.Sprintf("(%.2fs)", float64(1+b.rng.IntN(40))/100)
		verdict := paint(fgGreen, "--- PASS: ") + name + " " + paint(fgGray, dur)
		if failed[name] {
			verdict = paint(fgRed+sgrBold, "--- FAIL: ") + name + " " + paint(fgGray, dur)
		}
		run := paint(fgGray, "=== RUN   ") + name
		if first {
			b.result(run)
			first = false
		} else {
			b.lines("    " + run)
		}
		b.emit(b.between(100*time.Millisecond, 450*time.Millisecond), "    "+verdict+"\n")
		if failed[name] {
			b.lines("    " + paint(fgRed, fmt.Sprintf("    rpc_test.go:%d: retry count = 0, want 3", 40+b.rng.IntN(60))))
		}
	}
	pkg := strings.TrimSuffix(strings.TrimPrefix(t.pkg, "./"), "/...")
	elapsed := fmt.Sprintf("%.3fs", 0.1+float64(b.rng.IntN(900))/1000)
	if len(failed) > 0 {
		b.lines("    "+paint(fgRed+sgrBold, "FAIL")+"  "+pkg+"  "+elapsed, "    "+paint(fgRed, "exit status 1"))
		return false
	}
	b.lines("    " + paint(fgGreen, "ok  ") + "  " + pkg + "  " + elapsed)
	return true
}

// finish prints the closing summary and returns the exit code.
func (b *builder) finish(t task, passed bool) int {
	adds, dels := len(t.hunk.add)*t.files, len(t.hunk.del)*t.files
	b.blank()
	if !passed {
		b.emit(b.between(300*time.Millisecond, 800*time.Millisecond),
			paint(fgRed+sgrBold, "✗ Error: ")+paint(fgRed, fmt.Sprintf("%d tests fail after the upgrade;", len(t.failing)))+"\n"+
				paint(fgRed, "  rpc v2 changed retry semantics — needs a human")+"\n")
		if t.outcome == titled {
			b.emit(0, setTitle(t.title+" — failed"))
		}
		return 1
	}
	if t.outcome == titled {
		b.emit(0, setTitle(t.title+" — done"))
	}
	b.emit(b.between(300*time.Millisecond, 800*time.Millisecond),
		paint(fgGreen+sgrBold, "✓ Done")+paint(fgGray, " · "+plural(t.files, "file")+" · ")+
			paint(fgGreen, fmt.Sprintf("+%d", adds))+" "+paint(fgRed, fmt.Sprintf("-%d", dels))+
			paint(fgGray, fmt.Sprintf(" · %d/%d tests pass", len(t.tests), len(t.tests)))+"\n")
	return 0
}

// plural formats a count with a noun: "1 removal", "2 removals".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "ch") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
