package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/napkit/napkit/manifest"
)

// Exit codes, as the flag package and kubectl use them.
const (
	exitOK    = 0
	exitError = 1 // the input was read and refused, or the work failed
	exitUsage = 2 // the command line itself is wrong: a flag, a value, a missing argument
)

// errHelp is returned by a subcommand that printed its help on request.
var errHelp = errors.New("help requested")

// usageError is a mistake on the command line: it exits 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef builds a usageError; %w wraps as in fmt.Errorf.
func usagef(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// relabeled says err in the CLI's words (a flag instead of a library field) and still wraps it, so
// errors.Is and errors.As see the library's error.
type relabeled struct {
	msg string
	err error
}

func (e *relabeled) Error() string { return e.msg }
func (e *relabeled) Unwrap() error { return e.err }

// exitCode maps a subcommand's error to the process's exit code.
func exitCode(err error) int {
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return exitOK
	case errors.As(err, &ue):
		return exitUsage
	}
	return exitError
}

// parseArgs parses a subcommand's flags. The flag package's own printing is silenced so that an error
// is printed once, by run; -h and --help print the flags to stdout (help that was asked for is
// output, not an error) and return errHelp. Words after the flags are an error: every input is a
// flag, so a stray word is a typo, not an argument.
func parseArgs(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "usage: napkit %s [flags]\n\nflags:\n", fs.Name())
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return errHelp
		}
		return &usageError{err: fmt.Errorf("%w (see napkit %s -h)", err, fs.Name())}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %q: every input is a flag (see napkit %s -h)", fs.Args(), fs.Name())
	}
	return nil
}

// manifestFiles is a repeatable -f flag; "-" is standard input.
type manifestFiles []string

func (m *manifestFiles) String() string     { return strings.Join(*m, ",") }
func (m *manifestFiles) Set(v string) error { *m = append(*m, v); return nil }

// read decodes the files into one Set and prints the reader's notes (skipped kinds, defaults napkit
// chose, references to objects not in the manifests) to stderr, so nothing is left out silently.
func (m manifestFiles) read(stdin io.Reader, stderr io.Writer) (*manifest.Set, error) {
	return m.decode(&manifest.Decoder{Stdin: stdin}, stderr)
}

// decode is read with d, whose Stdin is what "-" reads.
func (m manifestFiles) decode(d *manifest.Decoder, stderr io.Writer) (*manifest.Set, error) {
	if len(m) == 0 {
		return nil, usagef("-f: at least one manifest file is required (- reads standard input)")
	}
	if stdinCount := len(slices.DeleteFunc(slices.Clone(m), func(f string) bool { return f != manifest.Stdin })); stdinCount > 1 {
		return nil, usagef("-f -: standard input can be read only once")
	}
	set, err := d.DecodeFiles(m...)
	if err != nil {
		return nil, err
	}
	for _, n := range set.Notes {
		writeNote(stderr, n.Object, n.Field, n.Message)
	}
	return set, nil
}

func writeNote(w io.Writer, object, field, message string) {
	parts := []string{"note:"}
	for _, p := range []string{object, field} {
		if p != "" {
			parts = append(parts, p+":")
		}
	}
	fmt.Fprintln(w, strings.Join(append(parts, message), " "))
}

// outputFlag is -o: one of a fixed set of formats; json and yaml print the same document.
type outputFlag struct {
	value   string
	formats []string
}

func (o *outputFlag) register(fs *flag.FlagSet, def string, formats ...string) {
	o.formats = formats
	fs.StringVar(&o.value, "o", def, "output format: "+strings.Join(formats, ", "))
}

func (o *outputFlag) validate() error {
	if !slices.Contains(o.formats, o.value) {
		return usagef("-o: want %s, got %q", strings.Join(o.formats, ", "), o.value)
	}
	return nil
}

// writeDocument writes v as indented JSON, or as YAML with the same field names (the JSON contract
// documented in README.md, converted), for -o json and -o yaml.
func writeDocument(w io.Writer, format string, v any) error {
	if format != "yaml" {
		return writeJSON(w, v)
	}
	data, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}
