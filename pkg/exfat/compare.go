package exfat

import "github.com/ftools/ftools/pkg/internal/fsutil"

// KindCompare is the kind of Compare's problems: a file in the volume
// differs from its host original.
const KindCompare = "compare"

// Compare compares the host file or tree at hostPath with the file or
// tree at volPath in v ("/A/B", "::/A/B" or "A/B") byte for byte, and
// returns each difference as a Problem of kind "compare" (see pkg/fat's
// Compare: the same checks, with names matched as exFAT matches them, and
// its page cache rule).
func Compare(v *Volume, hostPath, volPath string, cache bool) ([]Problem, error) {
	diffs, err := fsutil.Compare(v, v.FoldName, hostPath, volPath, cache)
	var out []Problem
	for _, d := range diffs {
		out = append(out, Problem{Kind: KindCompare, Path: d.Path, Offset: -1, Message: d.Message})
	}
	return out, err
}
