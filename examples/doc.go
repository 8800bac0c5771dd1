// Package examples holds one small program per common task done with
// ftools' Go packages, each in under 20 lines of code through pkg/vol:
// format an image (format), copy a host folder in (copytree), walk and
// read with io/fs (walk), update a file (update), check and repair a FAT
// or exFAT volume (check), open a partition of a disk image (partition),
// and work on an image in memory (inmemory). It is a module of its own,
// as a program using ftools would be, pointed at this checkout by a
// replace directive; scripts/test builds and vets it, and
// examples_test.go runs the programs on scratch FAT32 and exFAT images,
// with fsck.fat and fsck.exfat as the oracles.
package examples
