package cmdutil

import "github.com/urfave/cli/v2"

// FlagVerbose is -v/--verbose: name each file as it is handled, on
// standard error (as mcopy -v does).
const FlagVerbose = "verbose"

// VerboseFlag is -v/--verbose. A command that takes it gives up -v as the
// short form of --version (see VersionLongOnly).
func VerboseFlag(usage string) cli.Flag {
	return &cli.BoolFlag{Name: FlagVerbose, Aliases: []string{"v"}, Usage: usage}
}

// VersionLongOnly leaves --version without its -v alias, for a command
// whose -v means verbose as in mtools. It changes urfave/cli's global
// version flag, so a command calls it once, before building its app.
func VersionLongOnly() {
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version"}
}
