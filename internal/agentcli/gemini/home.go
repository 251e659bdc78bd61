package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Gemini CLI reads one per-process settings file an ordinary user can
// supply: none. GEMINI_CLI_SYSTEM_SETTINGS_PATH is honoured only for a file
// owned by root in folders only root can write, and workspace settings live
// in the user's project. What it does honour is GEMINI_CLI_HOME: the folder
// whose .gemini it reads as the user's. So agentgrid builds a home per agent
// under its state folder, whose .gemini holds the user's settings with
// agentgrid's hooks and MCP server added, and a link to every other entry of
// the user's ~/.gemini (credentials, extensions, history, trusted folders),
// so that Gemini sees and updates the user's own files.

// geminiHome builds the agent's Gemini home under stateDir and returns it.
// realHome is the home Gemini would use without agentgrid; add is merged
// into the user's settings.
func geminiHome(stateDir, id, realHome string, add map[string]any) (string, error) {
	home := filepath.Join(stateDir, id+"-gemini-home")
	dir := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create the Gemini home %s: %w", dir, err)
	}
	realDir := filepath.Join(realHome, ".gemini")
	settings, err := readSettings(filepath.Join(realDir, "settings.json"))
	if err != nil {
		return "", err
	}
	mergeSettings(settings, add)
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode the Gemini settings: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), append(b, '\n'), 0o600); err != nil {
		return "", fmt.Errorf("write the Gemini settings: %w", err)
	}
	entries, err := os.ReadDir(realDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", realDir, err)
	}
	for _, e := range entries {
		if e.Name() == "settings.json" {
			continue
		}
		if err := link(filepath.Join(realDir, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return "", err
		}
	}
	// What Gemini reads from the home itself, beside .gemini.
	for _, name := range []string{".env", ".agents"} {
		if _, err := os.Lstat(filepath.Join(realHome, name)); err == nil {
			if err := link(filepath.Join(realHome, name), filepath.Join(home, name)); err != nil {
				return "", err
			}
		}
	}
	return home, nil
}

// link makes at a symbolic link to target, replacing an older link.
func link(target, at string) error {
	if fi, err := os.Lstat(at); err == nil {
		if fi.Mode()&fs.ModeSymlink == 0 {
			return nil // a file Gemini made here: leave it
		}
		if old, _ := os.Readlink(at); old == target {
			return nil
		}
		_ = os.Remove(at)
	}
	if err := os.Symlink(target, at); err != nil {
		return fmt.Errorf("link %s in the Gemini home: %w", target, err)
	}
	return nil
}

// readSettings reads a Gemini settings file (JSON with comments); a missing
// file is empty settings.
func readSettings(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read your Gemini settings to add agentgrid's hooks: %w", err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(stripComments(b), &m); err != nil {
		return nil, fmt.Errorf("read your Gemini settings %s to add agentgrid's hooks: %v; fix the file (Gemini CLI cannot read it either)", path, err)
	}
	return m, nil
}

// mergeSettings adds agentgrid's hooks (after the user's, per event) and
// MCP server to the user's settings.
func mergeSettings(dst, add map[string]any) {
	for key, v := range add {
		switch key {
		case "hooks", "mcpServers":
			into, _ := dst[key].(map[string]any)
			if into == nil {
				into = map[string]any{}
			}
			for name, val := range toMap(v) {
				if key == "hooks" {
					have, _ := into[name].([]any)
					into[name] = append(have, toSlice(val)...)
				} else {
					into[name] = val
				}
			}
			dst[key] = into
		default:
			dst[key] = v
		}
	}
}

// toMap and toSlice turn typed values into their JSON shapes.
func toMap(v any) map[string]any {
	var m map[string]any
	b, _ := json.Marshal(v)
	_ = json.Unmarshal(b, &m)
	return m
}

func toSlice(v any) []any {
	var s []any
	b, _ := json.Marshal(v)
	_ = json.Unmarshal(b, &s)
	return s
}

// stripComments blanks // and /* */ comments outside strings, as Gemini
// CLI allows in its settings files.
func stripComments(b []byte) []byte {
	out := make([]byte, 0, len(b))
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inStr:
			out = append(out, c)
			if c == '\\' && i+1 < len(b) {
				i++
				out = append(out, b[i])
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			end := strings.Index(string(b[i+2:]), "*/")
			if end < 0 {
				return out
			}
			i += end + 3
			out = append(out, ' ')
		default:
			out = append(out, c)
		}
	}
	return out
}

// realHome is the home Gemini CLI would use for this process: its
// GEMINI_CLI_HOME when set (in env, else agentgrid's own), else the user's.
func realHome(env []string) (string, error) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "GEMINI_CLI_HOME="); ok && v != "" {
			return v, nil
		}
	}
	if v := os.Getenv("GEMINI_CLI_HOME"); v != "" {
		return v, nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find your home folder for Gemini's settings: %w", err)
	}
	return h, nil
}
