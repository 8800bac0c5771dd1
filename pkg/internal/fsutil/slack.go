package fsutil

// PadSlack zeroes the rest of a file's last cluster, from written (the
// bytes the file holds) to the cluster's end, with put (the file system's
// writer at a byte position of the file). It is the writer's padding on
// FAT and exFAT alike: the cluster is the file's alone, so this costs no
// read, keeps the data of consecutive files one contiguous stream and
// leaves no stale bytes in the image. The zeros come from one shared
// block, never a new slice per file (a copy of 20,000 small files onto
// 128 KiB clusters would otherwise allocate 2.5 GB); put must not keep or
// change the slice it is given.
func PadSlack(put func(p []byte, pos int64) (int, error), written, clusterSize int64) error {
	slack := (clusterSize - written%clusterSize) % clusterSize
	if slack == 0 || written == 0 {
		return nil
	}
	for pos := written; slack > 0; {
		n := min(slack, int64(len(zeroBlock)))
		if _, err := put(zeroBlock[:n], pos); err != nil {
			return err
		}
		pos += n
		slack -= n
	}
	return nil
}

// zeroBlock is zeros to write from; never written to.
var zeroBlock = make([]byte, 64<<10)
