package hooks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/oneline"
)

// Limits of one handler run.
const (
	DefaultHookTimeout = 5 * time.Second
	maxHookOutput      = 64 << 10 // stdout bytes read for set_status answers
	maxHookStderr      = 4 << 10  // stderr bytes kept for the failure message
	hookWaitDelay      = time.Second
)

// HookFailure describes a handler run that failed: it could not start, exited
// non-zero, or was killed at its timeout.
type HookFailure struct {
	Argv     []string
	Event    string
	Agent    string
	Err      error
	TimedOut bool
	Stderr   string // the last bytes of its stderr, sanitised
}

// Message is the failure as one line for the UI.
func (f HookFailure) Message() string {
	name := "hook"
	if len(f.Argv) > 0 {
		name = "hook " + f.Argv[0]
	}
	msg := fmt.Sprintf("%s on %s: %v", name, f.Event, f.Err)
	if f.Stderr != "" {
		msg += ": " + f.Stderr
	}
	return oneline.Sanitize(msg, 200)
}

// SetStatusRequest is a handler's answer {"set_status": {...}}.
type SetStatusRequest struct {
	Key   string `json:"key"`
	Text  string `json:"text"`
	Agent string `json:"agent,omitempty"`
	// TTL is a Go duration string such as "10s"; empty means no expiry.
	TTL string `json:"ttl,omitempty"`
}

// RunnerOptions configure a Runner.
type RunnerOptions struct {
	Hooks   []config.Hook
	Session string
	Socket  string
	// Env is the handlers' base environment (nil means os.Environ()); the
	// AGENTGRID_* variables are added to it.
	Env []string
	// SetStatus applies a handler's set_status answer; source is "hook:<argv0>".
	SetStatus func(key, text, agent, source string, ttl time.Duration)
	// OnFailure is told about every failed run, so the UI can show it briefly.
	OnFailure func(HookFailure)
	Logger    *slog.Logger
	// QueueCap bounds each handler's backlog (default DefaultQueueCap); past
	// it the oldest pending events are dropped and counted.
	QueueCap int
}

