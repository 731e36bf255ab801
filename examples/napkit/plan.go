package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/manifest"
	"github.com/napkit/napkit/provisioner"
	corev1 "k8s.io/api/core/v1"
)

func runPlan(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	var cat catalogueFlags
	cat.register(fs)
	var snap snapshotFlags
	snap.register(fs)
	var files manifestFiles
	fs.Var(&files, "f", "manifest file or directory (repeatable; - reads standard input): NodePools, AKSNodeClasses, Pods, workloads, Nodes, DaemonSets, volumes")
	var output outputFlag
	output.register(fs, "json", "json", "yaml", "table", "svg")
	seed := fs.Uint64("seed", 0, "seed for ties between equally priced offerings")
	compact := fs.Bool("compact", false, fmt.Sprintf("with -o json: one line without indentation, each NodeClaim's "+
		"instanceTypeOptions cut to its first %d names (the launch list is otherwise up to 600)", compactOptions))
	if err := parseArgs(fs, args, stdout); err != nil {
		return err
	}
	if err := output.validate(); err != nil {
		return err
	}
	if err := snap.validate(); err != nil {
		return err
	}
	cat.preload()
	s, _, err := readSnapshot(&cat, snap, files, stdin, stderr, time.Now)
	if err != nil {
		return err
	}
	in := s.ProvisionerInput(provisioner.Options{Seed: *seed})
	plan, err := provisioner.Solve(in)
	if err != nil {
		return err
	}
	plan.Region = cat.region
	switch output.value {
	case "svg":
		return writePlanSVG(stdout, plan, podsByName(in.Pods))
	case "table":
		return writePlanTable(stdout, plan)
	}
	if *compact && output.value == "json" {
		return writeCompactPlan(stdout, plan)
	}
	return writeDocument(stdout, output.value, plan)
}

// compactOptions is how many launch options --compact keeps per NodeClaim: the cheapest ones, which
// are the ones a launch tries first.
const compactOptions = 10

// writeCompactPlan writes plan as one line of JSON with short launch lists; 10,000 pods give a few
// MB instead of tens.
func writeCompactPlan(w io.Writer, plan *provisioner.Plan) error {
	for i := range plan.NodeClaims {
		if opts := plan.NodeClaims[i].InstanceTypeOptions; len(opts) > compactOptions {
			plan.NodeClaims[i].InstanceTypeOptions = opts[:compactOptions:compactOptions]
		}
	}
	return json.NewEncoder(w).Encode(plan)
}

func podsByName(pods []*corev1.Pod) map[string]*corev1.Pod {
	out := make(map[string]*corev1.Pod, len(pods))
	for _, pod := range pods {
		out[pod.Namespace+"/"+pod.Name] = pod
	}
	return out
}

func nodeClassFor(set *manifest.Set, pool *api.NodePool) (*api.AKSNodeClass, error) {
	name := pool.Spec.Template.Spec.NodeClassRef.Name
	if nc := set.NodeClass(name); nc != nil {
		return nc, nil
	}
	return nil, fmt.Errorf("NodePool %s: spec.template.spec.nodeClassRef.name: AKSNodeClass %q is not in the manifests", pool.Name, name)
}

func writePlanTable(w io.Writer, plan *provisioner.Plan) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODECLAIM\tNODEPOOL\tINSTANCE TYPE\tZONE\tCAPACITY TYPE\t$/H\tPODS")
	for _, nc := range plan.NodeClaims {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.4f\t%d\n", nc.Name, nc.NodePool, nc.InstanceType, nc.Zone, nc.CapacityType, nc.PricePerHour, len(nc.Pods))
	}
	for _, node := range plan.ExistingNodes {
		fmt.Fprintf(tw, "%s\t(existing)\t\t\t\t\t%d\n", node.Name, len(node.Pods))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, u := range plan.Unschedulable {
		fmt.Fprintf(w, "pending %s: %s: %s\n", u.Pod, u.Code, u.Reason)
	}
	_, err := fmt.Fprintf(w, "\n%d NodeClaims, $%.4f/h (lower bound $%.4f/h), %d pods, %d pending, solved in %d ms\n",
		len(plan.NodeClaims), plan.Cost.PricePerHour, plan.Cost.LowerBoundPerHour, plan.Stats.Pods, len(plan.Unschedulable), plan.Stats.SolveMillis)
	return err
}
