package config

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestCheckShape(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("a.", n-1) + "a" }
	cases := []struct {
		name string
		doc  string
		line int    // 0: accepted
		want string // part of the message
	}{
		{"example", ExampleTOML(), 0, ""},
		{"deepest settings", "[kinds.x.env]\nA = \"b\"\n[[startup]]\nenv.A = \"b\"\nenv = {A = \"b\"}\nkinds.y.env.B = \"c\"\n", 0, ""},
		{"dots and brackets in strings and comments", "# a.b.c.d.e.f.g.h.i [[[[[[[[[[\n" +
			"\"a.b.c.d.e.f.g.h.i\" = 'x.y.z.[[[[[[[[[[{{{{{{{{{{'\n" +
			"k = \"\"\"\n[a.b.c.d.e.f.g.h.i]\n\"\"\"\n" +
			"m = '''\n{{{{{{{{{{{{{\n'''\n" +
			"e = \"\\\"[[[[[[[[[[\"\n", 0, ""},
		{"floats and dates", "a = 1.5\nb = [1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5]\nc = 1979-05-27T07:32:00.999Z\n", 0, ""},
		{"8 levels", deep(8) + " = 1\n", 0, ""},
		{"9 levels in a key", "x = 1\n" + deep(9) + " = 1\n", 2, "levels deep"},
		{"9 levels in a header", "\n\n[" + deep(9) + "]\n", 3, "levels deep"},
		{"array entry counts one level", "[[" + deep(8) + "]]\n", 1, "levels deep"},
		{"header plus key", "[" + deep(5) + "]\n" + deep(4) + " = 1\n", 2, "levels deep"},
		{"inline tables add levels", "a = {b = {c = {d = {e = {f = {g = {h = {i = 1}}}}}}}}\n", 1, "levels deep"},
		{"5000-part header", "[" + deep(5000) + "]\n", 1, "levels deep"},
		{"5000-part key", deep(5000) + " = 1\n", 1, "levels deep"},
		{"nested arrays", "a = " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n", 1, "nested more than"},
		{"nested arrays on later lines", "a = [\n[\n[[[[[[[[]]]]]]]]\n]\n]\n", 3, "nested more than"},
		{"too large", strings.Repeat("# padding\n", MaxFileSize/10+1), 0, "larger than 256 KiB"},
	}
	for _, tc := range cases {
		d := checkShape("f.toml", []byte(tc.doc))
		if tc.want == "" {
			if d != nil {
				t.Errorf("%s: refused: %v", tc.name, d)
			}
			continue
		}
		if d == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if d.Line != tc.line || d.File != "f.toml" || !strings.Contains(d.Msg, tc.want) {
			t.Errorf("%s: got %v, want line %d with %q", tc.name, d, tc.line, tc.want)
		}
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// A pathological header is refused before the TOML decoder sees it: the
// decoder alone allocates ~300 MB for this 10 KB document.
func TestDeepHeaderIsCheap(t *testing.T) {
	for _, doc := range []string{
		"[" + strings.Repeat("a.", 4999) + "a]\nx = 1\n",
		strings.Repeat("a.", 4999) + "a = 1\n",
		"[kinds." + strings.Repeat("a.", 4999) + "a]\nx = 1\n",
		"x = " + strings.Repeat("{a=", 5000) + "1" + strings.Repeat("}", 5000) + "\n",
	} {
		var diags []Diagnostic
		n := allocated(func() { _, diags = Decode(Default(), "deep.toml", []byte(doc)) })
		if len(diags) != 1 || diags[0].Line != 1 {
			t.Errorf("%.20s...: diagnostics %v, want one on line 1", doc, diags)
		}
		if n > 8<<20 {
			t.Errorf("%.20s...: decoding allocated %d MB", doc, n>>20)
		}
	}
}

// Load reads no more than the cap of a large file and reports it.
func TestLoadRefusesLargeFile(t *testing.T) {
	_, cwd := isolate(t)
	big := filepath.Join(cwd, "big.toml")
	writeFile(t, big, "[ui]\nfps = 30\n"+strings.Repeat("# padding padding padding\n", MaxFileSize/20))
	_, diags, err := Load(big)
	if err != nil || len(diags) != 1 || !strings.Contains(diags[0].String(), big+": the file is larger than 256 KiB") {
		t.Fatalf("Load of a %d-byte file: %v %v", fileSize(t, big), diags, err)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func BenchmarkDecodeDeepHeader(b *testing.B) {
	doc := []byte("[" + strings.Repeat("a.", 4999) + "a]\nx = 1\n")
	b.ReportAllocs()
	for b.Loop() {
		Decode(Default(), "deep.toml", doc)
	}
}
