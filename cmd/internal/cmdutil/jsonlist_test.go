package cmdutil

import (
	"bytes"
	"strings"
	"testing"
)

// A JSONList prints, member by member and then through Write, the bytes
// PrintJSON prints for the whole object with the list as its first field:
// whether the object given to Write has the field empty or leaves it out,
// and when nothing was added.
func TestJSONListAsPrintJSON(t *testing.T) {
	type entry struct {
		Name string `json:"name"`
		Size int    `json:"size"`
	}
	type whole struct {
		Entries []entry `json:"entries"`
		Files   int     `json:"files"`
		Outcome
	}
	type without struct {
		Entries []entry `json:"entries,omitempty"`
		Files   int     `json:"files"`
		Outcome
	}
	type omitted struct {
		Device string `json:"device"`
		Files  int    `json:"files"`
		Outcome
	}
	many := func(n int) []entry {
		var es []entry
		for i := range n {
			es = append(es, entry{strings.Repeat("n", i%50), i})
		}
		return es
	}
	for _, tc := range []struct {
		name    string
		members []entry
		rest    any // what Write is given
	}{
		{"field empty", []entry{{"a", 1}, {"b <&>", 2}}, &whole{Files: 2}},
		{"field left out", []entry{{"a", 1}}, &omitted{Device: "d", Files: 1}},
		{"one member, field empty", []entry{{"x", 0}}, &whole{Files: 1}},
		{"many members, written in chunks", many(3000), &whole{Files: 3000}},
		{"no member", nil, &whole{}},
		{"no member, field left out", nil, &without{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got bytes.Buffer
			l := NewJSONList(&got, "entries")
			for _, m := range tc.members {
				l.Add(m)
			}
			if err := PrintJSON(l, tc.rest); err != nil || l.Err() != nil {
				t.Fatal(err, l.Err())
			}
			var want bytes.Buffer
			switch r := tc.rest.(type) {
			case *whole:
				w := *r
				w.Entries = tc.members
				PrintJSON(&want, &w)
			case *without:
				PrintJSON(&want, r)
			case *omitted:
				PrintJSON(&want, &struct {
					Entries []entry `json:"entries"`
					omitted
				}{tc.members, *r})
			}
			if got.String() != want.String() || l.Len() != len(tc.members) {
				t.Errorf("got (%d members)\n%s\nwant\n%s", l.Len(), got.String(), want.String())
			}
		})
	}
}
