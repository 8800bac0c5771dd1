package exfat

import (
	"sync"
	"testing"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// damagedCorpus is the corpus of damaged and hostile exFAT images the
// end-to-end tests run every command over (see its README.md).
const damagedCorpus = "../../tests/testdata/damaged-exfat"

var (
	corpusOnce sync.Once
	corpusImgs [][]byte
)

// corpusImages returns the gunzipped images of the damaged corpus up to
// 4 MiB (all of them), sorted by name; none when the corpus is missing (a
// trimmed checkout). Callers must not modify them.
func corpusImages(tb testing.TB) [][]byte {
	tb.Helper()
	corpusOnce.Do(func() { corpusImgs = voltest.LoadCorpus(tb, damagedCorpus, 4<<20) })
	return corpusImgs
}

// FuzzCorpus starts from each image of the damaged corpus (chosen by the
// first input) and edits it further (FuzzVolume's edits), then does with
// the volume what the commands do: none of it may panic, hang or allocate
// without bound.
func FuzzCorpus(f *testing.F) {
	imgs := corpusImages(f)
	if len(imgs) == 0 {
		f.Fatalf("no images in %s", damagedCorpus)
	}
	for i := range imgs {
		f.Add(uint8(i), []byte{})
	}
	f.Fuzz(func(t *testing.T, which uint8, edits []byte) {
		if len(edits) > 4096 {
			return
		}
		img := imgs[int(which)%len(imgs)]
		if len(img) < 512 {
			return
		}
		exerciseVolume(t, applyEdits(img, edits))
	})
}
