package azure_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
)

const (
	testClusterRG    = "rg"
	testMachinesPool = "karpenter"
	testNodeImage    = "AKSUbuntu-2204gen2containerd-202501.01.0"
)

// machineMode puts a fixture's launcher in the AKS Machine API mode; the
// simulator puts machine VMs in MC_rg_napkit_<location>, which is testRG.
func machineMode(o *azure.Options) {
	o.Mode = imagefamily.ModeMachineAPI
	o.ClusterResourceGroup = testClusterRG
	o.MachinesPool = testMachinesPool
}

// testMachine is a Machine body as imagefamily builds it; the launcher sets
// the size, zone and priority of the offering it picks.
func testMachine(t testing.TB) *bootstrap.Machine {
	t.Helper()
	m, err := bootstrap.BuildMachine(bootstrap.MachineInput{
		VMSize: "Standard_D2s_v5", OSType: "Linux", OSSKU: "Ubuntu", OSDiskSizeGB: 128,
		NodeImageVersion: testNodeImage, OrchestratorVersion: "1.33.2", MaxPods: 250,
		Labels: map[string]string{"kubernetes.azure.com/mode": "user", "team": "infra"},
		Tags:   map[string]string{"compute.aks.billing": "linux", "team": "infra"},
	})
	require.NoError(t, err)
	return m
}

// machineRequest is request() for the Machine API modes.
func machineRequest(t testing.TB, name string, candidates ...launch.Candidate) *launch.Request {
	t.Helper()
	return &launch.Request{NodeClaimName: name, NodePool: "default", Candidates: candidates, Machine: testMachine(t)}
}
