package bootstrap

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func testMachine(t *testing.T, size, zone, claim string) *Machine {
	t.Helper()
	var zones []string
	if zone != "" {
		zones = []string{zone}
	}
	m, err := BuildMachine(MachineInput{VMSize: size, Zones: zones, OSType: "Linux", OSSKU: "Ubuntu",
		NodeImageVersion: "AKSUbuntu-2204gen2containerd-202411.12.0", OrchestratorVersion: "1.33.2", MaxPods: 250,
		Tags: map[string]string{TagNodeClaim: claim, "team": "a"}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestGroupBatches(t *testing.T) {
	var reqs []MachineRequest
	for i := range 120 {
		name := fmt.Sprintf("pool-%03d", i)
		size := "Standard_D2s_v5"
		if i%4 == 3 {
			size = "Standard_D4s_v5"
		}
		reqs = append(reqs, MachineRequest{Name: name, Machine: testMachine(t, size, fmt.Sprint(1+i%3), name)})
	}
	batches, err := GroupBatches(reqs)
	if err != nil {
		t.Fatal(err)
	}
	// 90 D2 machines -> 50 + 40; 30 D4 machines -> 30; order of first appearance.
	var sizes []string
	var counts []int
	total := 0
	for _, b := range batches {
		sizes = append(sizes, b.Template.Properties.Hardware.VMSize)
		counts = append(counts, len(b.Members))
		total += len(b.Members)
		if b.Template.Zones != nil || b.Template.Properties.Tags != nil {
			t.Errorf("template keeps per-machine fields: %+v", b.Template)
		}
		if len(b.Members) > MaxBatchSize {
			t.Errorf("batch of %d", len(b.Members))
		}
	}
	if fmt.Sprint(sizes) != "[Standard_D2s_v5 Standard_D4s_v5 Standard_D2s_v5]" || fmt.Sprint(counts) != "[50 30 40]" || total != 120 {
		t.Errorf("batches = %v %v", sizes, counts)
	}
	h, err := batches[1].Header()
	if err != nil || !strings.HasPrefix(h, `{"batchMachines":[{"machineName":"pool-003","zones":["1"],"tags":{`) ||
		!strings.Contains(h, `"karpenter.azure.com_aksmachine_nodeclaim":"pool-003"`) {
		t.Errorf("header = %s, %v", h, err)
	}
	if reqs[0].Machine.Properties.Tags[TagNodeClaim] != "pool-000" {
		t.Error("GroupBatches modified a machine")
	}
}

func TestGroupBatchesErrors(t *testing.T) {
	m := testMachine(t, "Standard_D2s_v5", "1", "a")
	for _, reqs := range [][]MachineRequest{
		{{Name: "a", Machine: m}, {Name: "a", Machine: m}},
		{{Name: "a"}},
		{{Machine: m}},
	} {
		if _, err := GroupBatches(reqs); !errors.Is(err, ErrInvalid) {
			t.Errorf("GroupBatches(%v) error = %v", reqs, err)
		}
	}
}

func TestBuildMachineErrors(t *testing.T) {
	for _, in := range []MachineInput{
		{VMSize: "x", OSType: "Plan9", NodeImageVersion: "v", MaxPods: 1},
		{VMSize: "x", OSType: "Linux", MaxPods: 1},
		{OSType: "Linux", NodeImageVersion: "v", MaxPods: 1},
		{VMSize: "x", OSType: "Linux", NodeImageVersion: "v"},
		{VMSize: "x", OSType: "Linux", NodeImageVersion: "v", MaxPods: 1, SubnetID: "/bad"},
		{VMSize: "x", OSType: "Linux", NodeImageVersion: "v", MaxPods: 1, Labels: map[string]string{"a b": "c"}},
	} {
		if _, err := BuildMachine(in); !errors.Is(err, ErrInvalid) {
			t.Errorf("BuildMachine(%+v) error = %v", in, err)
		}
	}
}

func TestMachineLabels(t *testing.T) {
	got := MachineLabels(map[string]string{"kubernetes.io/arch": "amd64", "topology.kubernetes.io/zone": "z",
		"node.kubernetes.io/instance-type": "x", "example.k8s.io/a": "b", "kubernetes.azure.com/mode": "user", "team": "a"})
	if len(got) != 2 || got["team"] != "a" || got["kubernetes.azure.com/mode"] != "user" {
		t.Errorf("MachineLabels = %v", got)
	}
}
