package control

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
)

// The framing of the protocol: one JSON-RPC message per line. The MCP
// server's stdio transport frames its messages the same way.

// ErrorLine is the encoded error reply to the request with id (nil when the
// request's id is unknown), without its line ending.
func ErrorLine(id json.RawMessage, e *RPCError) []byte {
	return encodeResponse(errorResponse(id, e))
}

// ValidID reports whether id is a JSON-RPC request id: a string, a number
// or null.
func ValidID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	default:
		return isNull(id)
	}
}

// ErrLineTooLong reports a line longer than a LineReader's limit.
var ErrLineTooLong = errors.New("line too long")

// LineReader reads newline-terminated lines without ever holding more than
// max bytes of one line in memory.
type LineReader struct {
	r   *bufio.Reader
	max int
	// partial is set when Next gave up on a line too long before reading
	// its end; skip then discards the rest.
	partial bool
}

// NewLineReader reads lines of at most max bytes from r.
func NewLineReader(r io.Reader, max int) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next line without its line ending. A final line without
// a newline is returned before io.EOF.
func (l *LineReader) Next() ([]byte, error) {
	var line []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		n := len(line) + len(chunk)
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			n--
		}
		if n > l.max {
			l.partial = err != nil
			return nil, ErrLineTooLong
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return trimEOL(line), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return trimEOL(line), nil
		default:
			return nil, err
		}
	}
}

// Skip discards the rest of a line that Next found too long, so that
// reading can go on with the line after it.
func (l *LineReader) Skip() error {
	for l.partial {
		_, err := l.r.ReadSlice('\n')
		switch {
		case err == nil:
			l.partial = false
		case !errors.Is(err, bufio.ErrBufferFull):
			return err
		}
	}
	return nil
}

func trimEOL(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
	}
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b
}
