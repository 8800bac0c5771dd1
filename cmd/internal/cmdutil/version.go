package cmdutil

import "github.com/urfave/cli/v2"

// VersionWithoutV gives app a --version flag without urfave/cli's -v
// alias, for commands whose -v means what it means to the tool they
// replace (fverify -v is verbose, as fsck.fat -v is). Call it once the
// app's flags and action are set.
func VersionWithoutV(app *cli.App) {
	app.HideVersion = true
	app.Flags = append(app.Flags, &cli.BoolFlag{Name: "version", Usage: "print the version"})
	action := app.Action
	app.Action = func(c *cli.Context) error {
		if c.Bool("version") {
			cli.ShowVersion(c)
			return nil
		}
		return action(c)
	}
}
