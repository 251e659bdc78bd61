package agentcli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// DecodeObject decodes a JSON object, insisting that it is one.
func DecodeObject(payload []byte, v any) error {
	trimmed := strings.TrimSpace(string(payload))
	if trimmed == "" {
		return fmt.Errorf("the payload is empty")
	}
	if trimmed[0] != '{' {
		return fmt.Errorf("the payload is not a JSON object")
	}
	return json.Unmarshal([]byte(trimmed), v)
}

// Str returns m[key] when it is a string.
func Str(m map[string]any, key string) string {
	if m == nil {
		return ""
	}
	s, _ := m[key].(string)
	return s
}

// FirstStr returns the first non-empty string among keys.
func FirstStr(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := Str(m, k); s != "" {
			return s
		}
	}
	return ""
}

// FirstLine returns the first non-blank line of s, marking that more followed.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

// RelPath shortens p to be relative to cwd when it lies inside it.
func RelPath(p, cwd string) string {
	if p == "" || cwd == "" || !filepath.IsAbs(p) {
		return p
	}
	if r, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// ToolStatus is "Tool: detail", or just the tool when there is no detail.
func ToolStatus(tool, detail string) string {
	detail = FirstLine(detail)
	if detail == "" {
		return tool
	}
	return tool + ": " + detail
}

// Summary is the first line of an assistant message, for the status line.
func Summary(msg string) string {
	return FirstLine(msg)
}

// SplitMCPTool splits an MCP tool name "mcp__server__tool".
func SplitMCPTool(tool string) (server, name string, ok bool) {
	rest, found := strings.CutPrefix(tool, "mcp__")
	if !found {
		return "", "", false
	}
	server, name, ok = strings.Cut(rest, "__")
	return server, name, ok
}
