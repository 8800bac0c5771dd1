package cmdutil

import (
	"bytes"
	"encoding/json"
	"io"
)

// JSONList prints the first list of a command's --json object member by
// member as the command finds them, not all of them at the end, so that
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
}

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
	lead := ",\n    "
	if l.n == 0 {
		lead = "{\n  " + quoteField(l.field) + ": [\n    "
	}
	l.n++
	if _, err := io.WriteString(l.out, lead); err != nil {
		l.err = err
		return
	}
	if _, err := l.out.Write(b); err != nil {
		l.err = err
	}
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
	if _, err := io.WriteString(l.out, "\n  ],"); err != nil {
		return 0, err
	}
	if _, err := l.out.Write(rest); err != nil {
		return 0, err
	}
	return len(p), nil
}

// quoteField is a field's name as JSON prints it.
func quoteField(name string) string {
	b, _ := json.Marshal(name)
	return string(b)
}
