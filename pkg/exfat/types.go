package exfat

import "github.com/ftools/ftools/pkg/internal/fsattr"

// Cluster is a cluster number. The cluster heap's clusters are numbered
// from 2; FAT entries 0 and 1 are reserved.
type Cluster uint32

// FirstCluster is the number of the first cluster of the heap.
const FirstCluster Cluster = 2

// FAT entry values (exFAT specification 4.1).
const (
	fatFree  = 0x00000000
	fatBad   = 0xFFFFFFF7
	fatMedia = 0xFFFFFFF8 // entry 0: the media type F8 with every other bit set
	fatEOC   = 0xFFFFFFFF // end of a cluster chain
)

// MaxClusterCount is the largest cluster count the exFAT specification
// allows: 2^32 - 11, so that the highest cluster number stays below the
// bad-cluster mark.
const MaxClusterCount = 0xFFFFFFF5

// Extent is a run of consecutive clusters.
type Extent struct {
	Start Cluster
	Len   uint32
}

// End is the cluster after the extent.
func (e Extent) End() Cluster { return e.Start + Cluster(e.Len) }

// extentsClusters is the number of clusters in exts.
func extentsClusters(exts []Extent) int64 {
	var n int64
	for _, e := range exts {
		n += int64(e.Len)
	}
	return n
}

// appendExtent adds e to exts, merging it with the last run when they touch.
func appendExtent(exts []Extent, e Extent) []Extent {
	if k := len(exts); k > 0 && exts[k-1].End() == e.Start {
		exts[k-1].Len += e.Len
		return exts
	}
	return append(exts, e)
}

// Attr is the FileAttributes field of a file directory entry: the bits
// FAT and exFAT share, in FAT's places (its String lists them as letters
// in the order R H S D A).
type Attr = fsattr.Attr

// File attribute bits (exFAT specification 7.4.4): FAT's, without the
// volume-label bit.
const (
	AttrReadOnly  = fsattr.ReadOnly
	AttrHidden    = fsattr.Hidden
	AttrSystem    = fsattr.System
	AttrDirectory = fsattr.Directory
	AttrArchive   = fsattr.Archive
)

// AttrChangeable holds the attribute bits SetAttr may set or clear: the
// directory bit says what an entry is and never changes.
const AttrChangeable = fsattr.Changeable
