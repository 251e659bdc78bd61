package demo

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// noSleep makes playback instant while still honouring cancellation.
func noSleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

func play(t *testing.T, name string, seed uint64, in io.Reader) (string, int) {
	t.Helper()
	var out bytes.Buffer
	code := RunSim(context.Background(), SimOptions{Script: name, Seed: seed, In: in, Out: &out, Sleep: noSleep})
	return out.String(), code
}

func TestScriptsAreDeterministic(t *testing.T) {
	for _, name := range ScriptNames() {
		a, codeA := play(t, name, 7, strings.NewReader("y\n"))
		b, codeB := play(t, name, 7, strings.NewReader("y\n"))
		if a != b || codeA != codeB {
			t.Errorf("%s: two runs with seed 7 differ", name)
		}
		c, _ := play(t, name, 8, strings.NewReader("y\n"))
		if a == c {
			t.Errorf("%s: seeds 7 and 8 gave the same output", name)
		}
		s1, _ := NewScript(name, 7)
		s2, _ := NewScript(name, 7)
		if s1.Duration() != s2.Duration() {
			t.Errorf("%s: pacing differs between runs with one seed", name)
		}
	}
}

func TestScriptsLookLikeAnAgentAtWork(t *testing.T) {
	for _, name := range ScriptNames() {
		out, code := play(t, name, 1, strings.NewReader("y\n"))
		plain := ansi.Strip(out)
		for _, want := range []string{"● Read(", "● Grep(", "● Bash(go test", "indexing", "@@ -", "=== RUN"} {
			if !strings.Contains(plain, want) {
				t.Errorf("%s: output lacks %q", name, want)
			}
		}
		for _, want := range []string{"\r", cursorUp, eraseLine, fgGreen, bgDiffAdd} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks the escape %q", name, want)
			}
		}
		tk, _ := findTask(name)
		wantCode := 0
		if tk.outcome == fails {
			wantCode = 1
		}
		if code != wantCode {
			t.Errorf("%s: exit code %d, want %d", name, code, wantCode)
		}
		if strings.Count(out, hideCursor) != strings.Count(out, showCursor) {
			t.Errorf("%s: cursor hidden %d times but shown %d times", name, strings.Count(out, hideCursor), strings.Count(out, showCursor))
		}
	}
}

func TestScriptPacing(t *testing.T) {
	for _, name := range ScriptNames() {
		for seed := uint64(0); seed < 20; seed++ {
			s, err := NewScript(name, seed)
			if err != nil {
				t.Fatal(err)
			}
			// fit() scales to [minRun, maxRun]; the summary line adds a little.
			if d := s.Duration(); d < minRun-time.Millisecond || d > maxRun+2*time.Second {
				t.Errorf("%s seed %d: run lasts %v, want %v..%v", name, seed, d, minRun, maxRun)
			}
		}
	}
}

func TestFailingScriptPrintsRedError(t *testing.T) {
	out, code := play(t, "deps", 3, nil)
	if code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	if !strings.Contains(out, fgRed+sgrBold+"✗ Error: ") || !strings.Contains(out, "--- FAIL: ") {
		t.Errorf("failing run lacks the red error or FAIL lines:\n%s", ansi.Strip(out))
	}
}

func TestAskingScriptFollowsTheAnswer(t *testing.T) {
	cases := []struct {
		answer, want, notWant string
	}{
		{"y\n", "Applied to 3 files", "Skipped"},
		{"YES\n", "Applied to 3 files", "Skipped"},
		{"n\n", "Skipped", "Applied"},
		{"\n", "Skipped", "Applied"},
		{"", "Skipped", "Applied"}, // end of input counts as no
	}
	for _, c := range cases {
		out, code := play(t, "migrate", 5, strings.NewReader(c.answer))
		plain := ansi.Strip(out)
		if code != 0 {
			t.Errorf("answer %q: exit code %d, want 0", c.answer, code)
		}
		if !strings.Contains(plain, "Apply this change to 3 files? [y/N]") {
			t.Errorf("answer %q: the question was not asked", c.answer)
		}
		// Unanswered, the question gives up soon enough for the demo to
		// keep moving where the asking agent holds the only pane (80x24),
		// and says so.
		if !strings.Contains(plain, "(no answer in 30s means no)") || askTimeout > 30*time.Second {
			t.Errorf("answer %q: the question does not say it moves on by itself within 30s (timeout %s)", c.answer, askTimeout)
		}
		if !strings.Contains(plain, c.want) || strings.Contains(plain, c.notWant) {
			t.Errorf("answer %q: want %q and not %q in:\n%s", c.answer, c.want, c.notWant, plain)
		}
		if !strings.Contains(out, bell) || !strings.Contains(out, "\x1b]9;") {
			t.Errorf("answer %q: the question did not ring the bell or notify", c.answer)
		}
	}
}

func TestAskingScriptWaitsForTheAnswer(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	var out syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- RunSim(context.Background(), SimOptions{Script: "migrate", Seed: 1, In: pr, Out: &out, Sleep: noSleep})
	}()
	waitUntil(t, func() bool { return strings.Contains(out.String(), "[y/N]") })
	select {
	case code := <-done:
		t.Fatalf("the agent ended (exit %d) before it was answered", code)
	default:
	}
	if _, err := io.WriteString(pw, "y\n"); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit code %d after answering yes, want 0", code)
	}
	if !strings.Contains(out.String(), "Applied to 3 files") {
		t.Error("the yes branch did not run")
	}
}

func TestTitledScriptSetsTitleAndRings(t *testing.T) {
	out, code := play(t, "docs", 2, nil)
	if code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if strings.Count(out, "\x1b]2;") < 3 || !strings.Contains(out, bell) {
		t.Errorf("titled run should set its title several times and ring the bell")
	}
}

func TestCancelRestoresTheTerminal(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	n := 0
	// Cancel after a few frames, as SIGTERM would.
	sleep := func(c context.Context, d time.Duration) error {
		n++
		if n == 10 {
			cancel()
		}
		return c.Err()
	}
	code := RunSim(ctx, SimOptions{Script: "pagination", Seed: 1, Out: &out, Sleep: sleep})
	if code != 130 {
		t.Errorf("exit code %d after cancellation, want 130", code)
	}
	if !strings.HasSuffix(ansi.Strip(out.String()), "interrupted\r\n") || !strings.Contains(out.String(), showCursor) {
		t.Errorf("interrupted run did not restore the cursor: %q", out.String())
	}
}

func TestUnknownScript(t *testing.T) {
	out, code := play(t, "nope", 1, nil)
	if code != 2 || !strings.Contains(out, `unknown demo script "nope"`) {
		t.Errorf("code %d, output %q", code, out)
	}
}
