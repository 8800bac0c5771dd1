package cmdutil

import "github.com/urfave/cli/v2"

// FlagVerbose is -v/--verbose: name each file as it is handled, on
// standard error (as mcopy -v does).
const FlagVerbose = "verbose"

// VerboseFlag is -v/--verbose, as mtools' and dosfstools' -v: --version
// is long only in every command (see Run).
func VerboseFlag(usage string) cli.Flag {
	return &cli.BoolFlag{Name: FlagVerbose, Aliases: []string{"v"}, Usage: usage}
}

// VersionLongOnly is kept for commands written before NewApp made
// --version long only for every command; it does nothing more.
//
// Deprecated: NewApp leaves -v to the command.
func VersionLongOnly() {}
