package e2e

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The README's install block must hold only commands that work from a
// checkout: agentgrid is not published as a module, so "go install
// MODULE@latest" cannot work, and "go install ." must put a binary that runs
// where the block says. Both ways build a static binary: without the
// dynamic loader every agentgrid process starts sooner.
func TestReadmeInstallCommandsWork(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)## Install\n.*?```sh\n(.*?)```").FindSubmatch(readme)
	if block == nil {
		t.Fatal("README.md has no sh block under ## Install")
	}
	var cmds []string
	for _, line := range strings.Split(string(block[1]), "\n") {
		if cmd, _, _ := strings.Cut(line, "#"); strings.TrimSpace(cmd) != "" {
			cmds = append(cmds, strings.Join(strings.Fields(cmd), " "))
		}
	}
	const install = "CGO_ENABLED=0 go install ."
	for _, c := range cmds {
		if c != install && c != "make build" {
			t.Errorf("README's install block says %q, which this test does not know to work from a checkout and build static", c)
		}
	}
	if !slices.Contains(cmds, install) {
		t.Errorf("README's install block lacks %q", install)
	}
	if out, err := exec.Command("make", "-n", "-C", "..", "build").CombinedOutput(); err == nil && !strings.Contains(string(out), "CGO_ENABLED=0 ") {
		t.Errorf("make build does not build a static binary:\n%s", out)
	}
	gobin := t.TempDir()
	cmd := exec.Command("go", "install", ".")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s failed: %v\n%s", install, err, out)
	}
	bin := filepath.Join(gobin, "agentgrid")
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "agentgrid") {
		t.Fatalf("the installed agentgrid --version: %v: %s", err, out)
	}
	if runtime.GOOS == "linux" {
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s built a binary that needs the dynamic loader", install)
			}
		}
	}
}
