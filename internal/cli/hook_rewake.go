package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentcli/registry"
	"github.com/agentgrid/agentgrid/internal/control"
)

// RewakeFlag makes `agentgrid hook CLI` the rewake waiter: run in the
// background at the end of each turn (Claude Code's asyncRewake Stop hook),
// it waits for the session to say the agent should be woken with notices
// about the agents it started, prints them on stderr and exits 2 (Claude
// Code then wakes the model with them); otherwise it exits 0 and prints
// nothing.
const RewakeFlag = "--rewake"

// rewakeExitWake is the exit status that wakes the model.
const rewakeExitWake = 2

// rewakeMargin is how long before the CLI's own timeout of the hook the
// waiter gives up by itself, so it ends with 0 rather than being killed.
const rewakeMargin = 30 * time.Second

// runRewake does all of `agentgrid hook CLI --rewake` and returns its exit
// status: rewakeExitWake after printing the notices to stderr, else 0.
// Problems are logged, never printed: anything on stderr with status 2
// would reach the model.
func runRewake(cli string, stdin io.Reader, stderr io.Writer, getenv func(string) string, start time.Time, wait time.Duration) int {
	if _, ok := registry.Adapter(cli); !ok {
		hookLog(getenv, "agentgrid hook %s %s: unknown agent CLI; expected one of %s", cli, RewakeFlag, strings.Join(registry.Adapters(), ", "))
		return 0
	}
	client, id := hookConnect(getenv, "agentgrid hook "+cli+" "+RewakeFlag)
	if client == nil {
		return 0
	}
	defer client.Close()
	// The Stop payload says nothing the wait needs; it is read so that the
	// CLI's write does not fail.
	_, _ = readBounded(stdin, registry.MaxPayload, start.Add(hookBudget(getenv, hookReadBudget)))
	ctx, cancel := context.WithTimeout(context.Background(), wait+hookBudget(getenv, hookSendBudget))
	defer cancel()
	res, err := client.Rewake(ctx, control.RewakeParams{ID: id, TimeoutMS: wait.Milliseconds(), Printed: readPrinted(getenv)})
	if err != nil {
		hookLog(getenv, "agentgrid hook %s %s for %s: wait for the agents it started: %v", cli, RewakeFlag, id, err)
		return 0
	}
	if !res.Wake || res.Message == "" {
		return 0
	}
	if _, err := fmt.Fprintln(stderr, res.Message); err != nil {
		return 0 // not printed: the notices go again once the hold ends
	}
	ackPrinted(client, getenv, cli, id, res.Notices)
	return rewakeExitWake
}

// rewakeWait is how long the waiter waits: the CLI's timeout of the hook
// less a margin.
func rewakeWait() time.Duration {
	return registry.RewakeTimeout - rewakeMargin
}

// ackPrinted records that an answer carrying id's notices up to seq was
// printed, in the agent's file beside the session first (the next hook
// repeats it, should this acknowledgement be lost), then to the session.
func ackPrinted(client *control.Client, getenv func(string) string, cli, id string, seq int64) {
	writePrinted(getenv, seq)
	actx, acancel := context.WithTimeout(context.Background(), hookBudget(getenv, hookSendBudget))
	defer acancel()
	if err := client.Ack(actx, id, seq); err != nil {
		hookLog(getenv, "agentgrid hook %s for %s: acknowledge the notices: %v", cli, id, err)
	}
}

// printedPath is the file where the agent's hooks record the Seq of the
// last notice they printed: in the session's state folder, named after the
// agent and a digest of its secret, so that an agent of a later session
// with the same name and id never reads it. Empty when there is no such
// folder.
func printedPath(getenv func(string) string) string {
	base, session, id, token := config.StateDirFrom(getenv), getenv("AGENTGRID_SESSION"), getenv("AGENTGRID_AGENT_ID"), getenv(control.EnvToken)
	if base == "" || control.CheckSessionName(session) != nil || id == "" || token == "" || strings.ContainsAny(id, `/\`) {
		return ""
	}
	dir := filepath.Join(base, session)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "" // the session keeps no folder here: the acknowledgement alone
	}
	sum := sha256.Sum256([]byte(token))
	return filepath.Join(dir, id+"-"+hex.EncodeToString(sum[:6])+".printed")
}

// readPrinted returns the Seq the agent's hooks last recorded as printed,
// 0 when none.
func readPrinted(getenv func(string) string) int64 {
	path := printedPath(getenv)
	if path == "" {
		return 0
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// writePrinted records seq as printed, if it is past what is recorded. The
// file is replaced whole (a rename), so a reader never sees half of it.
func writePrinted(getenv func(string) string, seq int64) {
	path := printedPath(getenv)
	if path == "" || seq <= readPrinted(getenv) {
		return
	}
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if err := os.WriteFile(tmp, []byte(strconv.FormatInt(seq, 10)+"\n"), 0o600); err != nil {
		hookLog(getenv, "agentgrid hook: record the notices printed: %v", err)
		return
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		hookLog(getenv, "agentgrid hook: record the notices printed: %v", err)
	}
}
