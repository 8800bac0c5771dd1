package vol

import (
	"context"
	"io"

	"github.com/ftools/ftools/pkg/internal/fsutil"
)

// ContextReader returns a reader of r that fails, before each Read once
// ctx is done, with an error wrapping ctx's (context.Canceled, say): the
// way to cancel a copy into a Writer (io.Copy, or Writer's ReadFrom,
// which stops at the source's first error). The copy then stops between
// two reads of r, with the file not recorded: Abort the Writer, and the
// file, or the one it was to replace, stays as it was (see Cancelling in
// the package doc).
func ContextReader(ctx context.Context, r io.Reader) io.Reader {
	return &ctxReader{ctx: ctx, r: r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := fsutil.Cancelled(c.ctx); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
