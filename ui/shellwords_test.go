package ui

import (
	"slices"
	"testing"
)

func TestSplitShellWords(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{in: "", want: nil},
		{in: "   ", want: nil},
		{in: "htop", want: []string{"htop"}},
		{in: "  ls   -la\t/tmp ", want: []string{"ls", "-la", "/tmp"}},
		{in: `sh -c 'make test && echo ok'`, want: []string{"sh", "-c", "make test && echo ok"}},
		{in: `echo "a b" c`, want: []string{"echo", "a b", "c"}},
		{in: `echo "say \"hi\"" \$HOME`, want: []string{"echo", `say "hi"`, "$HOME"}},
		{in: `echo "back\\slash" "keep \n"`, want: []string{"echo", `back\slash`, `keep \n`}},
		{in: `echo 'it'\''s'`, want: []string{"echo", "it's"}},
		{in: `a\ b c`, want: []string{"a b", "c"}},
		{in: `""`, want: []string{""}},
		{in: `x '' y`, want: []string{"x", "", "y"}},
		{in: `pre"mid"post`, want: []string{"premidpost"}},
		{in: "héllo wörld 日本", want: []string{"héllo", "wörld", "日本"}},
		{in: `'unterminated`, wantErr: true},
		{in: `"unterminated`, wantErr: true},
		{in: `trailing\`, wantErr: true},
	}
	for _, tt := range tests {
		got, err := splitShellWords(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("splitShellWords(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && !slices.Equal(got, tt.want) {
			t.Errorf("splitShellWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
