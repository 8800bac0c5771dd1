package fsutil

// Phase is one step of a commit's crash order, as both codecs' Commit
// take them: when it has work, a barrier first makes all that came before
// durable, then its writes run in order, up to the first error. A phase
// with no work costs no barrier.
func Phase(work bool, barrier func() error, writes ...func() error) error {
	if !work {
		return nil
	}
	if err := barrier(); err != nil {
		return err
	}
	for _, w := range writes {
		if err := w(); err != nil {
			return err
		}
	}
	return nil
}
