package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
)

// Main is the binary: it parses args and runs. A command line the flag package refuses is a
// configuration error like any other (held unready in a pod, with --health-addr as parsed so
// far); -h prints the usage. It returns the exit code: 0, 1 on an error, 2 on a bad command line.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("controller", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f Flags
	f.Register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		// The flag package has printed the error and the usage.
		bad := &ConfigError{Flag: "command line", Reason: err.Error()}
		_ = unreadyInPod(ctx, &f, bad, slog.New(slog.NewJSONHandler(stderr, nil)))
		return 2
	}
	if err := Run(ctx, &f, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "controller:", err)
		return 1
	}
	return 0
}
