package live

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// pin is one pinned CLI from the versions file.
type pin struct{ Package, Version string }

// readVersions parses the versions file: "package version" a line, # comments.
func readVersions(path string) ([]pin, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var pins []pin
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, nil, fmt.Errorf("%s:%d: want \"package version\", got %q", path, n, line)
		}
		pins = append(pins, pin{f[0], f[1]})
	}
	return pins, data, sc.Err()
}

// cacheRoot is where the CLIs are installed: $AGENTGRID_LIVE_CACHE, else
// the user's cache folder.
func cacheRoot() (string, error) {
	if d := os.Getenv("AGENTGRID_LIVE_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "agentgrid-live"), nil
}

// install makes sure the pinned CLIs are installed under the cache folder
// and returns the folder holding their commands. A folder per content of the
// versions file is reused once complete. skip is set (and err nil) when npm
// is missing or the registry cannot be reached.
func install(versionsFile string) (bin string, skip string, err error) {
	pins, data, err := readVersions(versionsFile)
	if err != nil {
		return "", "", fmt.Errorf("read the pinned versions: %w", err)
	}
	root, err := cacheRoot()
	if err != nil {
		return "", "", fmt.Errorf("find a cache folder: %w", err)
	}
	sum := sha256.Sum256(data)
	prefix := filepath.Join(root, "npm-"+hex.EncodeToString(sum[:6]))
	bin = filepath.Join(prefix, "node_modules", ".bin")
	stamp := filepath.Join(prefix, "installed")
	if b, err := os.ReadFile(stamp); err == nil && bytes.Equal(b, data) {
		return bin, "", nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", "npm is not installed; the live suite installs the agent CLIs with it", nil
	}
	if err := os.MkdirAll(prefix, 0o700); err != nil {
		return "", "", err
	}
	args := []string{"install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save", "--loglevel", "error"}
	for _, p := range pins {
		args = append(args, p.Package+"@"+p.Version)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// One cheap question first, so that an unreachable registry skips
	// quickly instead of failing after npm's retries.
	view := exec.CommandContext(ctx, npm, "view", pins[0].Package+"@"+pins[0].Version, "version", "--fetch-retries", "0", "--fetch-timeout", "30000")
	if out, err := view.CombinedOutput(); err != nil {
		return "", fmt.Sprintf("the npm registry cannot be reached (npm view: %v: %s); skipping the live suite", err, firstLines(out)), nil
	}
	cmd := exec.CommandContext(ctx, npm, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if err := os.WriteFile(stamp, data, 0o600); err != nil {
		return "", "", err
	}
	return bin, "", nil
}

// firstLines is npm's complaint on one line: its lines joined, the
// "npm error" prefixes dropped, cut at 300 bytes.
func firstLines(b []byte) string {
	var parts []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "npm error")); l != "" {
			parts = append(parts, l)
		}
	}
	s := strings.Join(parts, "; ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
