// Command napkit plans Kubernetes nodes on Azure from the manifests users already write, offline: it
// lists the instance-type catalogue for a region and node class (and, as napkit grows, plans NodeClaims
// for pending pods, consolidation moves and node bootstrap data).
//
// Usage:
//
//	napkit instance-types [--region eastus] [--nodeclass FILE] [--catalog FILE] [--prices FILE] [-o table|json|yaml]
//	napkit plan -f FILE ... [--region eastus] [--seed N] [-o json|yaml|table|svg]
//	napkit consolidate -f FILE ... [--now RFC3339] [--region eastus] [--spot-to-spot] [-o json|yaml|table]
//	napkit bootstrap -f FILE ... --nodepool NAME --instance-type SKU [--zone Z] [-o json|yaml]
//	napkit --version
//
// -f - reads standard input. Exit codes: 0 success or help (printed to stdout), 1 input refused or
// work failed, 2 a command-line mistake; the error is printed once.
//
// With no --catalog it uses the catalogue embedded in the library (eastus and westus2), so it needs no
// Azure account and no cluster.
package main

import (
	"errors"
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
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) error
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

// run is main without the process: it returns the exit code, so tests can call it. Standard input
// is the process's; runIO takes it as an argument.
func run(args []string, stdout, stderr io.Writer) int { return runIO(args, os.Stdin, stdout, stderr) }

// runIO runs one command line. Help that was asked for goes to stdout with exit 0; a command-line
// mistake is printed once to stderr with exit 2; an input that is refused, or work that fails, exits
// 1.
func runIO(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 {
		usage(stderr, cmds)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout, cmds)
		return exitOK
	case "--version", "-version", "version":
		fmt.Fprintln(stdout, buildinfo.Line("napkit"))
		return exitOK
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "napkit: unknown command %q\n", args[0])
		usage(stderr, cmds)
		return exitUsage
	}
	err := cmd.run(args[1:], stdin, stdout, stderr)
	if err != nil && !errors.Is(err, errHelp) {
		fmt.Fprintf(stderr, "napkit %s: %v\n", args[0], err)
	}
	return exitCode(err)
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
