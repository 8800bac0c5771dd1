// Package godiskfs benchmarks ftools' Go packages against go-diskfs's
// FAT32 file system on the same jobs: one large file into a fresh FAT32
// image, a tree of small files, and reading both back. It is a module of
// its own so that the main module's tests never build go-diskfs's file
// systems.
//
//	cd bench/godiskfs
//	go test -run . -bench . -benchtime 1x          # quick: 64 MiB, 200 files
//	go test -run . -bench . -benchtime 1x -full    # 1 GiB, 2,000 files (go-diskfs takes minutes)
//
// The tests check what the benchmarks rely on: ftools' images pass
// fsck.fat -n and read back byte for byte; what go-diskfs's images do is
// logged (go test -v), not required.
package godiskfs
