package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/manifest"
	"github.com/napkit/napkit/snapshot"
)

// snapshotFlags are the flags of the commands that read a cluster from manifests.
type snapshotFlags struct {
	maxPods int64
}

func (f *snapshotFlags) register(fs *flag.FlagSet) {
	fs.Int64Var(&f.maxPods, "max-pods", snapshot.DefaultMaxPods,
		"most pods the manifests' Deployments, ReplicaSets, StatefulSets and Jobs may expand to, in all")
}

func (f *snapshotFlags) validate() error {
	if f.maxPods < 1 {
		return usagef("--max-pods: must be at least 1, got %d", f.maxPods)
	}
	return nil
}

// readSnapshot reads the manifests and takes their snapshot at now(), asked once the manifests are
// read, with the collector relaxed meanwhile (relaxGCWhileReading), off while the files are decoded
// and their garbage collected beside the snapshot (pauseGCWhileDecoding). Pods of one shape share their
// decoded spec (manifest.Decoder.ShareTemplates), which saves a deep copy per pod: the set is
// handed to snapshot.Read, and neither it nor the planners write to a pod (snapshot's
// TestSharedPodSpecsStayUnchanged). The first node class's catalogue is built while the rest is read
// (buildEarly).
func readSnapshot(cat *catalogueFlags, f snapshotFlags, files manifestFiles, stdin io.Reader, stderr io.Writer,
	now func() time.Time) (*snapshot.Snapshot, map[string]*catalogue, error) {
	defer relaxGCWhileReading()()
	resume := pauseGCWhileDecoding(files)
	set, err := files.decode(&manifest.Decoder{Stdin: stdin, ShareTemplates: true, NodeClassRead: cat.buildEarly}, stderr)
	collected := resume()
	defer collected()
	if err != nil {
		return nil, nil, err
	}
	return takeSnapshot(cat, f, set, now())
}

// takeSnapshot reads the manifests' cluster (each NodePool paired with its node class's catalogue)
// and derives what `napkit plan` and `napkit consolidate` both decide from, through the library's one
// derivation. Manifests are strict: an object that does not fit the others is an error. The set is
// handed over (the commands read it no more), which saves a deep copy of every pod.
func takeSnapshot(cat *catalogueFlags, f snapshotFlags, set *manifest.Set, now time.Time) (*snapshot.Snapshot, map[string]*catalogue, error) {
	pools, catalogues, err := poolInputs(cat, set)
	if err != nil {
		return nil, nil, err
	}
	objects, err := snapshot.Read(set, pools, snapshot.ReadOptions{MaxPods: f.maxPods, Owned: true})
	if err != nil {
		return nil, nil, err
	}
	s, err := snapshot.Take(objects, snapshot.Options{Now: now, Strict: true})
	return s, catalogues, err
}

// knownInstanceTypes refuses a node of a NodePool labelled with a size the region's SKU list lacks:
// it could be neither priced nor replaced like for like, and consolidation would count it as free. A
// size the list has but the node class excludes is drift (InstanceTypeNotFound), which consolidation
// handles.
func knownInstanceTypes(s *snapshot.Snapshot, catalogues map[string]*catalogue) error {
	for _, n := range s.Nodes {
		node := n.Node.Node
		pool, managed := node.Labels[api.LabelNodePool]
		cat := catalogues[pool]
		name := node.Labels[api.LabelInstanceType]
		if !managed || cat == nil || cat.Lists(name) {
			continue
		}
		return fmt.Errorf("Node %s: metadata.labels[%s]: %q is not a VM size of region %s (see napkit instance-types)",
			node.Name, api.LabelInstanceType, name, cat.Region)
	}
	return nil
}
