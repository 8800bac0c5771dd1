// Package exfat reads, writes, formats and checks exFAT file systems on a
// pkg/io device, without the kernel's help. It is pkg/fat's sibling: the
// same device layer, write path, sync policies and statistics, and the
// same method names where the two formats share a meaning, so that a
// command can drive either.
//
// # Scope
//
// One file per on-disk structure, each with decode, encode and validate:
// bootsector.go and bootregion.go (the main and backup boot regions and
// the boot checksum), fat.go (the FAT, read in pages as chains need it),
// bitmap.go (the allocation bitmap), upcase.go (the up-case table, its
// compressed form and checksum), dirent.go and entryset.go (file, stream
// extension and file name entries, set checksums, name hashes, the
// volume label, GUID, bitmap and up-case entries), timestamp.go (times
// with 10 ms and UTC offset fields). Plan and Format make volumes as
// mkfs.exfat (exfatprogs 1.2) lays them out, byte for byte; PlanSD lays
// out SDXC cards as the SD specification does. Volume opens one (from the
// backup boot region when the main one is damaged) and offers an io/fs
// view (FS passes testing/fstest) and a writer side (Create, Mkdir,
// Remove, RemoveAll, Empty, Rename, SetAttr, SetLabel, Fallocate) and a
// AheadSource for copying files out. Check, Repair (with a dry run) and
// Compare are fverify's, checking what fsck.exfat checks. Resize grows or
// shrinks a volume in place (fresize; resize.go). pkg/vol puts
// this package and pkg/fat behind one interface for the commands. Errors name the
// structure, field and byte offset (*FormatError) and wrap ErrNotExFAT,
// ErrCorrupt, ErrNoSpace or fs.ErrNotExist so errors.Is works. The
// package never prints.
//
// Files are written as one contiguous run of clusters wherever the volume
// has one, marked NoFatChain so the FAT is not touched; a file that cannot
// be contiguous gets a FAT chain. Directories start contiguous and get a
// FAT chain only when they cannot grow in place. Times are written in UTC
// with a valid UTC offset of 0, so images do not depend on the time zone.
//
// Images are untrusted: every count read from disk is checked before it
// sizes a buffer or a loop (a file's or directory's size against the heap,
// a directory against exFAT's 256 MiB, the up-case table against 128 KiB),
// and chains are walked with a bound.
//
// Limits: one FAT (TexFAT volumes, with two, are read but not written);
// no vendor extension or allocation entries are written (those read are
// kept); the volume GUID entry is written only when asked for, since
// fsck.exfat before exfatprogs 1.2.2 reports it as unknown; clusters past
// a file's end (FALLOC_FL_KEEP_SIZE) cannot be expressed; 512- to
// 4096-byte sectors, clusters up to 32 MiB.
//
// # Write order and crash consistency
//
// A writable Volume changes nothing on disk until it must, and then in
// this order, with a barrier (a flush of the device's cache, unless the
// sync policy is none) between the steps (Volume.Commit, Volume.Close):
//
//  1. VolumeDirty is set in the main boot sector just before the
//     session's first write (fio.Device.BeforeFirstWrite), not when a
//     change is asked for, so that a refused change writes nothing; it
//     shares the first barrier with the data, or is flushed on its own
//     when metadata comes first.
//  2. File data and the zeroed clusters of new or grown directories go out
//     through the device's write-combining stream.
//  3. The allocation bitmap's changed sectors and the FAT chains of
//     fragmented files and directories, one batch.
//  4. Entry sets, new, updated and deleted, one batch. A new set never
//     straddles a sector boundary (the entries skipped to avoid it become
//     unused entries), so a write torn at a sector boundary leaves every
//     set whole or absent, never half written.
//  5. The old entry sets of moved files are deleted, and the clusters of
//     removed, emptied or replaced files are marked free in the bitmap, one
//     batch.
//  6. On Close, VolumeDirty is cleared and PercentInUse recorded.
//
// A power cut at any barrier therefore leaves at worst: VolumeDirty set,
// clusters marked in use that no entry names (lost clusters), a moved file
// under both its names, or (while a fragmented file was being extended) a
// FAT chain longer than its file's size; a file updated in place
// (Volume.OpenFile) holds in each sector its old or its new bytes (no
// copy on write). Check reports each and Repair
// resolves each without losing a file. Never an entry that names unwritten
// data or a cluster marked free. TestCrashStates holds snapshots taken at
// every barrier to fsck.exfat and Check.
//
// Resize keeps the same order for each round of moves (copies; their
// clusters marked and chained; the entries and the links from clusters
// that stay switched; the old clusters freed) and ends with the boot
// region, main then backup: a cut leaves the old volume or the new one,
// at worst with lost clusters, the dirty flag, or a backup boot region
// that still describes the old size (Repair copies the main one over it).
// TestResizeCrashStates replays every write of a logged resize.
package exfat
