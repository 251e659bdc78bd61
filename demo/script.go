package demo

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// frame is one step of a simulated agent's run: wait, then write out. A frame
// with a question stops the run until the user answers on stdin.
type frame struct {
	wait time.Duration
	out  string
	ask  *question
}

// question is a prompt that waits for a line on stdin and continues with the
// frames for the answer given.
type question struct {
	timeout time.Duration
	// yes and no are the rest of the run for each answer; exitYes and exitNo
	// are the exit codes after them.
	yes, no         []frame
	exitYes, exitNo int
}

// Script is a fully planned simulated run: every byte and every pause is fixed
// by the script name and the seed, so a demo replays identically.
type Script struct {
	Name   string
	Title  string
	frames []frame
	exit   int
}

// Duration is the total planned pause time of the run up to its end (or up to
// its question, for a script that asks one).
func (s Script) Duration() time.Duration {
	var d time.Duration
	for _, f := range s.frames {
		d += f.wait
		if f.ask != nil {
			break
		}
	}
	return d
}

// Sleeper pauses for d or until ctx ends; tests pass one that returns at once.
type Sleeper func(ctx context.Context, d time.Duration) error

// RealSleep pauses in real time: the demo is live.
func RealSleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// PlayOptions tunes a playback.
type PlayOptions struct {
	// Speed divides every pause (2 = twice as fast); <= 0 means 1.
	Speed float64
	// Sleep pauses between frames; nil means RealSleep.
	Sleep Sleeper
}

// Play writes the script to w, pausing between frames, and reads answers to
// questions from in. It returns the exit code the simulated agent ends with;
// when ctx ends first it returns ctx's error after restoring the cursor.
func (s Script) Play(ctx context.Context, w io.Writer, in io.Reader, o PlayOptions) (int, error) {
	if o.Speed <= 0 {
		o.Speed = 1
	}
	if o.Sleep == nil {
		o.Sleep = RealSleep
	}
	answers := newLineReader(in)
	frames, exit := s.frames, s.exit
	for len(frames) > 0 {
		f := frames[0]
		frames = frames[1:]
		if err := o.Sleep(ctx, time.Duration(float64(f.wait)/o.Speed)); err != nil {
			return restore(w, err)
		}
		if f.out != "" {
			if _, err := io.WriteString(w, f.out); err != nil {
				return 1, fmt.Errorf("write agent output: %w", err)
			}
		}
		if f.ask == nil {
			continue
		}
		yes, err := answers.ask(ctx, f.ask.timeout)
		if err != nil {
			return restore(w, err)
		}
		if yes {
			frames, exit = f.ask.yes, f.ask.exitYes
		} else {
			frames, exit = f.ask.no, f.ask.exitNo
		}
	}
	return exit, nil
}

// restore leaves the terminal tidy when a run is cut short by a signal.
func restore(w io.Writer, err error) (int, error) {
	_, _ = io.WriteString(w, sgrReset+showCursor+"\r\n"+paint(fgGray, "interrupted")+"\r\n")
	return 130, err
}

// lineReader turns stdin into a channel of lines so a question can wait for an
// answer, a timeout or cancellation at the same time.
type lineReader struct {
	lines chan string
	start func()
}

func newLineReader(in io.Reader) *lineReader {
	lr := &lineReader{lines: make(chan string)}
	started := false
	lr.start = func() {
		if started || in == nil {
			return
		}
		started = true
		// One reader goroutine for the process's life: stdin cannot be
		// un-read, and the process exits when the script ends.
		go func() {
			sc := bufio.NewScanner(in)
			for sc.Scan() {
				lr.lines <- sc.Text()
			}
			close(lr.lines)
		}()
	}
	return lr
}

// ask waits for one line; "y" or "yes" (any case) means yes, anything else,
// end of input or the timeout means no.
func (lr *lineReader) ask(ctx context.Context, timeout time.Duration) (bool, error) {
	lr.start()
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-expired:
		return false, nil
	case line, ok := <-lr.lines:
		if !ok {
			return false, nil
		}
		a := strings.ToLower(strings.TrimSpace(line))
		return a == "y" || a == "yes", nil
	}
}

// builder plans a script frame by frame from a seeded generator.
type builder struct {
	rng    *rand.Rand
	frames []frame
}

