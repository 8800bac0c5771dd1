package vol

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"testing"
	"testing/fstest"
)

// cancelOnOpen cancels its context when the file named at is opened the
// nth time (CopyFS stats each file twice, through Open, before it opens
// it to copy it).
type cancelOnOpen struct {
	fs.FS
	at     string
	n      *int
	cancel context.CancelFunc
}

func (c cancelOnOpen) Open(name string) (fs.File, error) {
	if name == c.at {
		if *c.n--; *c.n == 0 {
			c.cancel()
		}
	}
	return c.FS.Open(name)
}

// CopyFSContext stops when its context is cancelled: up front it changes
// nothing; part way it drops the file it was writing and keeps those
// before, and the volume checks clean.
func TestCopyFSContextCancelled(t *testing.T) {
	src := fstest.MapFS{
		"a.txt":     {Data: bytes.Repeat([]byte("a"), 5000), ModTime: stamp},
		"b.txt":     {Data: bytes.Repeat([]byte("b"), 5000), ModTime: stamp},
		"c/big.bin": {Data: bytes.Repeat([]byte("c"), 300000), ModTime: stamp},
		"c/d.txt":   {Data: []byte("d"), ModTime: stamp},
	}
	for kind, v := range volumes(t) {
		t.Run(kind, func(t *testing.T) {
			free := v.FreeClusters()
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if err := CopyFSContext(ctx, v, "/", src); !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled up front: %v", err)
			}
			if es, _ := v.ReadDir("."); len(es) != 0 || v.FreeClusters() != free {
				t.Fatalf("cancelled up front, the volume changed: %d entries, %d free of %d", len(es), v.FreeClusters(), free)
			}
			ctx, cancel = context.WithCancel(context.Background())
			defer cancel()
			opens := 3 // while it copies the file's data
			err := CopyFSContext(ctx, v, "/", cancelOnOpen{src, "c/big.bin", &opens, cancel})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled at c/big.bin: %v", err)
			}
			for name, want := range map[string]bool{"a.txt": true, "b.txt": true, "c": true, "c/big.bin": false, "c/d.txt": false} {
				if _, err := v.Stat(name); (err == nil) != want {
					t.Errorf("%s after the cancel: %v, want present %v", name, err, want)
				}
			}
			dev := v.Device()
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			checkClean(t, dev, "check")
		})
	}
}
