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
// Remove, Rename, Fallocate, SetAttr, SetLabel); Check and Repair are
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
// # Write order and crash consistency
//
// A writable Volume changes nothing on disk until it must, and then in
// this order, each step complete before the next starts (Volume.Commit):
//
//  1. The dirty bit (FAT16/32: bit 0 of the boot sector's state byte, as
//     Linux and fsck.fat keep it) is set before the first change.
//  2. File data and the contents of new directory clusters go out through
//     a write-combining stream of large aligned writes, into clusters that
//     only the in-memory FAT marks as used.
//  3. The changed ranges of the FAT go to every FAT copy, in one batch.
//  4. Directory entries (new, updated and deleted) go out in one batch.
//  5. Clusters that removed or replaced files held are marked free only
//     now, and the FATs are written again: nothing can reuse them before
//     the entries that named them are gone.
//  6. FSINFO's free count and next free hint are written.
//  7. On Close, the dirty bit is cleared (also when a commit failed before
//     any metadata was written, so the volume is as it was).
//
// A crash (or SIGKILL) at any point therefore leaves at worst: the dirty
// bit set (and the backup boot sector differing from the primary in that
// byte), clusters allocated that no entry names (lost clusters), a stale
// FSINFO free count, or a second FAT copy older than the first (fsck.fat
// and Linux use the first). Never an entry that points at data not
// written, a file longer than its chain, clusters two files share, or a
// damaged directory. tests/crash_test.go kills writers at many points and
// holds fsck.fat -n to exactly that list.
package fat
