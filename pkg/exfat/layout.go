package exfat

import "github.com/ftools/ftools/pkg/internal/bounds"

// Layout is where a volume's regions lie, in bytes from the volume's start.
type Layout struct {
	SectorSize       int64
	ClusterSize      int64
	TotalSize        int64 // VolumeLength in bytes
	FATOffset        int64 // the first FAT
	FATSize          int64 // bytes per FAT (FatLength sectors)
	NumFATs          int
	ActiveFAT        int // 0, or 1 when a TexFAT volume's second FAT is active
	HeapOffset       int64
	Clusters         uint32
	RootCluster      Cluster
	BackupBootOffset int64
}

// ClusterOffset is the byte offset of cluster c (c >= 2).
func (l *Layout) ClusterOffset(c Cluster) int64 {
	return l.HeapOffset + int64(c-FirstCluster)*l.ClusterSize
}

// MaxCluster is the highest cluster number.
func (l *Layout) MaxCluster() Cluster { return Cluster(uint64(l.Clusters) + 1) }

// ValidCluster reports whether c is a cluster of the heap.
func (l *Layout) ValidCluster(c Cluster) bool { return c >= FirstCluster && c <= l.MaxCluster() }

// FATCopyOffset is the byte offset of FAT copy i (0-based).
func (l *Layout) FATCopyOffset(i int) int64 { return l.FATOffset + int64(i)*l.FATSize }

// ActiveFATOffset is the byte offset of the FAT in use.
func (l *Layout) ActiveFATOffset() int64 { return l.FATCopyOffset(l.ActiveFAT) }

// HeapEnd is the byte offset just past the last cluster.
func (l *Layout) HeapEnd() int64 { return l.ClusterOffset(l.MaxCluster()) + l.ClusterSize }

// BitmapBytes is the length of an allocation bitmap for the volume.
func (l *Layout) BitmapBytes() int64 { return (int64(l.Clusters) + 7) / 8 }

// HeapBytes is the cluster heap's size in bytes: no file's DataLength may
// exceed it.
func (l *Layout) HeapBytes() uint64 { return uint64(l.Clusters) * uint64(l.ClusterSize) }

// lengthClusters converts a DataLength to clusters, and says whether they
// fit in the heap: the one conversion every reader of a length uses, so a
// length near 2^64 is damage, never a few clusters.
func (l *Layout) lengthClusters(n uint64) (uint64, bool) {
	return bounds.Clusters(n, l.ClusterSize, uint64(l.Clusters))
}

// fieldAt is the offset of a field at rel bytes into an entry at off, or
// -1 when the entry's offset is not known.
func fieldAt(off, rel int64) int64 {
	if off < 0 {
		return -1
	}
	return off + rel
}
