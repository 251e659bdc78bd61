package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's install block must hold only commands that work from a
// checkout: agentgrid is not published as a module, so "go install
// MODULE@latest" cannot work, and "go install ." must put a binary that runs
// where the block says.
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
	for _, c := range cmds {
		if c != "go install ." && c != "make build" {
			t.Errorf("README's install block says %q, which this test does not know to work from a checkout", c)
		}
	}
	gobin := t.TempDir()
	install := exec.Command("go", "install", ".")
	install.Dir = ".."
	install.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install . failed: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(gobin, "agentgrid"), "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "agentgrid") {
		t.Fatalf("the installed agentgrid --version: %v: %s", err, out)
	}
}
