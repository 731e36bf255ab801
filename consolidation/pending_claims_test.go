package consolidation

import (
	"testing"
)

// fxTwoSmallNodesPending is fxTwoSmallNodes("500m") with one pending pod of cpu.
func fxTwoSmallNodesPending(cpu string) func() Input {
	return func() Input {
		in := fxTwoSmallNodes("500m")()
		in.PendingPods = append(in.PendingPods, fxPod("pending", cpu, "100Mi"))
		return in
	}
}

// TestPendingPodsNeedingClaimsBlockDeletes: Karpenter's computeConsolidation proposes a delete only
// when its simulation, which places the pending pods too, opens no NodeClaim; pending pods that fit
// nowhere at all do not count (AllNonPendingPodsScheduled). Without pending pods b is deleted and
// its pod moves to a (row 36 of the scenarios).
func TestPendingPodsNeedingClaimsBlockDeletes(t *testing.T) {
	fxRunScenarios(t, []fxScenario{
		{name: "no pending pod: b is deleted", build: fxTwoSmallNodes("500m"), want: []string{"delete Underutilized [b]"}},
		{name: "a pending pod that fits a after the move: b is deleted", build: fxTwoSmallNodesPending("100m"),
			want: []string{"delete Underutilized [b]"}},
		{name: "a pending pod that needs a new NodeClaim: nothing", build: fxTwoSmallNodesPending("1"), want: []string{}},
		{name: "a pending pod no type can hold: b is deleted", build: fxTwoSmallNodesPending("64"),
			want: []string{"delete Underutilized [b]"}},
	})
}
