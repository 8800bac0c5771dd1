package fat

import "fmt"

// Cluster is a cluster number. Data clusters are numbered from 2; FAT
// entries 0 and 1 are reserved.
type Cluster uint32

// FirstCluster is the number of the first data cluster.
const FirstCluster Cluster = 2

// Type is the FAT width in bits.
type Type int

// The three FAT widths.
const (
	FAT12 Type = 12
	FAT16 Type = 16
	FAT32 Type = 32
)

// Cluster-count limits of the Microsoft FAT specification: a volume with
// fewer than MinClusters16 clusters is FAT12, one with fewer than
// MinClusters32 is FAT16, any other is FAT32.
const (
	MinClusters16 = 4085
	MinClusters32 = 65525
	// MaxClusters32 is the largest FAT32 cluster count: the highest cluster
	// number must stay below 0x0FFFFFF7, the bad-cluster mark.
	MaxClusters32 = 0x0FFFFFF5
)

// String returns "FAT12", "FAT16" or "FAT32" (or "FAT(n)" for other values).
func (t Type) String() string {
	switch t {
	case FAT12, FAT16, FAT32:
		return fmt.Sprintf("FAT%d", int(t))
	}
	return fmt.Sprintf("FAT(%d)", int(t))
}

// valid reports whether t is one of FAT12, FAT16 and FAT32.
func (t Type) valid() bool { return t == FAT12 || t == FAT16 || t == FAT32 }

// TypeForClusters returns the FAT type the Microsoft FAT specification
// assigns to a volume with n data clusters: n < 4085 is FAT12, n < 65525
// is FAT16, anything else FAT32.
func TypeForClusters(n uint32) Type {
	switch {
	case n < MinClusters16:
		return FAT12
	case n < MinClusters32:
		return FAT16
	}
	return FAT32
}
