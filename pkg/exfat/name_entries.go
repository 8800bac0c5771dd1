package exfat

// NameEntries is how many directory entries of EntrySize bytes a new
// member named name takes: its File and Stream Extension entries and one
// File Name entry per 15 UTF-16 units. A name the volume refuses counts
// the two it takes at least (Create names the fault).
func NameEntries(name string) int {
	u, err := EncodeName(name)
	if err != nil {
		return 2
	}
	return entriesFor(u)
}
