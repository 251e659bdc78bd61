package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const plantedStartup = "[[startup]]\ncommand = [\"sh\", \"-c\", \"id > /tmp/x\"]\n"

// readLocal runs Read and checks that it neither failed nor found problems.
func readLocal(t *testing.T, explicit string) Loaded {
	t.Helper()
	l, err := Read(explicit)
	if err != nil || len(l.Diags) > 0 {
		t.Fatalf("Read: %v %v", err, l.Diags)
	}
	return l
}

func wantIgnored(t *testing.T, l Loaded, words ...string) {
	t.Helper()
	if len(l.Config.Startup) > 0 || len(l.Files) > 0 {
		t.Errorf("the ignored file was applied: startup %v, files %v", l.Config.Startup, l.Files)
	}
	if len(l.Ignored) != 1 {
		t.Fatalf("ignored %v, want one entry", l.Ignored)
	}
	for _, w := range append(words, LocalFile) {
		if !strings.Contains(l.Ignored[0].Msg, w) {
			t.Errorf("ignored message %q lacks %q", l.Ignored[0].Msg, w)
		}
	}
}

// A planted .agentgrid.toml is applied only once its exact content is
// trusted; a change, untrusting, or a group-writable mode ignores it again.
func TestLocalFileNeedsTrust(t *testing.T) {
	_, cwd := isolate(t)
	local := filepath.Join(cwd, LocalFile)
	writeFile(t, local, plantedStartup)

	wantIgnored(t, readLocal(t, ""), "not trusted", "agentgrid trust")

	rec, err := Trust(LocalFile)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Path != local {
		t.Errorf("trusted path %q, want %q", rec.Path, local)
	}
	l := readLocal(t, "")
	if len(l.Config.Startup) != 1 || len(l.Ignored) > 0 || len(l.Files) != 1 || l.Files[0] != LocalFile {
		t.Fatalf("trusted file not applied: %+v", l)
	}

	writeFile(t, local, plantedStartup+"# one more line\n")
	wantIgnored(t, readLocal(t, ""), "changed since trusted", "agentgrid trust")
	if _, err := Trust(local); err != nil {
		t.Fatal(err)
	}
	if l := readLocal(t, ""); len(l.Config.Startup) != 1 {
		t.Fatalf("re-trusted file not applied: %+v", l)
	}

	if err := os.Chmod(local, 0o664); err != nil {
		t.Fatal(err)
	}
	wantIgnored(t, readLocal(t, ""), "writable by group or others", "chmod go-w")
	if _, err := Trust(local); err == nil || !strings.Contains(err.Error(), "chmod go-w") {
		t.Errorf("trusting a group-writable file: %v", err)
	}
	if err := os.Chmod(local, 0o644); err != nil {
		t.Fatal(err)
	}

	files, err := TrustedFiles()
	if err != nil || len(files) != 1 || files[0].Path != local || files[0].State != "trusted" {
		t.Errorf("TrustedFiles = %+v, %v", files, err)
	}
	if was, err := Untrust(LocalFile); !was || err != nil {
		t.Fatalf("Untrust = %v, %v", was, err)
	}
	wantIgnored(t, readLocal(t, ""), "not trusted")
	if was, _ := Untrust(LocalFile); was {
		t.Error("Untrust of an untrusted file reported it trusted")
	}
}

// Trust is keyed by the file's place: the same content trusted in another
// directory does not make this one trusted; a directory reached through a
// symbolic link is the same place.
func TestTrustIsPerPath(t *testing.T) {
	_, cwd := isolate(t)
	other := filepath.Join(t.TempDir(), LocalFile)
	writeFile(t, other, plantedStartup)
	if _, err := Trust(other); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(cwd, LocalFile), plantedStartup)
	wantIgnored(t, readLocal(t, ""), "not trusted")

	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(cwd, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Trust(filepath.Join(link, LocalFile)); err != nil {
		t.Fatal(err)
	}
	if l := readLocal(t, ""); len(l.Config.Startup) != 1 {
		t.Fatalf("file trusted through a linked directory not applied: %+v", l)
	}
}

// The user's own file and --config need no trust, but every config file
// must be the user's and not writable by others: else Read fails.
func TestUnsafeUserAndExplicitFilesRefused(t *testing.T) {
	xdg, cwd := isolate(t)
	explicit := filepath.Join(cwd, "mine.toml")
	writeFile(t, explicit, plantedStartup)
	if l := readLocal(t, explicit); len(l.Config.Startup) != 1 {
		t.Fatalf("--config file not applied: %+v", l)
	}
	// --config naming the local file applies it once, as the user's choice.
	writeFile(t, filepath.Join(cwd, LocalFile), plantedStartup)
	if l := readLocal(t, LocalFile); len(l.Config.Startup) != 1 || len(l.Ignored) > 0 {
		t.Fatalf("--config .agentgrid.toml: %+v", l)
	}
	if err := os.Remove(filepath.Join(cwd, LocalFile)); err != nil {
		t.Fatal(err)
	}

	if err := os.Chmod(explicit, 0o606); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(explicit); err == nil || !strings.Contains(err.Error(), "writable by group or others") ||
		!strings.Contains(err.Error(), "chmod go-w "+explicit) {
		t.Errorf("world-writable --config file: %v", err)
	}

	user := filepath.Join(xdg, "agentgrid", "config.toml")
	writeFile(t, user, "[ui]\nfps = 30\n")
	if err := os.Chmod(user, 0o620); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(""); err == nil || !strings.Contains(err.Error(), user) {
		t.Errorf("group-writable user config: %v", err)
	}
	if err := os.Chmod(user, 0o600); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() == 0 {
		// Only root can give a file away; the check is the same for others.
		if err := os.Chown(user, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(""); err == nil || !strings.Contains(err.Error(), "another user (uid 4242)") {
			t.Errorf("user config owned by another user: %v", err)
		}
	}
}

// A FIFO planted as .agentgrid.toml is refused at once instead of
// blocking the session's start forever.
func TestLocalFIFOIsRefusedWithoutBlocking(t *testing.T) {
	_, cwd := isolate(t)
	if err := syscall.Mkfifo(filepath.Join(cwd, LocalFile), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan Loaded, 1)
	go func() { l, _ := Read(""); done <- l }()
	select {
	case l := <-done:
		wantIgnored(t, l, "not a regular file")
	case <-time.After(20 * time.Second):
		t.Fatal("Read blocked on a FIFO named .agentgrid.toml")
	}
}
