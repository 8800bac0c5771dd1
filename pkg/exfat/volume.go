package exfat

import (
	"errors"
	"fmt"
	"github.com/ftools/ftools/pkg/internal/dircache"
	"time"

	"github.com/ftools/ftools/pkg/internal/fsutil"
	fio "github.com/ftools/ftools/pkg/io"
)

// maxDirBytes is the largest directory exFAT allows: 256 MiB (2^23
// entries, exFAT specification 6.1).
const maxDirBytes = MaxDirBytes

// MaxDirBytes is the most a directory holds: 256 MiB of entries.
const MaxDirBytes = 256 << 20

// Volume is an open exFAT file system on a device. A writable volume keeps
// the allocation bitmap in memory, reads the FAT only where chains need it,
// and writes what changed in the order Commit describes.
type Volume struct {
	dev        *fio.Device
	boot       *BootSector
	raw        []byte // the boot sector in use, as read (one sector)
	layout     *Layout
	fat        *fatTable
	bitmap     *bitmap // nil when a read-only volume's bitmap is unusable
	up         *Upcase
	bitmapEnt  AllocEntry
	upcaseEnt  AllocEntry
	fromBackup bool  // the main boot region was unusable; the backup's is in use
	bootErr    error // why the main boot region was unusable
	// bootConflict: the main and backup boot regions place the volume's
	// regions differently and neither describes the volume (boot_judge.go).
	bootConflict error

	writable    bool
	dirty       fsutil.DirtyFlag // VolumeDirty over this session (begin, markDirty, Close)
	closed      bool
	metaWritten bool // bitmap, FAT or entries were written this session
	warnings    []string
	cutShort    string // the warning that the boot sector describes more than dev holds

	cursor      Cluster          // where the next allocation search starts
	dirs        map[Cluster]*dir // loaded directories by first cluster
	dirtyDirs   map[*dir]struct{}
	dircache    dircache.Cache    // the cached directories' order and charge (dircache.go)
	data        fsutil.DataStream // file data and new directory clusters, written first
	walks       uint64
	pendingFree []Extent        // clusters to free once the entries that named them are gone
	deferred    []deferredClear // rename sources, deleted after the new entries are durable

	// The helpers changes are made with (fileStore, walker, changes),
	// built at their first use: built per call, their closures cost a
	// dozen allocations per file written.
	store   *fsutil.FileStore[Extent]
	walkers *fsutil.Walker[*dir, *Record]
	chg     *fsutil.Changes[*dir, *Record]
	mark    func(flush bool) error // markDirty, made once (marker)

	// Clock stamps the times ftools writes (creation, access, and
	// modification where none is given); nil means time.Now. Tests and
	// reproducible builds set it.
	Clock func() time.Time
}

// Now is the volume's clock.
func (v *Volume) Now() time.Time {
	if v.Clock != nil {
		return v.Clock()
	}
	return time.Now()
}

// Open reads the boot region (the main one, or the backup when the main
// one's checksum or fields are bad), the root directory, the up-case table
// and the allocation bitmap from dev. The volume is writable when dev is.
// Problems that do not stop use of the volume are collected as warnings
// (see Warnings).
func Open(dev *fio.Device) (*Volume, error) {
	v := &Volume{dev: dev, writable: dev.Writable(), dirs: map[Cluster]*dir{}, dirtyDirs: map[*dir]struct{}{}}
	if err := v.readBoot(); err != nil {
		return nil, err
	}
	l := v.layout
	if l.TotalSize > dev.Size() {
		// Read-only, what lies inside dev can be read: the readers fail
		// each file whose data does not (as pkg/fat's do).
		msg := fsutil.CutShort(l.TotalSize, dev.Path(), dev.Size())
		if v.writable {
			return nil, fmt.Errorf("%w: %s; refusing to write, which could reach past its end", ErrCorrupt, msg)
		}
		v.cutShort = msg
		v.warnings = append(v.warnings, msg)
	}
	v.fat = newFATTable(dev, l)
	if err := v.openRoot(); err != nil {
		if v.cutShort != "" {
			return nil, fmt.Errorf("%w (%s)", err, v.cutShort)
		}
		return nil, err
	}
	v.dirty.Was = v.boot.Dirty()
	v.warnings = append(v.warnings, v.boot.Warnings()...)
	v.cursor = FirstCluster
	return v, nil
}

