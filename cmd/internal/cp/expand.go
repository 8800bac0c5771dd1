package cp

import (
	"strings"

	"github.com/ftools/ftools/cmd/internal/cmdutil"
)

// expand turns an image source into the paths it names, with the
// wildcard rules every ftools verb shares (cmdutil.Glob). A source named
// literally with a trailing "/." shows as such: its contents are copied.
func expand(op cmdutil.Operand, s volSide) ([]end, []cmdutil.Problem, error) {
	ms, skipped, err := cmdutil.Glob(s.vol, op)
	var out []end
	for _, m := range ms {
		sh := m.Show
		if m.Literal && op.Contents {
			sh = strings.TrimSuffix(sh, "/") + "/."
		}
		out = append(out, end{s, m.Path, sh})
	}
	return out, skipped, err
}
