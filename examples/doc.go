// Package examples holds one small program per common task done with
// ftools' Go packages: format an image (format), copy a host folder in
// (copytree), walk and read with io/fs (walk), update a file (update),
// check and repair (check), open a partition of a disk image (partition),
// and work on an image in memory (inmemory). It is a module of its own, as a program using ftools would
// be, pointed at this checkout by a replace directive; scripts/test builds
// and vets it, and examples_test.go runs the programs on a scratch image.
package examples
