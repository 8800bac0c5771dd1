package fsutil

import "fmt"

// The limits both codecs' checks take when their options leave them zero.
const (
	// CheckMaxDepth is deeper than any path Windows or Linux can name on
	// FAT (260 characters allow at most 130 levels).
	CheckMaxDepth = 256
	// CheckMaxProblems keeps a wrecked volume's report readable.
	CheckMaxProblems = 10000
)

// CheckStart begins a check on either codec: it gives a zero depth or
// problem limit its default (CheckMaxDepth, CheckMaxProblems) and returns
// how each step of the check is announced as it starts: one sentence to
// progress (fverify -v), if it is set.
func CheckStart(maxDepth, maxProblems *int, progress func(step string)) (step func(format string, args ...any)) {
	if *maxDepth <= 0 {
		*maxDepth = CheckMaxDepth
	}
	if *maxProblems <= 0 {
		*maxProblems = CheckMaxProblems
	}
	return func(format string, args ...any) {
		if progress != nil {
			progress(fmt.Sprintf(format, args...))
		}
	}
}