// readBoot reads and checks the main boot region, falling back to the
// backup region (with any sector size from 512 to 4096 bytes, as
// fsck.exfat tries them) when the main one is unusable.
func (v *Volume) readBoot() error {
	dev := v.dev
	if dev.Size() < bootSectorSize {
		return fmt.Errorf("%w: %s: %d bytes is too small to hold a boot sector", ErrNotExFAT, dev.Path(), dev.Size())
	}
	head := make([]byte, bootSectorSize)
	if _, err := dev.ReadAt(head, 0); err != nil {
		return fmt.Errorf("exfat: reading the boot sector: %w", err)
	}
	if !IsExFAT(head) {
		_, err := DecodeBootSector(head)
		return err
	}
	ss := 512
	if sh := head[offSectorShift]; sh >= 9 && sh <= 12 {
		ss = 1 << sh
	}
	bs, raw, warns, mainErr := v.readRegion(0, ss)
	if mainErr == nil {
		// A backup that places the regions elsewhere is judged with the
		// main one against the volume (boot_judge.go).
		b, braw, why, refuse := judgeBackup(dev, v, bs, ss)
		if b != nil {
			v.boot, v.raw, v.fromBackup, v.bootErr = b, braw, true, why
			v.layout, _ = b.Layout()
			v.warnings = append(v.warnings, fmt.Sprintf("the main boot region is unusable (%v); using the backup at byte %d", why, backupBootSector*ss))
			return nil
		}
		v.boot, v.raw, v.warnings = bs, raw, append(v.warnings, warns...)
		v.layout, _ = bs.Layout()
		v.bootConflict = refuse
		return nil
	}
	sizes := []int{ss}
	for s := 512; s <= 4096; s *= 2 {
		if s != ss {
			sizes = append(sizes, s)
		}
	}
	for _, s := range sizes {
		bs, raw, warns, err := v.readRegion(int64(backupBootSector*s), s)
		if err != nil || bs.SectorSize() != int64(s) {
			continue
		}
		v.boot, v.raw, v.fromBackup, v.bootErr = bs, raw, true, mainErr
		v.layout, _ = bs.Layout()
		v.warnings = append(v.warnings, warns...)
		v.warnings = append(v.warnings, fmt.Sprintf("the main boot region is unusable (%v); using the backup at byte %d", mainErr, backupBootSector*s))
		return nil
	}
	return mainErr
}

// readRegion reads the boot region of ss-byte sectors at off and decodes
// its boot sector.
func (v *Volume) readRegion(off int64, ss int) (*BootSector, []byte, []string, error) {
	n := int64(bootRegionSectors * ss)
	if off+n > v.dev.Size() {
		return nil, nil, nil, fmt.Errorf("%w: %s: %d bytes cannot hold a boot region at byte %d", ErrNotExFAT, v.dev.Path(), v.dev.Size(), off)
	}
	region := make([]byte, n)
	if _, err := v.dev.ReadAt(region, off); err != nil {
		return nil, nil, nil, fmt.Errorf("exfat: reading the boot region at byte %d: %w", off, err)
	}
	bs, err := DecodeBootSector(region)
	if err != nil {
		return nil, nil, nil, err
	}
	if bs.SectorSize() != int64(ss) {
		return nil, nil, nil, corruptf("boot sector", "bytes per sector shift", off+offSectorShift, bs.SectorShift, "does not match the %d-byte sectors the region was read with", ss)
	}
	warns, err := CheckBootRegion(region, ss, off)
	if err != nil {
		return nil, nil, nil, err
	}
	return bs, region[:ss], warns, nil
}

// Device is the device the volume lives on.
func (v *Volume) Device() *fio.Device { return v.dev }

// BootSector is the decoded boot sector in use.
func (v *Volume) BootSector() *BootSector { return v.boot }

// Layout is the volume's region layout.
func (v *Volume) Layout() *Layout { return v.layout }

// Upcase is the volume's up-case table.
func (v *Volume) Upcase() *Upcase { return v.up }

// FreeClusters is the number of free clusters the allocation bitmap shows
// (0 when it is unusable).
func (v *Volume) FreeClusters() uint32 {
	if v.bitmap == nil {
		return 0
	}
	return v.bitmap.free
}

// WasDirty reports whether VolumeDirty was set when the volume was opened.
func (v *Volume) WasDirty() bool { return v.dirty.Was }

// AdoptDirty takes a VolumeDirty flag found set as this session's own, to
// clear on Close once everything is durable: for the writer that
// formatted the volume dirty (FormatParams.Dirty) to fill it.
func (v *Volume) AdoptDirty() { v.dirty.Adopt() }

