// Package cp holds fcp's rules and its copy engine: where each source
// lands (cp's rules), which names a volume or the host can take (mcopy's
// and Windows' rules), what happens when names clash (mcopy's -D policy),
// how host symbolic links are treated (as cp -r, cp -L and mcopy do), how
// image wildcards expand, and the copy itself.
//
// A copy is planned whole before anything is written (Plan): every
// source is walked, every name checked and every clash settled (asking
// on a terminal when the policy says so), and every skip named with its
// reason. Run then carries the plan out: volume data is read through the
// volume's read-ahead and written through its write stream, host data in
// large chunks, and a stop request ends it within a chunk, with the file
// being written removed and the volume left for the caller to commit.
//
// It lives under cmd/internal, not pkg/, because it is command logic: it
// speaks in the user's paths (IMAGE::/path), reads the host file system,
// and may ask questions on a terminal, which pkg/ libraries never do. Out
// of cmd/fcp, its rules are tested as tables without spawning processes.
package cp
