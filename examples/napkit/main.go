// Command napkit plans Kubernetes nodes on Azure from the manifests users already write, offline: it
// lists the instance-type catalogue for a region and node class (and, as napkit grows, plans NodeClaims
// for pending pods, consolidation moves and node bootstrap data).
//
// Usage:
//
//	napkit instance-types [--region eastus] [--nodeclass FILE] [--catalog FILE] [--prices FILE] [-o json|table]
//	napkit plan -f FILE ... [--region eastus] [--seed N] [-o json|table|svg]
//	napkit consolidate -f FILE ... [--now RFC3339] [--region eastus] [--spot-to-spot] [-o json|table]
//	napkit bootstrap -f FILE ... --nodepool NAME --instance-type SKU [--zone Z]
//	napkit --version
//
// With no --catalog it uses the catalogue embedded in the library (eastus and westus2), so it needs no
// Azure account and no cluster.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/napkit/napkit/buildinfo"
)

// command is one subcommand: its name, a one-line summary, and the function that runs it.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

func commands() map[string]command {
	return map[string]command{
		"instance-types": {summary: "list the instance types of a region for a node class", run: runInstanceTypes},
		"plan":           {summary: "plan the cheapest NodeClaims for the pending pods in the manifests", run: runPlan},
		"bootstrap":      {summary: "print the image and bootstrap data a node of one shape boots with", run: runBootstrap},
		"consolidate":    {summary: "decide which nodes to delete or replace with cheaper ones, and which to leave alone", run: runConsolidate},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit code, so tests can call it.
func run(args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr, cmds)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "version" {
		fmt.Fprintln(stdout, buildinfo.Line("napkit"))
		return 0
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "napkit: unknown command %q\n", args[0])
		usage(stderr, cmds)
		return 2
	}
	if err := cmd.run(args[1:], stdout, stderr); err != nil {
		if err == errHelp {
			return 0
		}
		fmt.Fprintf(stderr, "napkit %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

func usage(w io.Writer, cmds map[string]command) {
	names := make([]string, 0, len(cmds))
	for name := range cmds {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("usage: napkit <command> [flags]\n\ncommands:\n")
	for _, name := range names {
		fmt.Fprintf(&b, "  %-16s %s\n", name, cmds[name].summary)
	}
	b.WriteString("\nRun 'napkit <command> -h' for a command's flags, 'napkit --version' for the build.\n")
	fmt.Fprint(w, b.String())
}

// parseArgs parses a subcommand's flags: -h is errHelp, and words after the flags are an error
// (every input is a flag, so a stray word is a typo, not an argument).
func parseArgs(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return nil
}
