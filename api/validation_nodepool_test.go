package api

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// validNodePool is the seed's general-purpose NodePool with a scheduled budget and a taint added.
const validNodePool = `
metadata:
  name: general-purpose
  annotations: {kubernetes.io/description: "General purpose NodePool"}
spec:
  template:
    metadata:
      labels: {kubernetes.azure.com/ebpf-dataplane: cilium, team: web}
    spec:
      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}
      startupTaints: [{key: node.cilium.io/agent-not-ready, effect: NoExecute, value: "true"}]
      taints: [{key: dedicated, value: web, effect: NoSchedule}]
      requirements:
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
        - {key: kubernetes.io/os, operator: In, values: [linux]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        - {key: karpenter.azure.com/sku-family, operator: In, values: [D]}
      expireAfter: Never
      terminationGracePeriod: 48h
  limits: {cpu: 100, nodes: 10}
  weight: 10
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 0s
    budgets:
      - {nodes: "10%"}
      - {nodes: "0", reasons: [Drifted], schedule: "0 9 * * mon-fri", duration: 8h}
      - {nodes: "100%", schedule: "@daily", duration: 10m}
`

func TestNodePoolValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(np *NodePool)
		want   string
	}{
		{"valid", func(*NodePool) {}, ""},
		{"valid static pool", func(np *NodePool) {
			np.Spec.Replicas, np.Spec.Weight = ptr(int64(3)), nil
			np.Spec.Limits = corev1.ResourceList{"nodes": resource.MustParse("5")}
		}, ""},

		// metadata
		{"no name", func(np *NodePool) { np.Name = "" }, "metadata.name: every object needs a name"},
		{"name not DNS", func(np *NodePool) { np.Name = "General_Purpose" }, `metadata.name: a lowercase RFC 1123 subdomain`},
		{"name too long for a label", func(np *NodePool) { np.Name = strings.Repeat("a", 64) }, `metadata.name: the name is used as a label value: must be no more than 63 bytes`},

		// template metadata
		{"karpenter label", func(np *NodePool) { np.Spec.Template.ObjectMeta.Labels[LabelCapacityType] = "spot" },
			`spec.template.metadata.labels[karpenter.sh/capacity-type]: label domain karpenter.sh is reserved for Karpenter's own labels (select capacity type with a karpenter.sh/capacity-type requirement instead), got "karpenter.sh/capacity-type"`},
		{"nodepool label", func(np *NodePool) { np.Spec.Template.ObjectMeta.Labels[LabelNodePool] = "x" },
			`spec.template.metadata.labels[karpenter.sh/nodepool]: label domain karpenter.sh is reserved`},
		{"hostname label", func(np *NodePool) { np.Spec.Template.ObjectMeta.Labels[LabelHostname] = "x" },
			`spec.template.metadata.labels[kubernetes.io/hostname]: kubernetes.io/hostname is restricted`},
		{"agentpool label", func(np *NodePool) { np.Spec.Template.ObjectMeta.Labels["kubernetes.azure.com/agentpool"] = "x" },
			`spec.template.metadata.labels[kubernetes.azure.com/agentpool]: AKS sets this label`},
		{"hyperv label", func(np *NodePool) { np.Spec.Template.ObjectMeta.Labels[LabelSKUHyperVGeneration] = "2" },
			`spec.template.metadata.labels[karpenter.azure.com/sku-hyperv-generation]: karpenter.azure.com/sku-hyperv-generation is restricted`},
		{"kubernetes.io label", func(np *NodePool) { np.Spec.Template.ObjectMeta.Labels["kubernetes.io/role"] = "x" },
			`spec.template.metadata.labels[kubernetes.io/role]: label domain kubernetes.io is restricted`},
		{"bad label value", func(np *NodePool) { np.Spec.Template.ObjectMeta.Labels["team"] = "web team" },
			`spec.template.metadata.labels[team]: invalid label value: `},
		{"unknown well-known label value", func(np *NodePool) { np.Spec.Template.ObjectMeta.Labels[LabelAKSMode] = "batch" },
			`spec.template.metadata.labels[kubernetes.azure.com/mode]: kubernetes.azure.com/mode can only be system, user, got "batch"`},
		{"bad annotation key", func(np *NodePool) { np.Spec.Template.ObjectMeta.Annotations = map[string]string{"a b": "x"} },
			`spec.template.metadata.annotations: name part must consist of alphanumeric characters`},

		// requirements
		{"too many requirements", func(np *NodePool) {
			for range 97 {
				np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements, req("example.com/x", corev1.NodeSelectorOpExists))
			}
		}, `spec.template.spec.requirements: must have at most 100 items, got 101`},
		{"bad requirement path", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements[2] = req(LabelSKUCPU, corev1.NodeSelectorOpGt, "a")
		}, `spec.template.spec.requirements[2]: operator Gt needs exactly one non-negative integer, got ["a"]`},
		{"restricted requirement key", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements[0].Key = LabelHostname
		}, `spec.template.spec.requirements[0].key: kubernetes.io/hostname is restricted`},

		// taints
		{"taint without effect", func(np *NodePool) { np.Spec.Template.Spec.Taints[0].Effect = "" },
			`spec.template.spec.taints[0].effect: one of NoSchedule, PreferNoSchedule, NoExecute`},
		{"taint bad effect", func(np *NodePool) { np.Spec.Template.Spec.Taints[0].Effect = "Sometimes" },
			`spec.template.spec.taints[0].effect: must be one of NoSchedule, PreferNoSchedule, NoExecute, got "Sometimes"`},
		{"taint bad key", func(np *NodePool) { np.Spec.Template.Spec.Taints[0].Key = "-bad" },
			`spec.template.spec.taints[0].key: invalid taint key: `},
		{"taint bad value", func(np *NodePool) { np.Spec.Template.Spec.Taints[0].Value = "a b" },
			`spec.template.spec.taints[0].value: invalid taint value: `},
		{"duplicate taint", func(np *NodePool) {
			np.Spec.Template.Spec.Taints = append(np.Spec.Template.Spec.Taints, corev1.Taint{Key: "dedicated", Value: "db", Effect: "NoSchedule"})
		}, `spec.template.spec.taints[1]: duplicate taint key and effect, got "dedicated:NoSchedule"`},
		{"startup taint", func(np *NodePool) { np.Spec.Template.Spec.StartupTaints[0].Effect = "Never" },
			`spec.template.spec.startupTaints[0].effect: must be one of`},

		// node class reference
		{"no nodeClassRef", func(np *NodePool) { np.Spec.Template.Spec.NodeClassRef = nil },
			`spec.template.spec.nodeClassRef: name the AKSNodeClass nodes are built from`},
		{"no nodeClassRef name", func(np *NodePool) { np.Spec.Template.Spec.NodeClassRef.Name = "" },
			`spec.template.spec.nodeClassRef.name: name the AKSNodeClass`},
		{"other kind", func(np *NodePool) { np.Spec.Template.Spec.NodeClassRef.Kind = "EC2NodeClass" },
			`spec.template.spec.nodeClassRef.kind: napkit only builds nodes from karpenter.azure.com AKSNodeClass, got "EC2NodeClass"`},
		{"other group", func(np *NodePool) { np.Spec.Template.Spec.NodeClassRef.Group = "karpenter.k8s.aws" },
			`spec.template.spec.nodeClassRef.group: napkit only builds nodes from karpenter.azure.com AKSNodeClass, got "karpenter.k8s.aws"`},

		// durations
		{"fractional grace period", func(np *NodePool) {
			np.Spec.Template.Spec.TerminationGracePeriod = &metav1.Duration{Duration: 1500 * time.Millisecond}
		},
			`spec.template.spec.terminationGracePeriod: must be a non-negative whole number of seconds (s, m, h units), got "1.5s"`},
		{"negative expireAfter", func(np *NodePool) { np.Spec.Template.Spec.ExpireAfter = NewDuration(-time.Hour) },
			`spec.template.spec.expireAfter: must be a non-negative whole number of seconds (s, m, h units), got "-1h0m0s"`},
		{"negative consolidateAfter", func(np *NodePool) { np.Spec.Disruption.ConsolidateAfter = NewDuration(-time.Second) },
			`spec.disruption.consolidateAfter: must be a non-negative whole number of seconds`},

		// weight, limits, static pools
		{"weight zero", func(np *NodePool) { np.Spec.Weight = ptr(int32(0)) }, `spec.weight: must be between 1 and 100, got 0`},
		{"weight too high", func(np *NodePool) { np.Spec.Weight = ptr(int32(101)) }, `spec.weight: must be between 1 and 100, got 101`},
		{"negative limit", func(np *NodePool) { np.Spec.Limits["cpu"] = resource.MustParse("-1") }, `spec.limits[cpu]: must not be negative, got "-1"`},
		{"static with weight", func(np *NodePool) { np.Spec.Replicas = ptr(int64(1)); delete(np.Spec.Limits, "cpu") },
			`spec.weight: weight is not supported on static NodePools (replicas set), got 10`},
		{"static with cpu limit", func(np *NodePool) { np.Spec.Replicas, np.Spec.Weight = ptr(int64(1)), nil },
			`spec.limits[cpu]: only limits.nodes is supported on static NodePools (replicas set), got "cpu"`},
		{"negative replicas", func(np *NodePool) { np.Spec.Replicas, np.Spec.Weight, np.Spec.Limits = ptr(int64(-1)), nil, nil },
			`spec.replicas: must be at least 0, got -1`},

		// disruption
		{"policy", func(np *NodePool) { np.Spec.Disruption.ConsolidationPolicy = "Always" },
			`spec.disruption.consolidationPolicy: must be one of WhenEmpty, WhenEmptyOrUnderutilized, Balanced, got "Always"`},
		{"budget percent over 100", func(np *NodePool) { np.Spec.Disruption.Budgets[0].Nodes = "101%" },
			`spec.disruption.budgets[0].nodes: must be a node count such as 5 or a percentage from 0% to 100%, got "101%"`},
		{"budget negative", func(np *NodePool) { np.Spec.Disruption.Budgets[0].Nodes = "-1" }, `spec.disruption.budgets[0].nodes: must be a node count`},
		{"budget word", func(np *NodePool) { np.Spec.Disruption.Budgets[0].Nodes = "all" }, `spec.disruption.budgets[0].nodes: must be a node count`},
		{"too many budgets", func(np *NodePool) {
			for range 48 {
				np.Spec.Disruption.Budgets = append(np.Spec.Disruption.Budgets, Budget{Nodes: "1"})
			}
		}, `spec.disruption.budgets: must have at most 50 items, got 51`},
		{"reason", func(np *NodePool) { np.Spec.Disruption.Budgets[1].Reasons[0] = "Expired" },
			`spec.disruption.budgets[1].reasons[0]: must be one of Underutilized, Empty, Drifted, got "Expired"`},
		{"schedule without duration", func(np *NodePool) { np.Spec.Disruption.Budgets[1].Duration = nil },
			`spec.disruption.budgets[1].duration: duration must be set with schedule`},
		{"duration without schedule", func(np *NodePool) { np.Spec.Disruption.Budgets[1].Schedule = nil },
			`spec.disruption.budgets[1].schedule: schedule must be set with duration`},
		{"cron field count", func(np *NodePool) { np.Spec.Disruption.Budgets[1].Schedule = ptr("* * *") },
			`spec.disruption.budgets[1].schedule: invalid cron schedule: want 5 fields (minute hour day-of-month month day-of-week), got 3, got "* * *"`},
		{"cron minute range", func(np *NodePool) { np.Spec.Disruption.Budgets[1].Schedule = ptr("61 * * * *") },
			`spec.disruption.budgets[1].schedule: invalid cron schedule: minute: value 61 is outside 0-59, got "61 * * * *"`},
		{"cron macro", func(np *NodePool) { np.Spec.Disruption.Budgets[1].Schedule = ptr("@every 5m") },
			`spec.disruption.budgets[1].schedule: invalid cron schedule: unknown macro "@every 5m"`},
		{"duration seconds", func(np *NodePool) {
			np.Spec.Disruption.Budgets[1].Duration = &metav1.Duration{Duration: 90 * time.Second}
		},
			`spec.disruption.budgets[1].duration: must be a positive whole number of minutes (h and m units only), got "1m30s"`},
		{"duration zero", func(np *NodePool) { np.Spec.Disruption.Budgets[1].Duration = &metav1.Duration{} },
			`spec.disruption.budgets[1].duration: must be a positive whole number of minutes`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := fromYAML[NodePool](t, validNodePool)
			tt.mutate(np)
			assertInvalid(t, np.Validate(), tt.want)
		})
	}
}

