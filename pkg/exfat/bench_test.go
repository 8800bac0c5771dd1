package exfat

import (
	"testing"

	fio "github.com/ftools/ftools/pkg/io"
)

// BenchmarkWrite1GiB writes one 1 GiB file into a fresh volume through a
// Writer in 4 MiB writes (the request pattern of fcp: few large writes),
// O_DIRECT, and reports the device's write requests and their average
// size. The speed target (at least 0.95x dd oflag=direct) is checked side
// by side with dd in scripts/bench, not here.
func BenchmarkWrite1GiB(b *testing.B) {
	const size = 1 << 30
	buf := make([]byte, 4<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	b.SetBytes(size)
	var st fio.Stats
	for b.Loop() {
		b.StopTimer()
		img := formatImage(b, size+64<<20, FormatParams{})
		d, err := fio.Open(img, fio.Options{Write: true, Sync: fio.SyncClose})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		v, err := Open(d)
		if err != nil {
			b.Fatal(err)
		}
		writeChunks(b, v, "big.bin", size, buf)
		if err := v.Close(); err != nil {
			b.Fatal(err)
		}
		if err := d.Close(); err != nil {
			b.Fatal(err)
		}
		st = d.Stats()
	}
	b.ReportMetric(float64(st.WriteRequests), "writes/op")
	b.ReportMetric(float64(st.AvgWriteSize())/(1<<10), "KiB/write")
	b.ReportMetric(float64(st.Flushes), "flushes/op")
}
