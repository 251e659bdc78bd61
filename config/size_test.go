package config

import (
	"strings"
	"testing"
	"time"
)

func TestSizeText(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "64MiB": 64 << 20, "512KiB": 512 << 10, "1GiB": 1 << 30, "4096B": 4096, " 2MiB ": 2 << 20} {
		var s Size
		if err := s.UnmarshalText([]byte(in)); err != nil || s.Bytes != want {
			t.Errorf("Size(%q) = %d, %v; want %d", in, s.Bytes, err, want)
		}
	}
	for _, in := range []string{"", "64", "64MB", "64 mib", "-1MiB", "1.5GiB", "MiB", "99999999999999GiB"} {
		var s Size
		if err := s.UnmarshalText([]byte(in)); err == nil || !strings.Contains(err.Error(), `"64MiB"`) {
			t.Errorf("Size(%q) = %d, %v; want an error with an example", in, s.Bytes, err)
		}
	}
	for in, want := range map[int64]string{0: "0", 64 << 20: "64MiB", 1536 << 10: "1536KiB", 3 << 30: "3GiB", 1000: "1000B"} {
		if b, _ := (Size{in}).MarshalText(); string(b) != want {
			t.Errorf("Size{%d}.MarshalText() = %q, want %q", in, b, want)
		}
	}
}

func TestDurationDays(t *testing.T) {
	var d Duration
	if err := d.UnmarshalText([]byte("7d")); err != nil || d.Duration != 168*time.Hour {
		t.Errorf(`Duration("7d") = %v, %v; want 168h`, d.Duration, err)
	}
	for _, bad := range []string{"-1d", "1.5d", "d", "7days"} {
		if err := d.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("Duration(%q) parsed, want an error", bad)
		}
	}
}

// TestLogAndStateKeys: agents.log_max and agents.keep_state decode from a
// file, and bad values are reported on their line.
func TestLogAndStateKeys(t *testing.T) {
	isolate(t)
	cfg, diags := Decode(Default(), "a.toml", []byte("[agents]\nlog_max = \"1MiB\"\nkeep_state = \"2d\"\n"))
	if len(diags) > 0 || cfg.Agents.LogMax.Bytes != 1<<20 || cfg.Agents.KeepState.Duration != 48*time.Hour {
		t.Fatalf("decoded %+v, diags %v", cfg.Agents, diags)
	}
	if ds := Validate(cfg); len(ds) > 0 {
		t.Fatalf("valid values reported: %v", ds)
	}
	_, diags = Decode(Default(), "b.toml", []byte("[agents]\nlog_max = \"64MB\"\nkeep_state = \"a week\"\n"))
	got := make([]string, len(diags))
	for i, d := range diags {
		got[i] = d.String()
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{`b.toml:2: agents.log_max: "64MB" is not a size`, `b.toml:3: agents.keep_state: "a week" is not a duration`} {
		if !strings.Contains(all, want) {
			t.Errorf("diagnostics %q lack %q", all, want)
		}
	}
	cfg = Default()
	cfg.Agents.LogMax = Size{1024}
	cfg.Agents.KeepState = Duration{-time.Hour}
	all = ""
	for _, d := range Validate(cfg) {
		all += d.String() + "\n"
	}
	for _, want := range []string{"agents.log_max = 1024 bytes: must be 0 (no limit) or at least 64KiB", "agents.keep_state = -1h0m0s: must be between 0s and 87600h"} {
		if !strings.Contains(all, want) {
			t.Errorf("Validate: %q lacks %q", all, want)
		}
	}
}
