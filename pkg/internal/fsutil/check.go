package fsutil

import (
	"context"
	"fmt"
)

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
// progress (fverify -v), if it is set. Each step is also where the check
// stops once ctx is done: step returns Cancelled's error then (without
// announcing the step), nil otherwise.
func CheckStart(ctx context.Context, maxDepth, maxProblems *int, progress func(step string)) (step func(format string, args ...any) error) {
	if *maxDepth <= 0 {
		*maxDepth = CheckMaxDepth
	}
	if *maxProblems <= 0 {
		*maxProblems = CheckMaxProblems
	}
	return func(format string, args ...any) error {
		if err := Cancelled(ctx); err != nil {
			return err
		}
		if progress != nil {
			progress(fmt.Sprintf(format, args...))
		}
		return nil
	}
}

// Cancelled is the error a long operation (a check, a repair, a trim, a
// format) stops with at one of its cancellation points once ctx is done:
// ctx.Err() wrapped, so that errors.Is finds context.Canceled or
// context.DeadlineExceeded. A nil ctx is never done.
func Cancelled(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("stopped: %w", err)
	}
	return nil
}
