package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A project's .agentgrid.toml can start programs ([[startup]], [[hooks]],
// orchestrator.command, [kinds.*]) and choose files to write (log.file), so
// it is applied only after the user trusted that exact content. Each trust
// is a small JSON record under TrustDir(), named after the file's absolute
// path and holding the path and the SHA-256 of the content trusted; a file
// that changed needs trusting again.

// StateDir is agentgrid's state directory: $XDG_STATE_HOME/agentgrid, or
// ~/.local/state/agentgrid when XDG_STATE_HOME is unset or relative. It
// holds every session's state folder, the log file (LogFileName) and the
// trust store. It is empty when neither can be determined.
func StateDir() string { return StateDirFrom(os.Getenv) }

// StateDirFrom is StateDir for a caller handed its environment: getenv
// answers for XDG_STATE_HOME and HOME.
func StateDirFrom(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "agentgrid")
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".local", "state", "agentgrid")
	}
	return ""
}

// LogFileName is agentgrid's log file in StateDir(), used when log.file is
// empty.
const LogFileName = "agentgrid.log"

// TrustDirName is the trust store's folder in StateDir(). Sessions keep
// their state in folders named after them there, and remove old ones; the
// '@' keeps any session name (letters, digits, '.', '_', '-') from meeting
// this folder.
const TrustDirName = "@trusted"

// TrustDir is where trusted project files are recorded: StateDir()/@trusted.
func TrustDir() string {
	d := StateDir()
	if d == "" {
		return ""
	}
	return filepath.Join(d, TrustDirName)
}

// TrustRecord is one trusted file: its absolute path and the SHA-256 of
// the content the user trusted.
type TrustRecord struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// trustState is what the trust store says about a file's content.
type trustState int

const (
	untrusted trustState = iota
	trusted
	changedSinceTrusted
)

// canonicalPath is the absolute path a file is trusted under: its directory
// with symbolic links resolved, and its own name as is (a link planted as
// .agentgrid.toml is trusted for where it stands, not for its target).
func canonicalPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
}

func contentSum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// recordPath is the record file of the file at the canonical path abs.
func recordPath(abs string) string {
	s := sha256.Sum256([]byte(abs))
	return filepath.Join(TrustDir(), hex.EncodeToString(s[:16])+".json")
}

// readRecord reads the record of abs; ok is false when there is none (or
// it is not the user's own, or does not parse).
func readRecord(abs string) (TrustRecord, bool) {
	if TrustDir() == "" {
		return TrustRecord{}, false
	}
	data, err := readConfigFile(recordPath(abs))
	if err != nil {
		return TrustRecord{}, false
	}
	var rec TrustRecord
	if json.Unmarshal(data, &rec) != nil || rec.Path != abs {
		return TrustRecord{}, false
	}
	return rec, true
}

// checkTrust tells whether data, read from path, is the content the user
// trusted for that path.
func checkTrust(path string, data []byte) trustState {
	abs, err := canonicalPath(path)
	if err != nil {
		return untrusted
	}
	rec, ok := readRecord(abs)
	switch {
	case !ok:
		return untrusted
	case rec.SHA256 != contentSum(data):
		return changedSinceTrusted
	}
	return trusted
}

// Trust records the current content of the config file at path as trusted,
// so that Load applies it from now on, until it changes. The file must pass
// the same owner and permission checks as when it is loaded.
func Trust(path string) (TrustRecord, error) {
	data, err := readConfigFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return TrustRecord{}, fmt.Errorf("config file %s does not exist", path)
		}
		if _, ok := isUnsafe(err); ok {
			return TrustRecord{}, err
		}
		return TrustRecord{}, fmt.Errorf("read config file %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return TrustRecord{}, fmt.Errorf("config file %s is larger than %d KiB; agentgrid reads no config that large", path, MaxFileSize>>10)
	}
	abs, err := canonicalPath(path)
	if err != nil {
		return TrustRecord{}, fmt.Errorf("find the absolute path of %s: %w", path, err)
	}
	dir := TrustDir()
	if dir == "" {
		return TrustRecord{}, errors.New("cannot find the state directory to record trust in; set XDG_STATE_HOME or HOME")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return TrustRecord{}, fmt.Errorf("create the trust directory %s: %w", dir, err)
	}
	rec := TrustRecord{Path: abs, SHA256: contentSum(data)}
	out, _ := json.Marshal(rec)
	// Write then rename, so a session starting meanwhile never reads half a record.
	tmp, err := os.CreateTemp(dir, "trust-*.tmp")
	if err != nil {
		return TrustRecord{}, fmt.Errorf("record trust in %s: %w", dir, err)
	}
	_, werr := tmp.Write(append(out, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return TrustRecord{}, fmt.Errorf("record trust in %s: %w", dir, err)
	}
	if err := os.Rename(tmp.Name(), recordPath(abs)); err != nil {
		_ = os.Remove(tmp.Name())
		return TrustRecord{}, fmt.Errorf("record trust in %s: %w", dir, err)
	}
	return rec, nil
}

// Untrust forgets the trust of the file at path; it reports whether the
// file was trusted. The file itself need not exist any more.
func Untrust(path string) (bool, error) {
	abs, err := canonicalPath(path)
	if err != nil {
		// The directory is gone: the path as given is the best guess.
		if abs, err = filepath.Abs(path); err != nil {
			return false, err
		}
	}
	if TrustDir() == "" {
		return false, nil
	}
	if _, ok := readRecord(abs); !ok {
		return false, nil
	}
	if err := os.Remove(recordPath(abs)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("forget the trust of %s: %w", abs, err)
	}
	return true, nil
}

// TrustedFile is a trust record with what the file holds now.
type TrustedFile struct {
	TrustRecord
	// State is "trusted", "changed since trusted" or "missing".
	State string
}

// TrustedFiles lists the trust records, ordered by path, each with the
// state of its file today.
func TrustedFiles() ([]TrustedFile, error) {
	dir := TrustDir()
	if dir == "" {
		return nil, nil
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the trust directory %s: %w", dir, err)
	}
	var out []TrustedFile
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := readConfigFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		var rec TrustRecord
		if json.Unmarshal(data, &rec) != nil || rec.Path == "" {
			continue
		}
		tf := TrustedFile{TrustRecord: rec, State: "trusted"}
		switch cur, err := readConfigFile(rec.Path); {
		case errors.Is(err, fs.ErrNotExist):
			tf.State = "missing"
		case err != nil:
			tf.State = "unreadable"
		case contentSum(cur) != rec.SHA256:
			tf.State = "changed since trusted"
		}
		out = append(out, tf)
	}
	slices.SortFunc(out, func(a, b TrustedFile) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}
