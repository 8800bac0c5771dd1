package fat

import "testing"

// FATs sized for a larger volume keep the type and cluster size chosen
// for this one and count every cluster the larger size holds (within the
// type's limit), so that a growth to it needs no more FAT sectors.
func TestPlanFATSpare(t *testing.T) {
	for _, tc := range []struct {
		name   string
		p      FormatParams
		target int64
	}{
		{"FAT16 4x", FormatParams{Size: 20 << 20, Type: FAT16, AlignData: true, FATSpareTimes: 4}, 80 << 20},
		{"FAT32 to 8 GiB", FormatParams{Size: 1 << 30, AlignData: true, FATSpareFor: 8 << 30}, 8 << 30},
		{"FAT12 3x, unaligned", FormatParams{Size: 2 << 20, Type: FAT12, FATSpareTimes: 3}, 6 << 20},
		{"FAT16 capped at its limit", FormatParams{Size: 100 << 20, AlignData: true, FATSpareFor: 1 << 40}, 1 << 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain := tc.p
			plain.FATSpareFor, plain.FATSpareTimes = 0, 0
			_, l0, err := Plan(plain)
			if err != nil {
				t.Fatal(err)
			}
			_, l, err := Plan(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			if l.Type != l0.Type || l.ClusterSize != l0.ClusterSize || l.TotalSize != l0.TotalSize {
				t.Fatalf("%s with %d-byte clusters, %d bytes; want %s, %d, %d as without spare", l.Type, l.ClusterSize, l.TotalSize, l0.Type, l0.ClusterSize, l0.TotalSize)
			}
			want := min((tc.target-l.DataOffset)/l.ClusterSize, map[Type]int64{FAT12: maxClusters12, FAT16: maxClusters16, FAT32: MaxClusters32}[l.Type])
			if l.FATSize < fatBytes(l.Type, uint32(want)) || l.FATSize <= l0.FATSize {
				t.Errorf("FATs of %d bytes (%d without spare) for %d clusters, which need %d", l.FATSize, l0.FATSize, want, fatBytes(l.Type, uint32(want)))
			}
		})
	}
}
