package opencode

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// slimConfig is the name (without .json/.jsonc) of oh-my-opencode-slim's
// settings file in an OpenCode config folder.
const slimConfig = "oh-my-opencode-slim"

// wireSlimPanes turns on oh-my-opencode-slim's pane mode for this process
// only: the plugin reads its user settings from the first of
// $OPENCODE_CONFIG_DIR and ~/.config/opencode that holds them, so agentgrid
// writes a copy of the user's settings (never touching the file) with
// "multiplexer": {"type": "tmux"} into a folder of the session's own and
// points OPENCODE_CONFIG_DIR at it. OpenCode reads that folder as one more
// config folder, which holds nothing else. A project's
// .opencode/oh-my-opencode-slim.json still applies over it, as it would.
func wireSlimPanes(stateDir string, env []string) ([]string, error) {
	if d := lookupEnv(env, "OPENCODE_CONFIG_DIR"); d != "" {
		return nil, fmt.Errorf("omo: OPENCODE_CONFIG_DIR is already set (%s), and agentgrid would have to replace it to give oh-my-opencode-slim its tmux setting; set \"multiplexer\": {\"type\": \"auto\"} in %s instead and turn omo off",
			d, filepath.Join(d, slimConfig+".json"))
	}
	settings := map[string]any{}
	if src, data, err := userSlimSettings(env); err != nil {
		return nil, err
	} else if data != nil {
		if err := json.Unmarshal(stripJSONC(data), &settings); err != nil {
			return nil, fmt.Errorf("omo: read %s: %v; fix the file or turn omo off", src, err)
		}
	}
	mux, _ := settings["multiplexer"].(map[string]any)
	if mux == nil {
		mux = map[string]any{}
	}
	mux["type"] = "tmux"
	settings["multiplexer"] = mux
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode the oh-my-opencode-slim settings: %w", err)
	}
	if stateDir == "" {
		return nil, errors.New("no state directory to write the generated agent settings to")
	}
	// One folder for the session: OpenCode installs its plugin package
	// into every config folder (and the plugin its skills), once.
	dir := filepath.Join(stateDir, "opencode-config")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	// Written whole and renamed into place: an OpenCode starting meanwhile
	// reads the old settings or the new, never half.
	f, err := os.CreateTemp(dir, ".settings-*")
	if err != nil {
		return nil, fmt.Errorf("write the oh-my-opencode-slim settings: %w", err)
	}
	_, werr := f.Write(append(b, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), filepath.Join(dir, slimConfig+".json"))
	}
	if werr != nil {
		_ = os.Remove(f.Name())
		return nil, fmt.Errorf("write the oh-my-opencode-slim settings: %w", werr)
	}
	return append(env, "OPENCODE_CONFIG_DIR="+dir), nil
}

// userSlimSettings reads the user's own oh-my-opencode-slim settings from
// OpenCode's config folder ($XDG_CONFIG_HOME/opencode, else
// ~/.config/opencode), .jsonc before .json as the plugin does; none is no
// error.
func userSlimSettings(env []string) (string, []byte, error) {
	base := lookupEnv(env, "XDG_CONFIG_HOME")
	if base == "" {
		home := lookupEnv(env, "HOME")
		if home == "" {
			return "", nil, nil
		}
		base = filepath.Join(home, ".config")
	}
	for _, ext := range []string{".jsonc", ".json"} {
		p := filepath.Join(base, "opencode", slimConfig+ext)
		data, err := os.ReadFile(p)
		if err == nil {
			return p, data, nil
		}
		if !os.IsNotExist(err) {
			return "", nil, fmt.Errorf("omo: read %s: %w", p, err)
		}
	}
	return "", nil, nil
}

// lookupEnv finds key in the environment added for the agent, else in
// agentgrid's own, which the agent inherits.
func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return os.Getenv(key)
}

// stripJSONC turns JSON with comments (// and /* */) and trailing commas,
// as the plugin accepts, into plain JSON. Strings are kept as they are.
func stripJSONC(in []byte) []byte {
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(in) && in[j] != '"' {
				if in[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(in)-1)
			out = append(out, in[i:j+1]...)
			i = j
		case c == '/' && i+1 < len(in) && in[i+1] == '/':
			for i < len(in) && in[i] != '\n' {
				i++
			}
			if i < len(in) {
				out = append(out, '\n')
			}
		case c == '/' && i+1 < len(in) && in[i+1] == '*':
			i += 2
			for i+1 < len(in) && (in[i] != '*' || in[i+1] != '/') {
				i++
			}
			i++
			out = append(out, ' ')
		case c == ']' || c == '}':
			// Drop a comma that only whitespace separates from the close.
			k := len(out) - 1
			for k >= 0 && (out[k] == ' ' || out[k] == '\t' || out[k] == '\n' || out[k] == '\r') {
				k--
			}
			if k >= 0 && out[k] == ',' {
				out = append(out[:k], out[k+1:]...)
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}