func TestNodePoolValidateAggregates(t *testing.T) {
	np := fromYAML[NodePool](t, validNodePool)
	np.Spec.Weight = ptr(int32(0))
	np.Spec.Disruption.Budgets[0].Nodes = "x"
	err := np.Validate()
	require.Error(t, err)
	assert.Equal(t, `spec.weight: must be between 1 and 100, got 0`, messagePart(err, "spec.weight"))
	assert.Len(t, errs(err), 2, "Unwrap exposes one error per problem")
	var ve *ValidationError
	require.True(t, errors.As(err, &ve))
	assert.Len(t, ve.Errors, 2)
	paths := []string{ve.Errors[0].Field, ve.Errors[1].Field}
	assert.ElementsMatch(t, []string{"spec.weight", "spec.disruption.budgets[0].nodes"}, paths)
	var fe *FieldError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "spec.disruption.budgets[0].nodes", fe.Field, "the first in field order")
	assert.Equal(t, "x", fe.Value, "the value as given")
	assert.Equal(t, ErrInvalid, fe.Kind)
}

// errs returns the joined errors of a ValidationError.
func errs(err error) []error { return err.(interface{ Unwrap() []error }).Unwrap() }

// messagePart returns the "; "-separated part of err's message that starts with prefix.
func messagePart(err error, prefix string) string {
	for _, part := range strings.Split(err.Error(), "; ") {
		if strings.HasPrefix(part, prefix) {
			return part
		}
	}
	return ""
}