// FromBackup reports whether the volume was opened from its backup boot
// region, and why the main one was unusable.
func (v *Volume) FromBackup() (bool, error) { return v.fromBackup, v.bootErr }

// Warnings lists oddities found while opening the volume.
func (v *Volume) Warnings() []string { return v.warnings }

// percentInUse is the PercentInUse the bitmap gives: used clusters in
// whole percent, rounded down.
func (v *Volume) percentInUse() uint8 {
	n := uint64(v.layout.Clusters)
	return uint8((n - uint64(v.bitmap.diskFree())) * 100 / n)
}

// begin checks that the volume may change, and arms VolumeDirty: it is
// written just before the session's first write to the device
// (markDirty), so that a crash in the middle is visible to fsck and to the
// next mount, while a change refused before anything was written leaves
// the volume byte for byte as it was.
func (v *Volume) begin() error {
	switch {
	case v.closed:
		return ErrClosed
	case !v.writable:
		return ErrReadOnly
	case v.fromBackup:
		return fmt.Errorf("%w: the main boot region is damaged (%v); repair the volume first", ErrUnsupported, v.bootErr)
	case v.bitmap == nil:
		return fmt.Errorf("%w: the allocation bitmap is unusable; repair the volume first", ErrCorrupt)
	}
	if v.dirty.Armable(false) {
		v.dirty.Arm(v.dev, false, v.markDirty)
	}
	return nil
}

// markDirty writes the VolumeDirty begin armed, if it is not on the device
// yet: the device runs it before the first write of the session, and the
// data paths call it before they queue data. Before metadata (flush) the
// flag is made durable first; data needs no flush of its own, since the
// commit flushes the data before any metadata that refers to it.
func (v *Volume) markDirty(flush bool) error {
	if !v.dirty.Armed {
		return nil // on the device, or nothing to put there (DirtyFlag.Mark)
	}
	write := func() error {
		v.boot.SetDirty(true)
		return v.writeBootFlags()
	}
	undo := func() { v.boot.SetDirty(false) }
	return v.dirty.Mark(v.dev, flush, write, undo, v.barrier, v.markDirty)
}

// writeBootFlags writes the main boot sector's VolumeFlags and
// PercentInUse. Neither is covered by the boot checksum, and the backup
// boot region keeps the values it was formatted with, as the specification
// asks (3.1.13, 3.1.16).
func (v *Volume) writeBootFlags() error {
	v.raw[offVolumeFlags] = byte(v.boot.VolumeFlags)
	v.raw[offVolumeFlags+1] = byte(v.boot.VolumeFlags >> 8)
	v.raw[offPercentInUse] = v.boot.PercentInUse
	if _, err := v.dev.WriteAt(v.raw, 0); err != nil {
		return fmt.Errorf("exfat: writing the boot sector: %w", err)
	}
	return nil
}

// barrier makes everything written so far durable before anything written
// after it, unless the sync policy is none.
func (v *Volume) barrier() error {
	if testHookBarrier != nil {
		testHookBarrier()
	}
	if v.dev.Policy() == fio.SyncNone || v.dirty.Armed {
		// armed: this session has written nothing yet (markDirty).
		return nil
	}
	return v.dev.Sync()
}

// testHookBarrier, when set by a test, runs at every barrier: the image
// then holds exactly what a power cut at that barrier would leave.
var testHookBarrier func()

// writeData queues file data (or a new directory cluster) at off; it goes
// out in large merged writes before any metadata that refers to it.
func (v *Volume) writeData(off int64, p []byte) error {
	return v.data.Write(v.dev, v.marker(), off, p)
}

// flushData writes queued data and waits for it.
func (v *Volume) flushData() error {
	return v.data.Flush("exfat")
}

