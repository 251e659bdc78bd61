package vterm

import (
	"bytes"
	"testing"
)

func benchRaw(b *testing.B, in []byte, cols, rows int) {
	t := New(cols, rows, WithScrollback(10000))
	feed(t, in[:2<<20])
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		feed(t, in)
	}
}
func BenchmarkZZYesLF120(b *testing.B)   { benchRaw(b, bytes.Repeat([]byte("y\n"), 4<<20), 120, 40) }
func BenchmarkZZYesCRLF120(b *testing.B) { benchRaw(b, bytes.Repeat([]byte("y\r\n"), 3<<20), 120, 40) }
func BenchmarkZZYesCRLF80(b *testing.B)  { benchRaw(b, bytes.Repeat([]byte("y\r\n"), 3<<20), 80, 24) }
