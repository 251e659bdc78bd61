package ui

import (
	"errors"
	"strings"
)

// splitShellWords splits a command line typed in the new-agent prompt into
// argv the way a POSIX shell would for the common cases, without running a
// shell: whitespace separates words, single quotes keep everything literally,
// double quotes keep everything except \" \\ \$ \` and a backslash-newline,
// and an unquoted backslash escapes the next character. Variables, globs and
// operators are not expanded; a user who wants them writes `sh -c '...'`.
func splitShellWords(line string) ([]string, error) {
	var (
		words              []string
		cur                strings.Builder
		inWord             bool
		inSingle, inDouble bool
	)
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case inSingle:
			if r == '\'' {
				inSingle = false
			} else {
				cur.WriteRune(r)
			}
		case inDouble:
			switch r {
			case '"':
				inDouble = false
			case '\\':
				if i+1 < len(rs) {
					switch next := rs[i+1]; next {
					case '"', '\\', '$', '`':
						cur.WriteRune(next)
						i++
					case '\n':
						i++
					default:
						cur.WriteRune(r)
					}
				} else {
					cur.WriteRune(r)
				}
			default:
				cur.WriteRune(r)
			}
		case r == '\'':
			inSingle, inWord = true, true
		case r == '"':
			inDouble, inWord = true, true
		case r == '\\':
			if i+1 >= len(rs) {
				return nil, errors.New("the command ends with a lone backslash; escape it as \\\\")
			}
			i++
			if rs[i] != '\n' {
				cur.WriteRune(rs[i])
				inWord = true
			}
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inSingle {
		return nil, errors.New("the command has an unterminated single quote")
	}
	if inDouble {
		return nil, errors.New("the command has an unterminated double quote")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
