package cp

import (
	"strings"
	"testing"
)

// exFAT's name rules: FAT's, but DEL is a name character, and the
// messages name exFAT.
func TestExFATNames(t *testing.T) {
	for _, tc := range []struct {
		in, name, refusal string
		note              bool
	}{
		{in: "Clip 0001.MP4", name: "Clip 0001.MP4"},
		{in: "del\x7fname", name: "del\x7fname"},
		{in: "a:b", name: "a:b", refusal: "which exFAT names cannot hold"},
		{in: "trail. ", name: "trail", note: true},
		{in: "..", name: "..", refusal: "which exFAT cannot store"},
		{in: strings.Repeat("é", 256), name: strings.Repeat("é", 256), refusal: "more than exFAT's 255"},
		{in: "aux.mp4", name: "aux.mp4", refusal: "DOS device name"},
	} {
		got := exfatNames.fix(tc.in)
		if got.name != tc.name || (got.note != "") != tc.note || !strings.Contains(got.refusal, tc.refusal) || (tc.refusal == "") != (got.refusal == "") {
			t.Errorf("exfatNames.fix(%q) = %+v, want name %q, note %v, refusal ~%q", tc.in, got, tc.name, tc.note, tc.refusal)
		}
	}
	if got := volumeName("del\x7fname"); got.refusal == "" {
		t.Error("FAT took DEL in a name")
	}
}
