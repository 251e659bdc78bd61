package control

import (
	"fmt"
	"os"
	"strconv"
)

// DefaultSessionName is the name of a session started without one:
// agentgrid-<pid> of the process that runs it.
func DefaultSessionName() string {
	return "agentgrid-" + strconv.Itoa(os.Getpid())
}

// MaxSessionName is the longest session name allowed, in bytes.
const MaxSessionName = 64

// CheckSessionName reports whether name may name a session. A session name
// becomes a directory under the state directory, a socket file name and a
// part of log lines, so it is one plain file name: 1 to 64 of the letters
// A-Z and a-z, the digits, '.', '_' and '-', not starting with '-' and not
// "." or "..". Every place that takes a session name from a user (the
// --session flag, agentgrid watch NAME, --socket NAME, the engine's
// Options.Session) checks it with this function before using it.
func CheckSessionName(name string) error {
	const allowed = "use 1 to 64 letters, digits, '.', '_' or '-', not starting with '-' (e.g. --session review-2)"
	switch {
	case name == "":
		return fmt.Errorf("the session name is empty; %s", allowed)
	case len(name) > MaxSessionName:
		return fmt.Errorf("the session name %s… is %d bytes long; %s", strconv.Quote(name[:16]), len(name), allowed)
	case name == "." || name == "..":
		return fmt.Errorf("the session name %q is not allowed; %s", name, allowed)
	case name[0] == '-':
		return fmt.Errorf("the session name %q starts with '-'; %s", name, allowed)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("the session name %s contains %s, which is not allowed; %s", strconv.Quote(name), strconv.QuoteRune(c), allowed)
		}
	}
	return nil
}
