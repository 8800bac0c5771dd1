package exfat

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	fio "github.com/ftools/ftools/pkg/io"

	"github.com/ftools/ftools/pkg/internal/voltest"
)

// The writer pads each file's last cluster from one shared block of zeros
// (as FAT's does): writing many small files onto big clusters allocates
// far less than a cluster per file.
func TestSlackFromSharedZeros(t *testing.T) {
	const cs, files = 128 << 10, 200
	dev := fio.NewMemDevice(64<<20, 512)
	if _, _, err := Format(dev, FormatParams{ClusterSize: cs}, testTime); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	v.Clock = func() time.Time { return testTime }
	write := func(i int) {
		w, err := v.Create(fmt.Sprintf("f%d", i), 10, testTime)
		voltest.Put(t, w, err, []byte("ten bytes."))
	}
	for i := range 50 { // the first files set up the volume's buffers
		write(-1 - i)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 1; i <= files; i++ {
		write(i)
	}
	runtime.ReadMemStats(&after)
	// A cluster per file without the shared block (131,680 bytes); about
	// 20,000 with it, the data stream's buffers spread over the files.
	if per := (after.TotalAlloc - before.TotalAlloc) / files; per > cs/2 {
		t.Errorf("%d bytes allocated per 10-byte file on %d-byte clusters: the slack is padded from a new buffer per file", per, cs)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
}
