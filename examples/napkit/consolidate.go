package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/napkit/napkit/consolidation"
)

// consolidateFlags are the inputs of `napkit consolidate`.
type consolidateFlags struct {
	cat         catalogueFlags
	snap        snapshotFlags
	files       manifestFiles
	output      outputFlag
	now         string
	seed        uint64
	spotToSpot  bool
	split       bool
	manyToMany  bool
	maxCommands int
}

func (c *consolidateFlags) register(fs *flag.FlagSet) {
	c.cat.register(fs)
	c.snap.register(fs)
	fs.Var(&c.files, "f", "manifest file or directory (repeatable; - reads standard input): Nodes, bound and pending Pods, NodeClaims, NodePools, AKSNodeClasses, PodDisruptionBudgets, DaemonSets")
	c.output.register(fs, "json", "json", "yaml", "table")
	fs.StringVar(&c.now, "now", "", "decision time, RFC 3339 (default: the current time)")
	fs.Uint64Var(&c.seed, "seed", 0, "seed for ties between equally priced offerings")
	fs.BoolVar(&c.spotToSpot, "spot-to-spot", false, "allow replacing spot nodes with cheaper spot nodes")
	fs.BoolVar(&c.split, "allow-split", false, "allow replacing one node by two cheaper ones")
	fs.BoolVar(&c.manyToMany, "allow-many-to-many", false, "allow replacing M nodes by N > 1 cheaper ones")
	fs.IntVar(&c.maxCommands, "max-commands", 0, "cap the consolidation commands of one pass (0: no cap)")
}

// decisionTime parses --now; empty means the current time, the only clock read of the command.
func (c *consolidateFlags) decisionTime() (time.Time, error) {
	if c.now == "" {
		return time.Now(), nil
	}
	t, err := time.Parse(time.RFC3339, c.now)
	if err != nil {
		return time.Time{}, usagef("--now: want an RFC 3339 time such as 2026-01-02T15:04:05Z, got %q", c.now)
	}
	return t, nil
}

func (c *consolidateFlags) validate() error {
	if c.maxCommands < 0 {
		return usagef("--max-commands: must not be negative, got %d", c.maxCommands)
	}
	if err := c.snap.validate(); err != nil {
		return err
	}
	return c.output.validate()
}

func (c *consolidateFlags) options() consolidation.Options {
	opts := consolidation.Options{SpotToSpot: c.spotToSpot, AllowSplit: c.split, AllowManyToMany: c.manyToMany,
		MaxCommands: c.maxCommands}
	opts.Provisioner.Seed = c.seed
	return opts
}

func runConsolidate(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("consolidate", flag.ContinueOnError)
	var c consolidateFlags
	c.register(fs)
	if err := parseArgs(fs, args, stdout); err != nil {
		return err
	}
	if err := c.validate(); err != nil {
		return err
	}
	now, err := c.decisionTime()
	if err != nil {
		return err
	}
	c.cat.preload()
	s, catalogues, err := readSnapshot(&c.cat, c.snap, c.files, stdin, stderr, func() time.Time { return now })
	if err != nil {
		return err
	}
	if err := knownInstanceTypes(s, catalogues); err != nil {
		return err
	}
	in := s.ConsolidationInput(c.options())
	plan, err := consolidation.Decide(in)
	if err != nil {
		return err
	}
	if c.output.value == "table" {
		return writeConsolidationTable(stdout, plan)
	}
	return writeDocument(stdout, c.output.value, plan)
}

func writeConsolidationTable(w io.Writer, plan *consolidation.Plan) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "COMMAND\tREASON\tNODES\tREPLACEMENT\t$/H SAVED\tPODS MOVED")
	for _, c := range plan.Commands {
		reason := string(c.Reason)
		if c.Detail != "" {
			reason += " (" + c.Detail + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.4f\t%d\n", c.Kind, reason, strings.Join(c.Nodes, ","),
			replacementText(c), c.SavingsPerHour, len(c.Moves))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range plan.Commands {
		if len(c.Changed) > 0 {
			fmt.Fprintf(w, "changed %s (%s): %s\n", strings.Join(c.Nodes, ","), c.Detail, strings.Join(c.Changed, "; "))
		}
	}
	for _, c := range plan.Commands {
		if len(c.PacedBy) > 0 {
			fmt.Fprintf(w, "paced %s: drains one allowance at a time under %s\n", strings.Join(c.Nodes, ","), strings.Join(c.PacedBy, ", "))
		}
	}
	for _, d := range plan.Deferred {
		fmt.Fprintf(w, "deferred %s %s %s ($%.4f/h): %s\n", d.Kind, d.Reason, strings.Join(d.Nodes, ","), d.SavingsPerHour, deferralText(d))
	}
	for _, b := range plan.Blocked {
		fmt.Fprintf(w, "blocked %s: %s\n", b.Node, b.Reason)
	}
	s := plan.Stats
	_, err := fmt.Fprintf(w, "\n%d commands over %d nodes (%d candidates), $%.4f/h saved, %d evictions (%.1f per $/h), decided in %d ms\n",
		len(plan.Commands), s.Nodes, s.Candidates, s.SavingsPerHour, s.Evictions, s.EvictionsPerDollar, s.DecideMillis)
	return err
}

// replacementText names a command's new NodeClaims: type, zone and capacity type, or "-".
func replacementText(c consolidation.Command) string {
	claims := c.Replacements
	if len(claims) == 0 && c.Replacement != nil {
		claims = append(claims, *c.Replacement)
	}
	if len(claims) == 0 {
		return "-"
	}
	parts := make([]string, len(claims))
	for i, nc := range claims {
		parts[i] = fmt.Sprintf("%s %s %s $%.4f", nc.InstanceType, nc.Zone, nc.CapacityType, nc.PricePerHour)
	}
	return strings.Join(parts, "; ")
}

// deferralText says which PDBs a deferred command would overdraw, e.g. "pdb default/web: 1
// evictions, 0 allowed".
func deferralText(d consolidation.Deferred) string {
	parts := make([]string, len(d.Budgets))
	for i, b := range d.Budgets {
		parts[i] = fmt.Sprintf("pdb %s: %d evictions, %d allowed", b.PodDisruptionBudget, b.Evictions, b.Allowed)
	}
	return strings.Join(parts, "; ")
}
