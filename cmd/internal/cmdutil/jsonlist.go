package cmdutil

import (
	"bytes"
	"encoding/json"
	"io"
)

// JSONList prints the first list of a command's --json object as the
// command finds its members (a few KiB at a time), not all at the end, so that
// a listing of a million paths (fls -R, fverify -l) holds none: the list
// comes first, then the rest of the object, in the bytes PrintJSON prints
// (the list's members indented as there). The command adds each member
// (Add) and hands the JSONList to Finish as standard output (Write): it
// closes the list and prints the rest of PrintJSON's object after it,
// whose own field of that name, if any, must be empty ("field": [], as
// PrintJSON prints a list with nothing in it, or left out by omitempty).
// When nothing was added the object is printed as it is.
type JSONList struct {
	out   io.Writer
	field string
	n     int
	err   error
	// buf holds the members printed and not yet written: they go out
	// jsonListChunk bytes at a time (one write each, not two per member)
	// and before the rest of the object.
	buf []byte
}

// jsonListChunk is how much of the list a JSONList writes at once.
const jsonListChunk = 32 << 10

// NewJSONList prints the list named field of the object on out.
func NewJSONList(out io.Writer, field string) *JSONList {
	return &JSONList{out: out, field: field}
}

// Add prints one member of the list.
func (l *JSONList) Add(v any) {
	if l.err != nil {
		return
	}
	b, err := json.MarshalIndent(v, "    ", "  ")
	if err != nil {
		l.err = err
		return
	}
	if l.n == 0 {
		l.buf = append(l.buf, "{\n  "+quoteField(l.field)+": [\n    "...)
	} else {
		l.buf = append(l.buf, ",\n    "...)
	}
	l.n++
	l.buf = append(l.buf, b...)
	if len(l.buf) >= jsonListChunk {
		l.flush()
	}
}

// flush writes the members held.
func (l *JSONList) flush() error {
	if len(l.buf) > 0 && l.err == nil {
		_, l.err = l.out.Write(l.buf)
	}
	l.buf = l.buf[:0]
	return l.err
}

// Len is how many members were printed.
func (l *JSONList) Len() int { return l.n }

// Err is the first error Add met (a member that cannot be marshalled,
// or standard output's).
func (l *JSONList) Err() error { return l.err }

// Write prints p, the whole object as PrintJSON prints it: after the
// members added, the rest of it; p alone when none was.
func (l *JSONList) Write(p []byte) (int, error) {
	if l.n == 0 || len(p) == 0 || p[0] != '{' {
		return l.out.Write(p)
	}
	rest := p[1:]
	if empty := []byte("\n  " + quoteField(l.field) + ": [],"); bytes.HasPrefix(rest, empty) {
		rest = rest[len(empty):]
	}
	if err := l.flush(); err != nil {
		return 0, err
	}
	if _, err := l.out.Write(append([]byte("\n  ],"), rest...)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// quoteField is a field's name as JSON prints it.
func quoteField(name string) string {
	b, _ := json.Marshal(name)
	return string(b)
}
