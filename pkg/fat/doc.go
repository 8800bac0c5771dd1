// Package fat reads, writes, formats and checks FAT12, FAT16 and FAT32 file
// systems on a pkg/io device, without the kernel's help.
//
// # Scope
//
// One file per on-disk structure (bootsector.go, fsinfo.go, table.go,
// dirent.go, lfn.go, shortname.go, dostime.go), each with decode, encode
// and validate; Plan and Format make volumes as mkfs.fat 4.2 lays them out
// (and PlanSD as the SD specification does); Volume opens one and offers
// an io/fs view (fs.WalkDir works) and a writer side (Create, Mkdir,
// Remove, Empty, Rename, Fallocate, SetAttr, SetLabel); Check and Repair are
// fverify's. Errors name the structure, field and byte offset
// (*FormatError) and wrap ErrNotFAT, ErrCorrupt, ErrNoSpace or
// fs.ErrNotExist so errors.Is works. The package never prints.
//
// Images are untrusted: every count read from disk is checked before it
// sizes a buffer or a loop, chains are walked with a bound (Chain), and
// directories are limited to FAT's 65,536 entries.
//
// Limits: no exFAT, no VFAT on-disk case-preserving beyond the NT
// lower-case flags and long names, no FAT12/16 > 4 GiB, files of at most
// 4 GiB - 1 byte, 512- to 4096-byte sectors.
//
// # Scale
//
// Memory does not grow with the volume. The FAT is read in windows of 64
// KiB as entries are asked for, at most 128 kept (fatcache.go); changed
// windows are written to every FAT copy in one batch per commit, or early
// (as the current phase allows) when more would have to stay in memory.
// The free count and a per-window summary of free runs come from one
// streaming pass the first time a count or an allocation needs them
// (fatsum.go), so readers never read the whole FAT and allocation reads
// only the window where its run begins. Checkers stream whole copies with
// ScanFAT and ReadFAT; Table.Bytes still reads the whole table. Loaded
// directories are a bounded cache (dircache.go), and a writer commits on
// its own when the directories it changed grow past their budget. Chains
// are kept as extents. So on a 2 TiB FAT32 (a 256 MiB FAT) or a 16 TiB one
// of 4 KiB sectors the commands stay within 64 MiB; tests/scale_test.go
// holds them to it.
//
// Time grows with the work: adding a name costs O(1) amortized (per
// record length, a hint of where the next fitting run of free slots may
// start), and reading a file through File is linear in the bytes read
// (the run that holds an offset is found by binary search).
//
// # Write order and crash consistency
//
// A device with a volatile cache (every SD card and USB stick) may persist
// the writes issued since its last flush in any subset and order, torn at
// sector boundaries; a flush is the only barrier. A writable Volume
// therefore changes nothing on disk until it must, and then writes in
// phases (Volume.Commit), each ended by a barrier (fio.Device.Barrier):
//
//  0. The dirty bit (FAT16/32: bit 0 of the boot sector's state byte, as
//     Linux and fsck.fat keep it) is set just before the session's first
//     write (fio.Device.BeforeFirstWrite), not when a change is asked for:
//     a change refused before anything was written leaves the volume
//     byte-identical. Written before metadata, it is flushed first; before
//     data, the phase's own barrier covers it.
//  1. File data, directories made in this commit written whole (the
//     entries made in them too: nothing reaches them until phase 2), the
//     zeroed clusters an existing directory grows by, and the FAT (all
//     copies, one batch) of the chains no entry on disk names yet.
//  2. Directory entries (new, updated, deleted), and the FAT links that
//     make an existing directory longer (its new clusters, zeroed in
//     phase 1, are durable by then).
//  3. What must wait until the new entries are durable: the old entry of
//     a renamed file, the ".." entry of a directory moved elsewhere, the
//     short entry of a deleted record whose long-name slots lie in the
//     sector before it, a file's new size after its chain grew, the boot
//     sectors' label (after the root directory's label entry).
//  4. The FAT for clusters that removed, emptied or replaced files held
//     (nothing can reuse them before the entries that named them are
//     gone), the old entry of a directory moved to another directory; FSINFO.
//  5. On Close, after a barrier, the dirty bit is cleared (also when a
//     commit failed before any metadata was written, so the volume is as
//     it was); the device's Close flushes it.
//
// New records never straddle a sector boundary (unless longer than a
// sector), so no torn write splits a long name from its short entry.
//
// The --sync policy decides what a barrier is: none (no flush: the order
// of the requests holds after a process crash, not after a power cut);
// close, the default (a flush per barrier, so data, flush, metadata,
// flush, dirty bit, flush; exit 0 means durable); file (the same for each
// file a Writer closes); always (O_DSYNC writes, a flush after each
// zeroing call and at Close).
//
// A crash, SIGKILL or power cut at any point therefore leaves at worst:
// the dirty bit set (and the backup boot sector differing from the
// primary in that byte), lost clusters, a stale FSINFO free count, or a
// second FAT copy older than the first (fsck.fat and Linux use the first).
// Never an entry that points at data not written, a file longer than its
// chain, or a damaged directory. Three states are as close as FAT allows
// to an atomic change: a rename across directories (or over an existing
// name) interrupted between its phases leaves two entries with the same
// first cluster and size (an interrupted rename, the file whole under
// either name); a file ffallocate makes longer keeps its old size and
// bytes with a chain longer than it (excess clusters, trimmed like lost
// ones); flabel leaves the root directory's label entry new and the boot
// sectors' label old. A file updated in place (Volume.OpenFile) holds in
// each sector its old or its new bytes (no copy on write), and one made
// longer or shorter may keep a chain longer than its size, as ffallocate's.
//
// tests/replay_test.go proves it: it records every write and flush each
// command issues (FTOOLS_WRITE_LOG, package pkg/io/writelog), rebuilds
// the images a power cut could leave and holds fsck.fat -n, fverify and
// the files' contents to the list above. tests/crash_test.go kills each
// writer at chosen writes and does the same.
package fat
