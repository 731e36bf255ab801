package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/pricing"
	"github.com/napkit/napkit/provisioner"
)

// TestCompactPlanJSON: appendPlanJSON writes exactly what json.Encoder wrote for --compact, on a
// solved plan and on plans with every optional field, nil and empty lists and maps, text that
// encoding/json escapes, and floats in both of its number formats.
func TestCompactPlanJSON(t *testing.T) {
	odd := []string{"<a&b>", `quote"back\slash`, "tab\tnew\nline", "é", "line\u2028sep", "bad\xffutf8", "\x01", ""}
	tests := []struct {
		name    string
		plan    *provisioner.Plan
		wantErr bool
	}{
		{"solved seed", solvedPlan(t, "testdata/seed-walkthrough.yaml"), false},
		{"empty", &provisioner.Plan{Kind: "Plan"}, false},
		{"empty lists and maps", &provisioner.Plan{Kind: "Plan", NodeClaims: []provisioner.NodeClaim{{
			InstanceTypeOptions: []string{}, Capacity: corev1.ResourceList{}, Labels: map[string]string{},
			Taints: []corev1.Taint{}, StartupTaints: []corev1.Taint{}, Pods: []string{}, BufferPods: []string{},
		}}, ExistingNodes: []provisioner.NodePlacement{{Pods: []string{}, BufferPods: []string{}}},
			InFlightClaims: []provisioner.NodePlacement{}, Unschedulable: []provisioner.Unschedulable{},
			UnmetPreferences: []provisioner.UnmetPreference{}}, false},
		{"every optional field", fullPlan(odd), false},
		{"odd text everywhere", oddPlan(odd), false},
		{"a float encoding/json refuses", &provisioner.Plan{Kind: "Plan",
			NodeClaims: []provisioner.NodeClaim{{PricePerHour: math.NaN()}}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want bytes.Buffer
			wantErr := json.NewEncoder(&want).Encode(tt.plan)
			got, err := appendPlanJSON(nil, tt.plan)
			if tt.wantErr {
				require.Error(t, wantErr)
				assert.Error(t, err)
				return
			}
			require.NoError(t, wantErr)
			require.NoError(t, err)
			assert.Equal(t, want.String(), string(got)+"\n")
			assert.LessOrEqual(t, len(got), compactSizeHint(tt.plan)+len(got)/2, "the size hint is near")
		})
	}
}

// TestCompactPlanJSONFields fails when a field appendPlanJSON does not know is added to the types it
// writes itself: add it there (in its JSON order), then here.
func TestCompactPlanJSONFields(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want []string
	}{
		{reflect.TypeFor[provisioner.Plan](), []string{"kind", "region,omitempty", "nodeClaims", "existingNodes",
			"inFlightClaims,omitempty", "unschedulable", "unmetPreferences,omitempty", "cost", "stats", "-"}},
		{reflect.TypeFor[provisioner.NodeClaim](), []string{"name", "nodePool", "instanceType", "instanceTypeOptions",
			"zone", "capacityType", "pricePerHour", "vmPricePerHour", "diskPricePerHour", "capacity", "allocatable",
			"requests", "labels", "taints", "startupTaints,omitempty", "pods", "bufferPods,omitempty",
			"minValuesRelaxed,omitempty"}},
		{reflect.TypeFor[provisioner.NodePlacement](), []string{"name", "pods", "bufferPods,omitempty"}},
	}
	for _, tt := range tests {
		t.Run(tt.typ.Name(), func(t *testing.T) {
			var got []string
			for f := range tt.typ.Fields() {
				got = append(got, f.Tag.Get("json"))
			}
			assert.Equal(t, tt.want, got)
			_, marshaler := reflect.PointerTo(tt.typ).MethodByName("MarshalJSON")
			assert.False(t, marshaler, "a MarshalJSON of its own would replace the fields")
		})
	}
}

// BenchmarkCompactPlanJSON writes the plan of 10,000 pods (BenchmarkPlanCLI's) with encoding/json, as
// --compact did, and with appendPlanJSON.
func BenchmarkCompactPlanJSON(b *testing.B) {
	path := filepath.Join(b.TempDir(), "pods.yaml")
	require.NoError(b, os.WriteFile(path, []byte(podsYAML(b, 10000)), 0o600))
	plan := solvedPlan(b, path)
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			require.NoError(b, json.NewEncoder(io.Discard).Encode(plan))
		}
	})
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, err := appendPlanJSON(make([]byte, 0, compactSizeHint(plan)), plan)
			require.NoError(b, err)
		}
	})
}

