package fat

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/ftools/ftools/pkg/internal/dircache"
	"github.com/ftools/ftools/pkg/internal/fserr"
	"github.com/ftools/ftools/pkg/internal/fsutil"
	fio "github.com/ftools/ftools/pkg/io"
)

// maxBootRead is how much of the volume's start Open reads to find the boot
// sector: the largest logical sector size FAT allows.
const maxBootRead = 4096

// Volume is an open FAT file system on a device. It reads the FAT in
// windows of bounded size as it needs them (fatcache.go), keeps the changed
// ones in memory, and writes their changed sectors to every FAT copy in one
// batch when flushed; memory does not grow with the volume.
type Volume struct {
	dev     *fio.Device
	boot    *BootSector
	raw     []byte // the boot sector as read (one logical sector)
	layout  *Layout
	table   *fatCache
	info    *FSInfo // nil on FAT12/16, or when FSINFO is unreadable
	infoRaw []byte  // the FSINFO sector as read

	writable  bool
	dirty     fsutil.DirtyFlag // the dirty bit over this session (begin, markDirty, Close)
	infoDirty bool
	closed    bool
	// metaWritten is set once FATs, directories or FSINFO were written.
	metaWritten bool
	warnings    []string

	cursor      Cluster              // where the next allocation search starts
	allocPolicy AllocPolicy          // where new data goes (SetAllocPolicy)
	dirs        map[Cluster]*dir     // loaded directories by first cluster (0: fixed root), a bounded cache (dircache.go)
	dircache    dircache.Cache       // the cached directories' order and charge
	dirtyDirs   map[Cluster]*dir     // directories with slots to write back
	data        fsutil.DataStream    // file data and new directory clusters, written first
	walks       uint64               // path lookups so far (see lookupPath)
	pendingFree []Extent             // clusters to free once the entries that named them are gone
	held        map[Cluster]heldLink // FAT entries whose new value waits for a later phase (order.go)
	spillPhase  phase                // the phase FAT windows written early belong to (fatCache.spill)
	deferred    []deferredChange     // directory changes that wait for a later phase
	newDirs     map[Cluster]*dir     // directories made since the last commit, written whole with the data (order.go)
	skips       []skipped            // slots new records skipped: marked deleted in phaseData (writeSkips)
	labelDirty  bool                 // the boot sectors' label changed: written after the entries
	countWarned bool                 // the free count was compared with FSINFO's
	commits     int                  // commits so far (tests)
	closedFree  uint32               // the free count at Close, when it was counted

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

// Open reads the boot sector and (FAT32) FSINFO from dev; the FAT is read
// in windows as it is needed. The volume is writable when dev is. Problems that do not stop use of the volume
// are collected as warnings (see Warnings). A writable FAT32 volume whose
// boot sector differs from its backup and does not describe the volume
// (boot_judge.go) is refused (ErrCorrupt): a writer would put FATs and
// data where it says.
func Open(dev *fio.Device) (*Volume, error) { return openVolume(dev, false) }

// openVolume is Open; forCheck opens for writing, too, a volume whose boot
// sector differs from its backup and does not describe it, which Check
// reports and Repair refuses.
func openVolume(dev *fio.Device, forCheck bool) (*Volume, error) {
	n := int64(maxBootRead)
	if dev.Size() < n {
		n = dev.Size()
	}
	if n < 512 {
		return nil, fmt.Errorf("%w: %s: %d bytes is too small to hold a boot sector", ErrNotFAT, dev.Path(), dev.Size())
	}
	buf := make([]byte, n)
	if _, err := dev.ReadAt(buf, 0); err != nil {
		return nil, fmt.Errorf("fat: reading boot sector: %w", err)
	}
	bs, err := DecodeBootSector(buf)
	if err != nil {
		return nil, err
	}
	v, err := openFrom(dev, bs, buf)
	if err != nil {
		return nil, err
	}
	if v.layout.Type == FAT32 && !v.checkBackupBoot() && !forCheck {
		// A writer would put FATs and data where a boot sector that
		// does not describe the volume says (boot_judge.go): the
		// checker opens it (OpenForCheck), writers do not. A reader
		// reads through the backup when the backup describes it.
		if c := findBootConflict(dev, v.boot, v.raw); c != nil && c.primary != nil && !c.sameLayout {
			if !v.writable && c.backup == nil {
				if bv, err := openFrom(dev, c.bs, c.raw); err == nil {
					v.Close()
					bv.warnings = append(bv.warnings, fmt.Sprintf("the boot sector differs from its backup at byte %d and does not describe the volume (%v): read through the backup (fverify --repair restores the boot sector from it)", c.off, c.primary))
					return bv, nil
				}
			}
			v.Close()
			what := "refusing to write; check and repair the volume first"
			if !v.writable {
				what = "nor does the backup; fverify shows the damage"
			}
			return nil, fmt.Errorf("%w: the boot sector differs from its backup at byte %d and does not describe the volume (%v): %s", ErrCorrupt, c.off, c.primary, what)
		}
	}
	if !forCheck {
		// FAT 1's first window is in memory already: the other copies
		// are read only when its entry 0 is not sound.
		if !entry0Sound(v.layout.Type, uint32(v.table.Get(0))) {
			if fault := fatCopiesFault(dev, v.layout); fault != nil {
				v.Close()
				return nil, fmt.Errorf("%w: %v; fverify shows the damage", ErrCorrupt, fault)
			}
		}
		// Writers change no FAT window whose copies disagree; the
		// checker's repair is what makes them agree.
		v.table.guard = v.writable
	}
	return v, nil
}

// openFrom opens the volume described by boot sector bs (raw is its
// sector), as Open does after decoding the primary. It does not compare
// the backup boot sector: it is used when raw is the backup.
func openFrom(dev *fio.Device, bs *BootSector, raw []byte) (*Volume, error) {
	l, err := bs.Layout()
	if err != nil {
		return nil, err
	}
	if dev.Writable() {
		if err := bs.unsupportedFATs(); err != nil {
			return nil, err
		}
	}
	if int64(len(raw)) < l.SectorSize {
		return nil, fmt.Errorf("fat: boot sector of %d bytes is shorter than its sector size %d", len(raw), l.SectorSize)
	}
	v := &Volume{dev: dev, boot: bs, raw: raw[:l.SectorSize], layout: l, writable: dev.Writable()}
	v.dirty.Was = bs.Dirty()
	if msg, err := limitToVolume(dev, l); err != nil {
		return nil, err
	} else if msg != "" {
		v.warnings = append(v.warnings, msg)
	}
	if end := l.FATOffset + l.FATSize; end > dev.Size() {
		return nil, &FormatError{Structure: "FAT", Field: "end", Offset: end, Msg: fmt.Sprintf("lies past the end of %s (%d bytes)", dev.Path(), dev.Size()), Err: ErrCorrupt}
	}
	if v.table, err = newFATCache(dev, l); err != nil {
		return nil, err
	}
	// Windows that must be written before there is room for another go
	// out early, as the phase the volume is in allows (order.go).
	v.spillPhase = phaseData
	v.table.setSpill(func() error { return v.writeFAT(v.spillPhase) })
	// Reading the first window checks that the FAT can be read at all.
	if v.table.Get(0); v.table.Err() != nil {
		return nil, v.table.Err()
	}
	if l.Type == FAT32 {
		v.readFSInfo()
	}
	v.cursor = v.cursorStart()
	v.dirs = map[Cluster]*dir{}
	v.dirtyDirs = map[Cluster]*dir{}
	return v, nil
}

func (v *Volume) readFSInfo() {
	l := v.layout
	sec := make([]byte, l.SectorSize)
	if _, err := v.dev.ReadAt(sec, l.FSInfoOffset); err != nil {
		v.warnings = append(v.warnings, fmt.Sprintf("FSINFO at byte %d unreadable: %v", l.FSInfoOffset, err))
		return
	}
	fi, err := DecodeFSInfo(sec)
	if err != nil {
		v.warnings = append(v.warnings, fmt.Sprintf("FSINFO at byte %d: %v", l.FSInfoOffset, err))
		return
	}
	v.info, v.infoRaw = fi, sec
	if fi.NextFree != FSInfoUnknown && (fi.NextFree < 2 || fi.NextFree > uint32(l.MaxCluster())) {
		v.warnings = append(v.warnings, fmt.Sprintf("FSINFO next free cluster %d is out of range 2..%d", fi.NextFree, l.MaxCluster()))
	}
}

// checkBackupBoot warns when the backup boot sector is missing, unreadable
// or differs from the boot sector, and reports whether it is the same.
func (v *Volume) checkBackupBoot() bool {
	l := v.layout
	if l.BackupBootOffset == 0 {
		v.warnings = append(v.warnings, "no backup boot sector")
		return true
	}
	b := make([]byte, l.SectorSize)
	if _, err := v.dev.ReadAt(b, l.BackupBootOffset); err != nil {
		v.warnings = append(v.warnings, fmt.Sprintf("backup boot sector at byte %d unreadable: %v", l.BackupBootOffset, err))
		return false
	}
	// Byte by byte, as fverify compares them (bootBytes): the dirty bit
	// lives only in the primary copy, as Linux keeps it.
	if !bytes.Equal(bootBytes(v.raw), bootBytes(b)) {
		v.warnings = append(v.warnings, fmt.Sprintf("backup boot sector at byte %d differs from the boot sector", l.BackupBootOffset))
		return false
	}
	return true
}

// Device is the device the volume lives on.
func (v *Volume) Device() *fio.Device { return v.dev }

// BootSector is the decoded boot sector.
func (v *Volume) BootSector() *BootSector { return v.boot }

// Layout is the volume's region layout.
func (v *Volume) Layout() *Layout { return v.layout }

// Table is the first FAT, read in windows as entries are asked for (and
// changed in memory by writers until they commit). It is valid until
// Close; after Close it is nil. Its Bytes method reads the whole table
// into memory: stream it with ScanFAT instead.
func (v *Volume) Table() Table {
	if v.table == nil {
		return nil
	}
	return v.table
}

// FSInfo is the FAT32 FSINFO sector as read (and as changed since); nil on
// FAT12/16 or when it could not be read.
func (v *Volume) FSInfo() *FSInfo { return v.info }

// FreeClusters is the number of free clusters according to the FAT. The
// first call (or allocation) counts them in one pass over the FAT; the
// count is kept current from then on. After Close it is the count at
// Close (0 if it was never counted: the FAT is gone).
func (v *Volume) FreeClusters() uint32 { return v.freeCount() }

// BadClusters is the number of clusters the FAT marks bad (counted with
// the free ones).
func (v *Volume) BadClusters() uint32 {
	v.freeCount()
	return v.table.sum.bad
}

// freeCount counts the free clusters once (fatCache.count) and compares
// the count with FSINFO's.
func (v *Volume) freeCount() uint32 {
	if v.table == nil {
		return v.closedFree // closed
	}
	err := v.table.count()
	if !v.countWarned {
		v.countWarned = true
		v.noteLoadedEntries()
		if err != nil {
			v.warnings = append(v.warnings, err.Error())
		} else if fi := v.info; fi != nil && fi.FreeCount != FSInfoUnknown && fi.FreeCount != v.table.sum.free {
			v.warnings = append(v.warnings, fmt.Sprintf("FSINFO free count %d is wrong: the FAT has %d free clusters", fi.FreeCount, v.table.sum.free))
		}
	}
	return v.table.sum.free
}

// WasDirty reports whether the dirty bit was set when the volume was opened.
func (v *Volume) WasDirty() bool { return v.dirty.Was }

// AdoptDirty takes a dirty bit found set as this session's own, to clear
// on Close once everything is durable: for the writer that formatted the
// volume dirty (FormatParams.Dirty) to fill it.
func (v *Volume) AdoptDirty() { v.dirty.Adopt() }

// Warnings lists oddities found while opening the volume, and the FSINFO
// free count that disagrees with the FAT (to know, the FAT is counted).
func (v *Volume) Warnings() []string {
	if v.info != nil && v.info.FreeCount != FSInfoUnknown {
		v.freeCount()
	}
	return v.warnings
}

// ErrReadOnly is returned when a change is asked of a read-only volume.
var ErrReadOnly error = fserr.ErrReadOnly.In("fat")

// ErrNoFSInfo is returned when FSINFO is asked of a FAT12/16 volume.
var ErrNoFSInfo = errors.New("fat: FAT12 and FAT16 volumes have no FSINFO sector")

// begin checks that the volume may change, and arms the dirty bit
// (FAT16/32): it is written just before the session's first write to the
// device (markDirty), so that a crash in the middle is visible to fsck,
// while a change refused before anything was written leaves the volume
// byte for byte as it was.
func (v *Volume) begin() error {
	if !v.writable {
		return ErrReadOnly
	}
	if v.closed {
		return ErrClosed
	}
	if v.dirty.Armable(v.layout.Type == FAT12) {
		v.dirty.Arm(v.dev, v.layout.Type == FAT12, v.markDirty)
	}
	return nil
}

// markDirty writes the dirty bit begin armed, if it is not on the device
// yet: the device runs it before the first write of the session, and the
// data paths call it before they queue data. Before metadata (flush) the
// bit is made durable first; data needs no flush of its own, since the
// commit flushes the data before any metadata that refers to it.
func (v *Volume) markDirty(flush bool) error {
	if !v.dirty.Armed {
		return nil // on the device, or nothing to put there (DirtyFlag.Mark)
	}
	// Only the dirty bit changes on the device now: a new label or volume
	// id waits in v.boot for its own place in the commit (writeLabel).
	state := ext16 + relState
	if v.boot.Is32 {
		state = ext32 + relState
	}
	write := func() error {
		v.raw[state] |= stateDirty
		if _, err := v.dev.WriteAt(v.raw, 0); err != nil {
			return fmt.Errorf("fat: writing boot sector: %w", err)
		}
		v.boot.SetDirty(true)
		return nil
	}
	undo := func() { v.raw[state] &^= stateDirty }
	return v.dirty.Mark(v.dev, flush, write, undo, v.barrier, v.markDirty)
}

// writeBoot writes the boot sector as v.boot says, keeping the bytes of
// the sector as read that BootSector does not model.
func (v *Volume) writeBoot() error {
	v.boot.EncodeOver(v.raw)
	if _, err := v.dev.WriteAt(v.raw, 0); err != nil {
		return fmt.Errorf("fat: writing boot sector: %w", err)
	}
	return nil
}

// SetNextCluster sets FSINFO's next free cluster hint: allocation (by
// ftools, the Linux driver and mtools) then starts after cluster n.
func (v *Volume) SetNextCluster(n uint32) error {
	if v.info == nil {
		return v.noFSInfo()
	}
	if n != FSInfoUnknown && (n < 2 || n > uint32(v.layout.MaxCluster())) {
		return fmt.Errorf("fat: next cluster %d is out of range: clusters are numbered 2..%d", n, v.layout.MaxCluster())
	}
	if err := v.begin(); err != nil {
		return err
	}
	if v.info.NextFree == n {
		return nil // as it is: nothing to write
	}
	v.info.NextFree = n
	v.infoDirty = true
	return nil
}

// SetFreeCount sets FSINFO's free cluster count to n as given, right or
// wrong (benchmarks and tests need both).
func (v *Volume) SetFreeCount(n uint32) error {
	if v.info == nil {
		return v.noFSInfo()
	}
	if n != FSInfoUnknown && n > v.layout.Clusters {
		return fmt.Errorf("fat: free count %d is larger than the volume's %d clusters", n, v.layout.Clusters)
	}
	if err := v.begin(); err != nil {
		return err
	}
	if v.info.FreeCount == n {
		return nil // as it is: nothing to write
	}
	v.info.FreeCount = n
	v.infoDirty = true
	return nil
}

// Recount writes the true free count from the FAT into FSINFO, and a valid
// next free hint (the last allocated cluster before the first free one) where
// the old one is out of range.
func (v *Volume) Recount() error {
	if v.info == nil {
		return v.noFSInfo()
	}
	if err := v.begin(); err != nil {
		return err
	}
	free := v.freeCount()
	if err := v.table.Err(); err != nil {
		return err
	}
	next := v.validNextFree(v.info.NextFree)
	if free == v.info.FreeCount && next == v.info.NextFree {
		return nil // right already: nothing to write
	}
	v.info.FreeCount, v.info.NextFree = free, next
	v.infoDirty = true
	return nil
}

// validNextFree keeps a next free hint that is in range, and otherwise
// makes one: the cluster before the first free one (allocation starts
// after the hint).
func (v *Volume) validNextFree(nf uint32) uint32 {
	if nf >= 2 && nf <= uint32(v.layout.MaxCluster()) {
		return nf
	}
	nf = 2
	v.freeCount()
	if c, ok := v.table.firstUsable(2); ok && c > 2 {
		nf = uint32(c) - 1
	}
	return nf
}

func (v *Volume) noFSInfo() error {
	if v.layout.Type != FAT32 {
		return fmt.Errorf("%w (this volume is %s)", ErrNoFSInfo, v.layout.Type)
	}
	return errors.New("fat: this volume's FSINFO sector is unreadable; fix it with fverify --repair first")
}

// FlushFAT writes the changed ranges of the FAT to every FAT copy, all in
// one batch so that the device sees them together.
func (v *Volume) FlushFAT() error {
	wrote, err := v.table.flush()
	if wrote {
		v.metaWritten = true
	}
	return err
}

// flushFSInfo writes FSINFO if it changed.
func (v *Volume) flushFSInfo() error {
	if !v.infoDirty || v.info == nil {
		return nil
	}
	// The sector as read keeps its reserved bytes; only the fields change.
	sec := v.infoRaw
	v.metaWritten = true
	v.info.Encode(sec)
	if _, err := v.dev.WriteAt(sec, v.layout.FSInfoOffset); err != nil {
		return fmt.Errorf("fat: writing FSINFO: %w", err)
	}
	v.infoDirty = false
	return nil
}

// Commit writes everything changed so far, in the phases that keep the
// volume consistent whatever part of it a crash or power cut lets reach
// the disk (order.go), with a barrier (a flush under --sync close and
// file) between phases: file data, new directory clusters and the FAT of
// new chains; then directory entries; then the old entries of renamed
// files and the boot sector's label; then the FAT for clusters that
// removed or replaced files held, and FSINFO. A cut in between leaves at
// worst lost clusters, a stale free count, the dirty bit, or an
// interrupted rename (two entries naming the same clusters): never an
// entry that points at unwritten data, or clusters that two files share
// otherwise.
func (v *Volume) Commit() error {
	v.commits++
	if err := v.plantMisorder(); err != nil {
		return err
	}
	if err := v.flushData(); err != nil {
		return err
	}
	whole, err := v.writeNewDirs()
	if err != nil {
		return err
	}
	if err := v.writeSkips(whole); err != nil {
		return err
	}
	if err := v.writeFAT(phaseData); err != nil {
		return err
	}
	entriesFAT := func() error { return v.writeFAT(phaseEntries) }
	if err := fsutil.Phase(len(v.dirtyDirs) > 0 || len(v.held) > 0, v.barrier, entriesFAT, v.writeDirs); err != nil {
		return err
	}
	afterEntries := func() error { v.applyDeferred(phaseAfterEntries); return nil }
	if err := fsutil.Phase(v.deferredUpTo(phaseAfterEntries) || v.labelDirty, v.barrier, afterEntries, v.writeDirs, v.writeLabel); err != nil {
		return err
	}
	if len(v.pendingFree) > 0 || len(v.held) > 0 || v.deferredUpTo(phaseLast) {
		if err := v.barrier(); err != nil {
			return err
		}
		v.applyDeferred(phaseLast)
		if err := v.writeDirs(); err != nil {
			return err
		}
		v.spillPhase = phaseLast
		v.freeClusters(v.pendingFree)
		v.pendingFree = nil
		err := v.writeFAT(phaseLast)
		v.spillPhase = phaseData
		if err != nil {
			return err
		}
	}
	if err := v.flushFSInfo(); err != nil {
		return err
	}
	final := func() error { v.applyDeferred(phaseFinal); return nil }
	return fsutil.Phase(len(v.deferred) > 0, v.barrier, final, v.writeDirs)
}

// barrier separates two commit phases (fio.Device.Barrier).
func (v *Volume) barrier() error {
	if err := v.dev.Barrier(); err != nil {
		return fmt.Errorf("fat: flushing: %w", err)
	}
	return nil
}

// writeDirs writes the changed sectors of every directory, in one batch.
func (v *Volume) writeDirs() error {
	if len(v.dirtyDirs) == 0 {
		return nil
	}
	v.metaWritten = true
	b := v.dev.NewBatch()
	for k, d := range v.dirtyDirs {
		if err := d.flush(b); err != nil {
			return fmt.Errorf("fat: writing directories: %w", err)
		}
		d.fresh = false
		delete(v.dirtyDirs, k)
	}
	if err := b.Flush(); err != nil {
		return fmt.Errorf("fat: writing directories: %w", err)
	}
	return nil
}

// writeData queues file data (or a new directory cluster) at off; it goes
// out in large merged writes before any metadata that refers to it.
func (v *Volume) writeData(off int64, p []byte) error {
	if v.closed {
		return ErrClosed
	}
	return v.data.Write(v.dev, v.marker(), off, p)
}

// flushData writes queued data and waits for it, so that it can be read
// back or referred to.
func (v *Volume) flushData() error {
	return v.data.Flush("fat")
}

// readClusters reads the clusters of chain into buf, one request per
// contiguous run (split by the device at its request size).
func (v *Volume) readClusters(buf []byte, chain []Cluster) error {
	return v.readExtents(buf, extentsOf(chain))
}

// readExtents reads the clusters of the runs exts into buf, one request
// per run (split by the device at its request size).
func (v *Volume) readExtents(buf []byte, chain []Extent) error {
	if err := v.flushData(); err != nil {
		return err
	}
	cs := v.layout.ClusterSize
	pos := int64(0)
	for _, e := range chain {
		n := int64(e.Len) * cs
		if _, err := v.dev.ReadAt(buf[pos:pos+n], v.layout.ClusterOffset(e.Start)); err != nil {
			return err
		}
		pos += n
	}
	return nil
}

// ErrClosed is returned for a change asked of a volume after Close.
var ErrClosed error = fserr.ErrClosed.In("fat")

// Close commits everything pending and clears the dirty bit this session
// set: after a barrier, so that the bit comes off only once everything
// else is durable (the device's Close flushes the bit itself). It gives
// the FAT's memory back, on read-only volumes too: Table is nil
// afterwards. It does not close the device.
func (v *Volume) Close() error {
	if v.closed {
		return nil
	}
	defer v.releaseFAT()
	if !v.writable {
		v.closed = true
		return nil
	}
	clear := func() error {
		v.boot.SetDirty(false)
		return v.writeBoot()
	}
	err := v.dirty.Close(v.Commit(), v.dev, v.data.Close, v.metaWritten, v.barrier, clear)
	v.closed = true
	return err
}

// releaseFAT gives the FAT's memory back, keeping the free count when it
// is known (FreeClusters after Close).
func (v *Volume) releaseFAT() {
	if v.table != nil {
		if v.table.sum.counted {
			v.closedFree = v.table.sum.free
		}
		v.table.release()
	}
	v.table = nil
}

// marker is markDirty as a function value, made once: the data paths pass
// it with every write.
func (v *Volume) marker() func(flush bool) error {
	if v.mark == nil {
		v.mark = v.markDirty
	}
	return v.mark
}
