package api

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNodePoolDefault(t *testing.T) {
	tests := []struct {
		name            string
		yaml            string
		wantExpire      string
		wantConsolidate string
		wantPolicy      ConsolidationPolicy
		wantBudgets     []Budget
		wantRef         NodeClassReference
		wantNote        string
	}{{
		name: "everything absent",
		yaml: `
metadata: {name: general}
spec:
  template:
    spec:
      nodeClassRef: {name: default}`,
		wantExpire: "720h0m0s", wantConsolidate: "0s", wantPolicy: ConsolidationPolicyWhenEmptyOrUnderutilized,
		wantBudgets: []Budget{{Nodes: "10%"}},
		wantRef:     NodeClassReference{Group: AzureGroup, Kind: KindAKSNodeClass, Name: "default"},
		wantNote:    `defaulted group karpenter.azure.com and kind AKSNodeClass: the reference names only "default"`,
	}, {
		name: "explicit values kept",
		yaml: `
metadata: {name: p}
spec:
  template:
    spec:
      expireAfter: Never
      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: c}
  disruption:
    consolidateAfter: Never
    consolidationPolicy: WhenEmpty
    budgets: []`,
		wantExpire: "Never", wantConsolidate: "Never", wantPolicy: ConsolidationPolicyWhenEmpty,
		wantBudgets: []Budget{},
		wantRef:     NodeClassReference{Group: AzureGroup, Kind: KindAKSNodeClass, Name: "c"},
	}, {
		name: "budget nodes and kind only",
		yaml: `
metadata: {name: p}
spec:
  template:
    spec:
      expireAfter: 24h
      nodeClassRef: {group: karpenter.azure.com, name: c}
  disruption:
    consolidateAfter: 5m
    budgets: [{schedule: "@daily", duration: 10m}, {nodes: "3"}]`,
		wantExpire: "24h0m0s", wantConsolidate: "5m0s", wantPolicy: ConsolidationPolicyWhenEmptyOrUnderutilized,
		wantBudgets: []Budget{{Nodes: "10%", Schedule: ptr("@daily"), Duration: fromYAML[Budget](t, "{nodes: x, duration: 10m}").Duration}, {Nodes: "3"}},
		wantRef:     NodeClassReference{Group: AzureGroup, Kind: KindAKSNodeClass, Name: "c"},
		wantNote:    "defaulted kind AKSNodeClass",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := fromYAML[NodePool](t, tt.yaml)
			notes := np.Default()
			assert.Equal(t, tt.wantExpire, np.Spec.Template.Spec.ExpireAfter.String())
			assert.Equal(t, tt.wantConsolidate, np.Spec.Disruption.ConsolidateAfter.String())
			assert.Equal(t, tt.wantPolicy, np.Spec.Disruption.ConsolidationPolicy)
			assert.Equal(t, tt.wantBudgets, np.Spec.Disruption.Budgets)
			assert.Equal(t, tt.wantRef, *np.Spec.Template.Spec.NodeClassRef)
			if tt.wantNote == "" {
				assert.Empty(t, notes)
			} else {
				require.Len(t, notes, 1)
				assert.Equal(t, "NodePool/"+np.Name, notes[0].Object)
				assert.Equal(t, "spec.template.spec.nodeClassRef", notes[0].Field)
				assert.Contains(t, notes[0].Message, tt.wantNote)
			}
			assert.NoError(t, np.Validate())
			assert.Empty(t, np.Default(), "Default is idempotent and says nothing the second time")
		})
	}
}

func TestAKSNodeClassDefault(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want string // the spec after Default, as YAML
	}{{
		name: "empty spec",
		yaml: `metadata: {name: default}`,
		want: `{imageFamily: Ubuntu, osDiskSizeGB: 128}`,
	}, {
		name: "set values kept, no kubelet or gpu block created",
		yaml: `{metadata: {name: c}, spec: {imageFamily: AzureLinux, osDiskSizeGB: 64}}`,
		want: `{imageFamily: AzureLinux, osDiskSizeGB: 64}`,
	}, {
		name: "empty kubelet and gpu blocks get their defaults",
		yaml: `{metadata: {name: c}, spec: {kubelet: {}, gpu: {}}}`,
		want: `{imageFamily: Ubuntu, osDiskSizeGB: 128, gpu: {mode: Driver},
  kubelet: {cpuManagerPolicy: none, cpuCFSQuota: true, cpuCFSQuotaPeriod: 100ms, topologyManagerPolicy: none,
    containerLogMaxSize: 50Mi, containerLogMaxFiles: 5}}`,
	}, {
		name: "kubelet values kept",
		yaml: `{metadata: {name: c}, spec: {kubelet: {cpuManagerPolicy: static, cpuCFSQuota: false, containerLogMaxFiles: 3}, gpu: {mode: None}}}`,
		want: `{imageFamily: Ubuntu, osDiskSizeGB: 128, gpu: {mode: None},
  kubelet: {cpuManagerPolicy: static, cpuCFSQuota: false, cpuCFSQuotaPeriod: 100ms, topologyManagerPolicy: none,
    containerLogMaxSize: 50Mi, containerLogMaxFiles: 3}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nc := fromYAML[AKSNodeClass](t, tt.yaml)
			nc.Default()
			assert.Equal(t, *fromYAML[AKSNodeClassSpec](t, tt.want), nc.Spec)
			assert.NoError(t, nc.Validate())
		})
	}
}

func TestNodeClaimDefault(t *testing.T) {
	c := fromYAML[NodeClaim](t, `{metadata: {name: c}, spec: {requirements: [], nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: d}}}`)
	c.Default()
	assert.Equal(t, 720*time.Hour, *c.Spec.ExpireAfter.Duration)

	never := fromYAML[NodeClaim](t, `{metadata: {name: c}, spec: {expireAfter: Never, requirements: [], nodeClassRef: {name: d}}}`)
	never.Default()
	assert.True(t, never.Spec.ExpireAfter.IsNever())
}