// Runner runs the configured [[hooks]] handlers for engine events. Each
// handler has its own FIFO queue and goroutine, so handlers run one event at
// a time in publish order, and a slow or hanging handler delays only itself.
// Handle never blocks the caller. Each run gets the event as JSON on stdin,
// AGENTGRID_EVENT / AGENTGRID_AGENT_ID / AGENTGRID_SOCKET / AGENTGRID_SESSION
// in its environment, its own process group, and a timeout (the hook's
// timeout, default 5s) after which the whole group is killed.
type Runner struct {
	opts     RunnerOptions
	handlers []*handler
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

type handler struct {
	r       *Runner
	hook    config.Hook
	all     bool
	on      map[string]bool
	mu      sync.Mutex
	queue   []Event
	closing bool
	dropped uint64
	wake    chan struct{}
}

// NewRunner starts one worker per configured handler. Handlers with an empty
// `run` are skipped (config validation reports them). An `on` list that is
// empty or contains "*" matches every event.
func NewRunner(o RunnerOptions) *Runner {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.QueueCap <= 0 {
		o.QueueCap = DefaultQueueCap
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Runner{opts: o, ctx: ctx, cancel: cancel}
	for _, hk := range o.Hooks {
		if len(hk.Run) == 0 {
			continue
		}
		h := &handler{r: r, hook: hk, on: map[string]bool{}, wake: make(chan struct{}, 1)}
		h.all = len(hk.On) == 0
		for _, t := range hk.On {
			if t == "*" {
				h.all = true
			}
			h.on[t] = true
		}
		r.handlers = append(r.handlers, h)
		r.wg.Add(1)
		go h.work()
	}
	return r
}

// Attach feeds every event published on bus to the runner until the bus is
// closed or the returned function is called.
func (r *Runner) Attach(bus *Bus) (detach func()) {
	ch, cancel := bus.Subscribe(64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range ch {
			r.Handle(ev)
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// Handle queues ev for every handler subscribed to its type; it never blocks.
func (r *Runner) Handle(ev Event) {
	for _, h := range r.handlers {
		if h.all || h.on[ev.Type] {
			h.push(ev)
		}
	}
}

// Close lets the handlers finish what is queued (so session_end still runs)
// until ctx is done, then kills whatever still runs and returns.
func (r *Runner) Close(ctx context.Context) {
	for _, h := range r.handlers {
		h.mu.Lock()
		h.closing = true
		h.mu.Unlock()
		h.poke()
	}
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		r.cancel()
		<-done
	}
	r.cancel()
}

func (h *handler) push(ev Event) {
	h.mu.Lock()
	if h.closing {
		h.mu.Unlock()
		return
	}
	if len(h.queue) >= h.r.opts.QueueCap {
		h.queue[0] = Event{}
		h.queue = h.queue[1:]
		h.dropped++
		if h.dropped == 1 || h.dropped%1000 == 0 {
			h.r.opts.Logger.Warn("hook handler is too slow; dropped its oldest pending events", "run", h.hook.Run, "dropped", h.dropped)
		}
	}
	h.queue = append(h.queue, ev)
	h.mu.Unlock()
	h.poke()
}

func (h *handler) poke() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

func (h *handler) work() {
	defer h.r.wg.Done()
	for {
		h.mu.Lock()
		var ev Event
		have := len(h.queue) > 0
		if have {
			ev = h.queue[0]
			h.queue[0] = Event{}
			h.queue = h.queue[1:]
		}
		closing := h.closing
		h.mu.Unlock()
		if have {
			if h.r.ctx.Err() != nil {
				return
			}
			h.run(ev)
			continue
		}
		if closing {
			return
		}
		select {
		case <-h.wake:
		case <-h.r.ctx.Done():
			return
		}
	}
}

// run executes the handler once for ev and applies its answers.
func (h *handler) run(ev Event) {
	o := h.r.opts
	timeout := h.hook.Timeout.Duration
	if timeout <= 0 {
		timeout = DefaultHookTimeout
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		h.fail(ev, fmt.Errorf("encode the event: %w", err), false, "")
		return
	}
	ctx, cancel := context.WithTimeout(h.r.ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.hook.Run[0], h.hook.Run[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// Kill the whole group: a shell wrapper's children must not outlive it.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	// Stop waiting for output pipes held open by orphaned grandchildren.
	cmd.WaitDelay = hookWaitDelay
	agentID := ""
	if ev.Agent != nil {
		agentID = ev.Agent.ID
	}
	cmd.Env = append(append([]string(nil), o.Env...),
		"AGENTGRID_EVENT="+ev.Type,
		"AGENTGRID_AGENT_ID="+agentID,
		"AGENTGRID_SOCKET="+o.Socket,
		"AGENTGRID_SESSION="+o.Session,
	)
	cmd.Stdin = bytes.NewReader(append(payload, '\n'))
	stdout := &cappedBuffer{max: maxHookOutput}
	stderr := &cappedBuffer{max: maxHookStderr, keepTail: true}
	cmd.Stdout, cmd.Stderr = stdout, stderr

	start := time.Now()
	err = cmd.Run()
	timedOut := ctx.Err() == context.DeadlineExceeded
	// Answers count even from a handler that then failed: it may have
	// printed them before it hung.
	h.apply(stdout.Bytes(), ev)
	switch {
	case timedOut:
		h.fail(ev, fmt.Errorf("killed after its %s timeout", timeout), true, stderr.String())
	case h.r.ctx.Err() != nil:
		// The session is closing; not the handler's fault.
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("exited with %v", ee.ProcessState)
		}
		h.fail(ev, err, false, stderr.String())
	default:
		o.Logger.Debug("hook ran", "run", h.hook.Run, "event", ev.Type, "agent", agentID, "took", time.Since(start))
	}
}

// apply reads JSON lines {"set_status": {...}}; other lines are ignored.
func (h *handler) apply(out []byte, ev Event) {
	if h.r.opts.SetStatus == nil || len(out) == 0 {
		return
	}
	source := "hook:" + baseName(h.hook.Run[0])
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 4096), maxHookOutput)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var ans struct {
			SetStatus *SetStatusRequest `json:"set_status"`
		}
		if err := json.Unmarshal(line, &ans); err != nil || ans.SetStatus == nil {
			h.r.opts.Logger.Debug("hook printed a line that is not an answer", "run", h.hook.Run, "event", ev.Type)
			continue
		}
		req := ans.SetStatus
		var ttl time.Duration
		if req.TTL != "" {
			d, err := time.ParseDuration(req.TTL)
			if err != nil || d < 0 {
				h.r.opts.Logger.Warn("hook answered set_status with a bad ttl; ignoring the ttl", "run", h.hook.Run, "ttl", req.TTL)
			} else {
				ttl = d
			}
		}
		h.r.opts.SetStatus(req.Key, req.Text, req.Agent, source, ttl)
	}
}

func (h *handler) fail(ev Event, err error, timedOut bool, stderr string) {
	f := HookFailure{Argv: h.hook.Run, Event: ev.Type, Err: err, TimedOut: timedOut, Stderr: oneline.Sanitize(stderr, 160)}
	if ev.Agent != nil {
		f.Agent = ev.Agent.ID
	}
	h.r.opts.Logger.Warn("hook failed", "run", h.hook.Run, "event", ev.Type, "agent", f.Agent, "err", err, "timed_out", timedOut, "stderr", f.Stderr)
	if h.r.opts.OnFailure != nil {
		h.r.opts.OnFailure(f)
	}
}

// cappedBuffer keeps at most max bytes: the first ones, or the last ones with keepTail.
type cappedBuffer struct {
	buf      []byte
	max      int
	keepTail bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if b.keepTail {
		b.buf = append(b.buf, p...)
		if over := len(b.buf) - b.max; over > 0 {
			b.buf = append(b.buf[:0], b.buf[over:]...)
		}
		return n, nil
	}
	if room := b.max - len(b.buf); room > 0 {
		if len(p) > room {
			p = p[:room]
		}
		b.buf = append(b.buf, p...)
	}
	return n, nil
}

func (b *cappedBuffer) Bytes() []byte  { return b.buf }
func (b *cappedBuffer) String() string { return strings.TrimSpace(string(b.buf)) }

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
