package hooks

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// MaxPayload is the largest hook payload Adapt reads.
const MaxPayload = 1 << 20

// Caps on the text an adapter puts in an agentstate.Signal.
const (
	maxWhy    = 160
	maxStatus = 120
)

var adapters = map[string]func(payload []byte) (agentstate.Signal, error){
	"claude":   adaptClaude,
	"codex":    adaptCodex,
	"gemini":   adaptGemini,
	"opencode": adaptOpenCode,
}

// CLIs lists the agent CLIs Adapt understands.
func CLIs() []string {
	names := make([]string, 0, len(adapters))
	for n := range adapters {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Adapt turns one hook payload of the named CLI into an agentstate.Signal. An event the
// adapter does not know yields an agentstate.Signal with only Event set (nothing to do),
// not an error; malformed JSON and unknown CLIs are errors.
func Adapt(cli string, payload []byte) (agentstate.Signal, error) {
	fn, ok := adapters[cli]
	if !ok {
		return agentstate.Signal{}, fmt.Errorf("unknown agent CLI %q; known: %s", cli, strings.Join(CLIs(), ", "))
	}
	if len(payload) > MaxPayload {
		return agentstate.Signal{}, fmt.Errorf("%s hook payload is %d bytes, more than the %d allowed", cli, len(payload), MaxPayload)
	}
	s, err := fn(payload)
	if err != nil {
		return agentstate.Signal{}, fmt.Errorf("read the %s hook payload: %w", cli, err)
	}
	s.Why = SanitizeText(s.Why, maxWhy)
	s.Status = SanitizeText(s.Status, maxStatus)
	return s, nil
}

// decodeObject decodes a JSON object, insisting that it is one.
func decodeObject(payload []byte, v any) error {
	trimmed := strings.TrimSpace(string(payload))
	if trimmed == "" {
		return fmt.Errorf("the payload is empty")
	}
	if trimmed[0] != '{' {
		return fmt.Errorf("the payload is not a JSON object")
	}
	return json.Unmarshal([]byte(trimmed), v)
}

// str returns m[key] when it is a string.
func str(m map[string]any, key string) string {
	if m == nil {
		return ""
	}
	s, _ := m[key].(string)
	return s
}

// firstStr returns the first non-empty string among keys.
func firstStr(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := str(m, k); s != "" {
			return s
		}
	}
	return ""
}

// firstLine returns the first non-blank line of s, marking that more followed.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

// relPath shortens p to be relative to cwd when it lies inside it.
func relPath(p, cwd string) string {
	if p == "" || cwd == "" || !filepath.IsAbs(p) {
		return p
	}
	if r, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// toolStatus is "Tool: detail", or just the tool when there is no detail.
func toolStatus(tool, detail string) string {
	detail = firstLine(detail)
	if detail == "" {
		return tool
	}
	return tool + ": " + detail
}

// summary is the first line of an assistant message, for the status line.
func summary(msg string) string {
	return firstLine(msg)
}