// solvedPlan is `napkit plan --compact`'s plan of the manifests at path, its launch lists cut.
func solvedPlan(tb testing.TB, path string) *provisioner.Plan {
	cat := catalogueFlags{region: "eastus", network: api.DefaultClusterNetwork()}
	s, _, err := readSnapshot(&cat, snapshotFlags{maxPods: 1 << 20}, manifestFiles{path}, nil, io.Discard, time.Now)
	require.NoError(tb, err)
	plan, err := provisioner.Solve(s.ProvisionerInput(provisioner.Options{}))
	require.NoError(tb, err)
	plan.Region = cat.region
	for i := range plan.NodeClaims {
		if opts := plan.NodeClaims[i].InstanceTypeOptions; len(opts) > compactOptions {
			plan.NodeClaims[i].InstanceTypeOptions = opts[:compactOptions:compactOptions]
		}
	}
	return plan
}

// fullPlan sets every field of the types appendPlanJSON writes, and floats in exponent form.
func fullPlan(odd []string) *provisioner.Plan {
	added := metav1.NewTime(time.Date(2026, 12, 4, 21, 0, 0, 0, time.UTC))
	taints := []corev1.Taint{{Key: "k", Value: odd[0], Effect: corev1.TaintEffectNoSchedule, TimeAdded: &added}}
	return &provisioner.Plan{Kind: "Plan", Region: "eastus",
		NodeClaims: []provisioner.NodeClaim{{Name: "a", NodePool: "p", InstanceType: "Standard_D2s_v3",
			InstanceTypeOptions: []string{"Standard_D2s_v3", "Standard_D4s_v3"}, Zone: "eastus-1", CapacityType: "spot",
			PricePerHour: 1e-7, VMPricePerHour: 1e21, DiskPricePerHour: 0.1 + 0.2,
			Capacity:    corev1.ResourceList{"memory": resource.MustParse("1.5Gi"), "cpu": resource.MustParse("100m")},
			Allocatable: corev1.ResourceList{"cpu": resource.MustParse("1e3"), "pods": *resource.NewQuantity(110, resource.DecimalSI)},
			Requests:    corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")},
			Labels:      map[string]string{"b": "2", "a": "1", "c": ""}, Taints: taints, StartupTaints: taints,
			Pods: []string{"default/x", "default/y"}, BufferPods: []string{"buffer/b-0"}, MinValuesRelaxed: true},
			{Name: "b", PricePerHour: pricing.MissingPrice, VMPricePerHour: math.Copysign(0, -1)}},
		ExistingNodes:    []provisioner.NodePlacement{{Name: "n", Pods: []string{"default/z"}, BufferPods: []string{"buffer/b-1"}}},
		InFlightClaims:   []provisioner.NodePlacement{{Name: "c", Pods: []string{"default/w"}}},
		Unschedulable:    []provisioner.Unschedulable{{Pod: "default/u", Code: provisioner.CodeNoNodePool, Reason: odd[0], CapacityBuffer: "b"}},
		UnmetPreferences: []provisioner.UnmetPreference{{Pod: "default/x", Preference: odd[1]}},
		Cost:             provisioner.Cost{PricePerHour: 1.5, LowerBoundPerHour: 1e-9},
		Stats:            provisioner.Stats{Pods: 3, Strategy: provisioner.StrategyNapkit, SolveMillis: 7},
		PlacementOrder:   []string{"not written"},
	}
}

// oddPlan puts each string encoding/json escapes in every string appendPlanJSON writes itself.
func oddPlan(odd []string) *provisioner.Plan {
	plan := &provisioner.Plan{Kind: odd[0], Region: odd[1]}
	for i, s := range odd {
		plan.NodeClaims = append(plan.NodeClaims, provisioner.NodeClaim{Name: s, NodePool: s, InstanceType: s,
			InstanceTypeOptions: []string{s}, Zone: s, CapacityType: s,
			Capacity: corev1.ResourceList{corev1.ResourceName(s): resource.MustParse("1")},
			Labels:   map[string]string{s: s, "k": s}, Pods: odd[i:], BufferPods: []string{s}})
		plan.ExistingNodes = append(plan.ExistingNodes, provisioner.NodePlacement{Name: s, Pods: []string{s}})
	}
	return plan
}
