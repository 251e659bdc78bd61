package config

import "fmt"

// Bounds on a config document's shape, checked before it is decoded. The
// TOML decoder and the merger spend time and memory for every key that
// grow with the square of its depth (a 5,000-part table header costs
// hundreds of megabytes), while no setting is more than four levels deep
// (kinds.NAME.env.VAR), so a document beyond these bounds is refused with
// one diagnostic instead.
const (
	// MaxKeyDepth is how deep a key may sit: the parts of its table header
	// (an [[array]] entry counts as one more), of its dotted name, and of
	// the inline tables and arrays around it.
	MaxKeyDepth = 8
	// MaxNesting is how deep arrays and inline tables may nest.
	MaxNesting = 8
)

// checkShape reports the first way data exceeds MaxFileSize, MaxKeyDepth
// or MaxNesting, or nil. It follows TOML's strings and comments so that
// dots and brackets inside them do not count; anything else malformed is
// left for the decoder to report.
func checkShape(file string, data []byte) *Diagnostic {
	if len(data) > MaxFileSize {
		return &Diagnostic{File: file, Msg: fmt.Sprintf("the file is larger than %d KiB; agentgrid reads no config that large", MaxFileSize>>10)}
	}
	tooDeep := func(line int) *Diagnostic {
		return &Diagnostic{File: file, Line: line, Msg: fmt.Sprintf("a key more than %d levels deep; no setting is deeper than 4", MaxKeyDepth)}
	}
	var (
		line       = 1
		open       []int // for each open array or inline table: the depth of what it holds
		tableDepth int   // depth of the current [table]
		valueDepth int   // depth of the value being read
		dots       int   // dots outside strings since the last separator
		lineStart  = true
	)
	top := func() int {
		if len(open) == 0 {
			return tableDepth
		}
		return open[len(open)-1]
	}
	n := len(data)
	for i := 0; i < n; i++ {
		c := data[i]
		switch c {
		case ' ', '\t', '\r':
			continue
		case '\n':
			line++
			dots = 0
			lineStart = len(open) == 0
			continue
		case '#':
			for i+1 < n && data[i+1] != '\n' {
				i++
			}
			continue
		case '"', '\'':
			var nl int
			i, nl = skipString(data, i)
			line += nl
		case '[':
			if lineStart {
				// A table header: [a.b] or [[a.b]].
				parts, end, nl := headerParts(data, i)
				line += nl
				if parts > MaxKeyDepth {
					return tooDeep(line)
				}
				tableDepth, dots, i = parts, 0, end
				break
			}
			open = append(open, valueDepth+1)
			valueDepth, dots = valueDepth+1, 0
		case '{':
			open = append(open, valueDepth)
			dots = 0
		case ']', '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
			valueDepth, dots = top(), 0
		case ',':
			valueDepth, dots = top(), 0
		case '=':
			valueDepth = top() + dots + 1
			dots = 0
			if valueDepth > MaxKeyDepth {
				return tooDeep(line)
			}
		case '.':
			dots++
		}
		if len(open) > MaxNesting {
			return &Diagnostic{File: file, Line: line, Msg: fmt.Sprintf("arrays or inline tables nested more than %d deep; no setting needs that", MaxNesting)}
		}
		lineStart = false
	}
	return nil
}

// headerParts reads the table header starting at data[i] ('['): the depth
// it sets (its dotted parts, one more for an [[array]] entry), the index of
// its last byte, and the line breaks inside it. It stops at the end of the
// line if the header is not closed.
func headerParts(data []byte, i int) (parts, end, lines int) {
	n := len(data)
	parts = 1
	j := i + 1
	if j < n && data[j] == '[' {
		parts++
		j++
	}
	for ; j < n; j++ {
		switch data[j] {
		case '"', '\'':
			var nl int
			j, nl = skipString(data, j)
			lines += nl
		case '.':
			parts++
		case ']':
			if j+1 < n && data[j+1] == ']' {
				j++
			}
			return parts, j, lines
		case '\n':
			return parts, j - 1, lines
		}
	}
	return parts, n - 1, lines
}

// skipString skips the string starting at data[i] (a quote) and returns
// the index of its last byte and the line breaks it spans. An unterminated
// string runs to the end of its line (or of the file, for a multi-line one).
func skipString(data []byte, i int) (end, lines int) {
	q := data[i]
	n := len(data)
	if i+2 < n && data[i+1] == q && data[i+2] == q {
		// Multi-line: up to the closing triple quote (TOML allows up to two
		// more quotes of the same kind right before it).
		for j := i + 3; j < n; j++ {
			switch {
			case data[j] == '\n':
				lines++
			case q == '"' && data[j] == '\\':
				if j+1 < n && data[j+1] == '\n' {
					lines++
				}
				j++
			case data[j] == q && j+2 < n && data[j+1] == q && data[j+2] == q:
				j += 2
				for j+1 < n && data[j+1] == q {
					j++
				}
				return j, lines
			}
		}
		return n - 1, lines
	}
	for j := i + 1; j < n; j++ {
		switch {
		case data[j] == '\n':
			return j - 1, lines
		case q == '"' && data[j] == '\\' && j+1 < n && data[j+1] != '\n':
			j++
		case data[j] == q:
			return j, lines
		}
	}
	return n - 1, lines
}