// Commit writes everything changed so far, in the order that keeps the
// volume consistent at every step, with a barrier (a flush, unless the
// sync policy is none) between the steps:
//
//  1. file data and new directory clusters;
//  2. the allocation bitmap's set bits and the FAT chains of fragmented
//     files and directories, one batch;
//  3. entry sets: new, updated and deleted ones, one batch;
//  4. the old entry sets of renamed files and directories are deleted, and
//     the clusters of removed or replaced files are marked free in the
//     bitmap, one batch.
//
// A power cut at any point leaves at worst clusters marked in use that no
// entry names (lost clusters), or a renamed file under both names: never
// an entry that names unwritten data or a cluster marked free.
func (v *Volume) Commit() error {
	if v.closed {
		return ErrClosed
	}
	if err := v.flushData(); err != nil {
		return err
	}
	bitmapDirty := v.bitmap != nil && len(v.bitmap.dirty) > 0
	if !bitmapDirty && !v.fat.Dirty() && len(v.dirtyDirs) == 0 && len(v.deferred) == 0 && len(v.pendingFree) == 0 {
		return nil
	}
	v.metaWritten = true
	if err := fsutil.Phase(true, v.barrier, v.flushAllocation); err != nil {
		return err
	}
	if err := fsutil.Phase(len(v.dirtyDirs) > 0, v.barrier, v.flushDirs); err != nil {
		return err
	}
	if len(v.deferred) == 0 && len(v.pendingFree) == 0 {
		return nil
	}
	if err := v.barrier(); err != nil {
		return err
	}
	for _, d := range v.deferred {
		d.apply()
		d.d.node.Unpin()
	}
	v.deferred = nil
	for _, e := range v.pendingFree {
		v.bitmap.mark(e, false)
	}
	v.pendingFree = nil
	b := v.dev.NewBatch()
	if err := v.queueDirs(b); err != nil {
		return err
	}
	if err := v.bitmap.flush(b, v.layout); err != nil {
		return err
	}
	if err := b.Flush(); err != nil {
		return fmt.Errorf("exfat: writing entries and the allocation bitmap: %w", err)
	}
	return nil
}

// queueDirs queues every changed directory sector into b.
func (v *Volume) queueDirs(b *fio.Batch) error {
	for d := range v.dirtyDirs {
		if err := d.flush(b); err != nil {
			return err
		}
	}
	clear(v.dirtyDirs)
	return nil
}

// flushAllocation writes the bitmap and FAT changes in one batch.
func (v *Volume) flushAllocation() error {
	b := v.dev.NewBatch()
	if v.bitmap != nil {
		if err := v.bitmap.flush(b, v.layout); err != nil {
			return err
		}
	}
	if err := v.fat.flush(b); err != nil {
		return err
	}
	if err := b.Flush(); err != nil {
		return fmt.Errorf("exfat: writing the allocation bitmap and FAT: %w", err)
	}
	return nil
}

// flushDirs writes every changed directory sector in one batch.
func (v *Volume) flushDirs() error {
	b := v.dev.NewBatch()
	if err := v.queueDirs(b); err != nil {
		return err
	}
	if err := b.Flush(); err != nil {
		return fmt.Errorf("exfat: writing directory entries: %w", err)
	}
	return nil
}

// Close commits everything pending, then (after a barrier) clears the
// VolumeDirty flag this session set and records PercentInUse, and flushes
// again. It does not close the device.
func (v *Volume) Close() error {
	if v.closed {
		return nil
	}
	if !v.writable {
		v.closed = true
		return nil
	}
	// VolumeDirty comes off with PercentInUse recorded, then a barrier.
	clear := func() error {
		v.boot.SetDirty(false)
		if v.bitmap != nil {
			v.boot.PercentInUse = v.percentInUse()
		}
		err := v.writeBootFlags()
		if berr := v.barrier(); err == nil {
			err = berr
		}
		return err
	}
	err := v.dirty.Close(v.Commit(), v.dev, v.data.Close, v.metaWritten, v.barrier, clear)
	v.closed = true
	return err
}

// errClosedWriter is returned by a Writer used after its volume closed.
var errClosedWriter = errors.New("exfat: write after the volume was closed")

// OpenForCheck opens dev as Open does, for a checker: when Open had to use
// the backup boot region, bootErr is the main region's error (Check
// reports it, and Repair copies the backup over the main region). It
// mirrors pkg/fat's OpenForCheck; Open itself already falls back.
func OpenForCheck(dev *fio.Device) (v *Volume, bootErr, err error) {
	v, err = Open(dev)
	if err != nil {
		return nil, nil, err
	}
	return v, v.bootErr, nil
}

// SystemEntries returns the root directory's allocation bitmap and up-case
// table entries, as read (a zero entry when the root holds none).
func (v *Volume) SystemEntries() (bitmap, upcase AllocEntry) { return v.bitmapEnt, v.upcaseEnt }

// marker is markDirty as a function value, made once: the data paths pass
// it with every write.
func (v *Volume) marker() func(flush bool) error {
	if v.mark == nil {
		v.mark = v.markDirty
	}
	return v.mark
}