// between returns a seeded duration in [lo, hi).
func (b *builder) between(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(b.rng.Int64N(int64(hi-lo)))
}

// emit appends output after a pause.
func (b *builder) emit(wait time.Duration, out string) {
	b.frames = append(b.frames, frame{wait: wait, out: out})
}

// lines prints several lines quickly, as a tool's output arrives.
func (b *builder) lines(ls ...string) {
	for _, l := range ls {
		b.emit(b.between(15*time.Millisecond, 60*time.Millisecond), l+"\n")
	}
}

// blank prints an empty line.
func (b *builder) blank() { b.emit(0, "\n") }

// spinner shows a two-line activity block for about d, redrawing it in place
// with carriage return, cursor-up and erase-line, then removes it.
func (b *builder) spinner(label string, d time.Duration, details ...string) {
	frames := spinnerFrames()
	const tick = 100 * time.Millisecond
	n := max(int(d/tick), 1)
	detail := func(i int) string {
		if len(details) == 0 {
			return fmt.Sprintf("tokens ↑ %d ↓ %d", 800+i*37, 120+i*11)
		}
		return details[i*len(details)/n]
	}
	draw := func(i int) string {
		secs := float64(i) * tick.Seconds()
		head := paint(fgOrange, frames[i%len(frames)]) + " " + paint(sgrBold, label) + paint(fgGray, fmt.Sprintf(" (%.1fs)", secs))
		return head + "\n" + eraseLine + paint(fgGray, "  ↳ "+detail(i))
	}
	b.emit(0, hideCursor+draw(0))
	for i := 1; i < n; i++ {
		b.emit(tick, cursorUp+"\r"+eraseLine+draw(i))
	}
	// Remove the block: erase the detail line, go up, erase the head line.
	b.emit(tick, "\r"+eraseLine+cursorUp+"\r"+eraseLine+showCursor)
}

// progress draws a bar redrawn in place with \r for about d.
func (b *builder) progress(label string, total int, d time.Duration) {
	const width = 20
	steps := max(int(d/(120*time.Millisecond)), 2)
	draw := func(done int) string {
		frac := float64(done) / float64(total)
		return "\r" + paint(fgGray, "  "+label+" ") + bar(frac, width) +
			fmt.Sprintf(" %3d%% %d/%d", int(frac*100), done, total) + eraseToEnd
	}
	b.emit(0, hideCursor+draw(0))
	for i := 1; i <= steps; i++ {
		done := total * i / steps
		// Uneven steps look like real work.
		b.emit(b.between(d/time.Duration(steps*2), d*3/time.Duration(steps*2)), draw(done))
	}
	b.emit(0, "\n"+showCursor)
}

// tool prints a tool-call line such as "● Read(internal/api/handler.go)".
func (b *builder) tool(name, arg string) {
	b.emit(b.between(200*time.Millisecond, 700*time.Millisecond),
		paint(fgGreen, "●")+" "+paint(sgrBold, name)+paint(fgGray, "(")+arg+paint(fgGray, ")")+"\n")
}

// result prints the indented result of the last tool call.
func (b *builder) result(first string, more ...string) {
	b.lines(paint(fgGray, "  └ ") + first)
	for _, m := range more {
		b.lines("    " + m)
	}
}

// say prints the agent's own prose.
func (b *builder) say(s string) {
	b.emit(b.between(300*time.Millisecond, 900*time.Millisecond), paint(fgViolet, "✻")+" "+s+"\n")
}

// fit scales every pause so that the run up to its end (or first question)
// lasts between lo and hi: a live demo needs each agent visible for a while
// but not forever.
func (b *builder) fit(lo, hi time.Duration) {
	var total time.Duration
	for _, f := range b.frames {
		total += f.wait
	}
	if total == 0 {
		return
	}
	target := total
	if target < lo {
		target = lo
	}
	if target > hi {
		target = hi
	}
	if target == total {
		return
	}
	scale := float64(target) / float64(total)
	for i := range b.frames {
		b.frames[i].wait = time.Duration(float64(b.frames[i].wait) * scale)
	}
}

// take returns the planned frames and resets the builder for a continuation.
func (b *builder) take() []frame {
	f := b.frames
	b.frames = nil
	return f
}
