package provisioner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
)

// TestReasonTextsGolden pins the pending reasons' wording, quantities included, against
// testdata/reasons.golden.txt (-update rewrites it). Quantities print as kubectl shows them: whole
// cores ("1000 CPU", never "1k"), binary suffixes ("16Gi"), and memory that is no whole number of
// Mi rounded to Mi rather than printed in raw bytes.
func TestReasonTextsGolden(t *testing.T) {
	odd := fakeType(typeSpec{name: "odd-memory", cpu: "4", memory: "15891378995"}) // a real node's odd byte count
	cases := []struct {
		name string
		in   Input
	}{
		{"cpu beyond every type", Input{Pods: []*corev1.Pod{pod("big", "96", "")}, NodePools: []NodePoolInput{{
			NodePool: nodePool("np"), InstanceTypes: []*instancetype.InstanceType{odd}}}}},
		{"fractional cpu beyond every type", Input{Pods: []*corev1.Pod{pod("big", "4500m", "")}, NodePools: []NodePoolInput{{
			NodePool: nodePool("np"), InstanceTypes: []*instancetype.InstanceType{odd}}}}},
		{"memory beyond every type", Input{Pods: []*corev1.Pod{pod("big", "1", "16Gi")}, NodePools: []NodePoolInput{{
			NodePool: nodePool("np"), InstanceTypes: []*instancetype.InstanceType{odd}}}}},
		{"memory limit", limitInput(corev1.ResourceMemory, "16Gi", odd, pods(3, "m", "1", "5Gi"))},
		{"cpu limit of 1000 cores", limitInput(corev1.ResourceCPU, "1000", fakeType(typeSpec{name: "big", cpu: "600", memory: "64Gi"}),
			pods(2, "c", "500", ""))},
		{"ephemeral storage", Input{Pods: []*corev1.Pod{pod("disk", "1", "", withRequest(corev1.ResourceEphemeralStorage, "200Gi"))},
			NodePools: []NodePoolInput{{NodePool: nodePool("np"), InstanceTypes: []*instancetype.InstanceType{odd}}}}},
		{"eastus: more CPU than the pool allows", Input{Pods: []*corev1.Pod{pod("big", "96", "")}, NodePools: []NodePoolInput{{
			NodePool:      nodePool("general-purpose", req(api.LabelSKUCPU, corev1.NodeSelectorOpLt, "65")),
			InstanceTypes: eastusTypes(t)}}}},
	}
	var b strings.Builder
	for _, tc := range cases {
		plan := solveOrFail(t, tc.in)
		fmt.Fprintf(&b, "## %s\n", tc.name)
		for _, u := range plan.Unschedulable {
			fmt.Fprintf(&b, "%s %s: %s\n", u.Pod, u.Code, u.Reason)
		}
	}
	path := filepath.Join("testdata", "reasons.golden.txt")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestReasonTextsGolden -update to create it)", err)
	}
	if b.String() != string(want) {
		t.Fatalf("reasons differ from %s:\n--- got\n%s--- want\n%s", path, b.String(), want)
	}
	for _, bad := range []string{"1k CPU", "15891378995"} {
		if strings.Contains(b.String(), bad) {
			t.Errorf("reasons print %q", bad)
		}
	}
}

// limitInput is a pool of one type with a limit on one resource, and pods that overrun it.
func limitInput(name corev1.ResourceName, limit string, it *instancetype.InstanceType, ps []*corev1.Pod) Input {
	np := nodePool("limited")
	np.Spec.Limits = corev1.ResourceList{name: resource.MustParse(limit)}
	return Input{Pods: ps, NodePools: []NodePoolInput{{NodePool: np, InstanceTypes: []*instancetype.InstanceType{it}}}}
}
