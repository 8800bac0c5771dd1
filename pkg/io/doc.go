// Package io is the block I/O layer of ftools: it opens FAT image files and
// block devices, and moves bytes between them and memory.
//
// Importers alias it fio (fio "github.com/ftools/ftools/pkg/io") because its name hides the
// standard library's io.
//
// A Device is a window onto a file or block device: the whole of it, a byte
// range starting at an offset (IMAGE@@OFFSET), or one partition of an MBR or
// GPT table (read with go-diskfs). Offsets given to a Device are relative to
// the start of that window, and nothing outside it can be read or written.
//
// I/O uses O_DIRECT where the file system or device allows it. Callers may
// pass any offset, length and buffer: the Device does the alignment work
// itself, reading only the partial edge blocks of a write (read-modify-write)
// and bouncing unaligned buffers through a pool of aligned ones. Where direct
// I/O is refused (EINVAL) or pointless (tmpfs keeps data in the page cache
// either way) it falls back to buffered I/O and says why in Stats.Fallback.
//
// A Device may also lie over storage the caller brings (source.go):
// NewReaderDevice (an io.ReaderAt, read-only), NewReadWriterDevice (an
// io.ReaderAt and io.WriterAt), NewFileDevice (an *os.File) and
// NewBytesDevice (an image in a []byte). Their I/O is buffered, they take
// no lock, and closing them leaves the caller's storage open.
//
// A Batch collects writes, then sorts and merges them and submits large
// aligned writes of at most IOSize bytes. Stats counts every request that
// reached the kernel.
//
// The sync policy decides when fdatasync is issued. A flush is the only
// barrier a device with a volatile cache respects, so a writer ends each
// step that later ones depend on with Device.Barrier: a flush under
// SyncClose and SyncFile; nothing under SyncNone (request order, enough
// for a process crash only) or SyncAlways (O_DSYNC writes; zeroing calls,
// which O_DSYNC does not cover, flush themselves). Close flushes under
// every policy but SyncNone, FileDone under SyncFile. The zero
// SyncPolicy is SyncClose, the default.
//
// With FTOOLS_WRITE_LOG=FILE in the environment, Open records every write,
// zeroing call and flush of every writable device into FILE (Record does
// it for one device); package writelog reads such logs and rebuilds the
// images a power cut could have left, for the crash tests.
//
// Partition tables are read as Linux reads them (ReadPartitions lists
// them): a GPT only behind a protective MBR (type 0xEE), logical
// partitions of an extended MBR partition as 5 and up, protective and
// extended entries never as partitions, and an image file's MBR in
// 4096-byte sectors when its first partition holds a boot sector of that
// size. A window given by offset alone is bounded by the table (see Open).
// WritePartitionTable leaves only the table it writes; WipeSignatures
// clears the old signatures inside a window before a format.
//
// The bulk data path (a stream's direct writes, ReadRegular for a copy's
// source) uses raw system calls, which keep the runtime from handing the
// processor between threads around each 4 MiB request (raw_linux.go).
//
// The package never prints. It builds and works on image files on Linux,
// macOS and Windows; the commands (cmd/) are Linux-only. O_DIRECT, block
// devices, fallocate and BLKZEROOUT, statx, flock, sysfs, the mounts file
// and raw system calls are Linux features (the _linux.go files). Elsewhere
// the portable fallback (backend_os.go and the _other.go files) opens image
// files only and refuses block devices; its I/O is buffered through
// os.File (Direct is false and Stats.Fallback says so), zeroing writes
// zeros, the size comes from Stat, a flush is File.Sync and sectors are
// 512 bytes; it takes no lock (Wait and NoLock change nothing, and two
// processes may write one image at once), sees no mount or loop device
// (ImageUses finds none, so an image mounted there is not refused),
// BlockDiskPlace gives the zero DiskPlace, RereadPartitions returns an
// error wrapping ErrNotReread, and ReadRegular is File.Read.
package io
