package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
)

const driftImage = "/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204gen2containerd/versions/"

// driftNode is a Node and its NodeClaim launched from a class with osDiskSizeGB launchedDisk,
// booting image version image with kubelet version kubelet.
func driftNode(name string, launchedDisk int32, image, kubelet string) string {
	launched := &api.AKSNodeClass{Spec: api.AKSNodeClassSpec{ImageFamily: ptr("Ubuntu"), OSDiskSizeGB: &launchedDisk}}
	ann := consolidation.NodeClassHashAnnotations(launched)
	return fmt.Sprintf(`---
apiVersion: v1
kind: Node
metadata:
  name: %[1]s
  creationTimestamp: "2026-03-01T00:00:00Z"
  labels: {karpenter.sh/nodepool: general-purpose, node.kubernetes.io/instance-type: Standard_D2als_v6,
    topology.kubernetes.io/zone: eastus-1, karpenter.sh/capacity-type: on-demand, kubernetes.io/arch: amd64, kubernetes.io/os: linux}
status:
  nodeInfo: {kubeletVersion: %[5]s}
  conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-03-01T00:02:00Z"}]
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: %[1]s
  creationTimestamp: "2026-03-01T00:00:00Z"
  labels: {karpenter.sh/nodepool: general-purpose, node.kubernetes.io/instance-type: Standard_D2als_v6}
  annotations: {karpenter.azure.com/aksnodeclass-hash: %[2]q, karpenter.azure.com/aksnodeclass-hash-version: %[3]q,
    napkit.io/aksnodeclass-field-hashes: %[4]q}
spec:
  nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}
  requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [Standard_D2als_v6]}]
status:
  nodeName: %[1]s
  imageID: %[6]q
`, name, ann[api.AnnotationAKSNodeClassHash], ann[api.AnnotationAKSNodeClassHashVersion],
		ann[api.AnnotationAKSNodeClassFieldHashes], kubelet, driftImage+image)
}

func ptr[T any](v T) *T { return &v }

// `napkit consolidate` shows each drift reason with what changed, as JSON and as a table.
func TestConsolidateShowsDrift(t *testing.T) {
	manifest := strings.Replace(poolAndClass(t, "testdata/consolidate-mixed.yaml"), "consolidateAfter: 0s", "consolidateAfter: Never", 1)
	manifest = manifest[:len(manifest)-len("  imageFamily: Ubuntu\n")] + `  imageFamily: Ubuntu
  osDiskSizeGB: 256
status:
  kubernetesVersion: 1.33.2
  images:
    - id: ` + driftImage + `202612.01.0
      requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]
`
	manifest += driftNode("aks-disk", 128, "202612.01.0", "v1.33.2") +
		driftNode("aks-image", 256, "202611.01.0", "v1.33.2") +
		driftNode("aks-version", 256, "202612.01.0", "v1.32.9") +
		driftNode("aks-current", 256, "202612.01.0", "v1.33.2")
	path := writeTemp(t, "drift.yaml", manifest)
	plan, _ := runConsolidateCLI(t, "-f", path, "--now", goldenNow)
	got := map[string][2]string{}
	for _, c := range plan.Commands {
		require.Len(t, c.Nodes, 1)
		changed := ""
		if len(c.Changed) > 0 {
			changed = c.Changed[0]
		}
		got[c.Nodes[0]] = [2]string{c.Detail, changed}
	}
	assert.Equal(t, [2]string{consolidation.DriftNodeClass, "spec.osDiskSizeGB"}, got["aks-disk"])
	assert.Equal(t, [2]string{consolidation.DriftImage, "image " + driftImage + "202611.01.0 -> " + driftImage + "202612.01.0"}, got["aks-image"])
	assert.Equal(t, [2]string{consolidation.DriftKubernetesVersion, "kubernetesVersion 1.32.9 -> 1.33.2"}, got["aks-version"])
	assert.Empty(t, planReason(plan, "aks-current"), "the current node is not drifted")

	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"consolidate", "-f", path, "--now", goldenNow, "-o", "table"}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "changed aks-disk (NodeClassDrifted): spec.osDiskSizeGB")
}

func planReason(plan *consolidation.Plan, node string) consolidation.Reason {
	for _, c := range plan.Commands {
		for _, n := range c.Nodes {
			if n == node {
				return c.Reason
			}
		}
	}
	return ""
}
