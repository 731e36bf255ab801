package consolidation

import (
	"maps"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

func int32p(v int32) *int32 { return &v }

func launchedFrom(class *api.AKSNodeClass) *api.NodeClaim {
	nc := ruleClaim("nc", ruleNow)
	nc.Annotations = NodeClassHashAnnotations(class)
	nc.Annotations[api.AnnotationClusterNetwork] = ClusterNetworkAnnotation(api.DefaultClusterNetwork())
	return nc
}

// Each provider drift kind fires for exactly the field that changed, and says what changed.
// upstream: pkg/cloudprovider/drift.go (the checks and their order), pkg/apis/v1beta1/aksnodeclass.go
// (spec.tags is hash:"ignore": tags are updated in place, never a reason to replace a node).
func TestProviderDrift(t *testing.T) {
	it := ruleType("Standard_D2s_v5", 0.1)
	pool := rulePool("p")
	const sig = "/subscriptions/x/resourceGroups/AKS-Ubuntu/providers/Microsoft.Compute/galleries/AKSUbuntu/images/"
	newClass := func() *api.AKSNodeClass {
		c := &api.AKSNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
		c.Spec.OSDiskSizeGB = int32p(128)
		c.Spec.Tags = map[string]string{"team": "a"}
		c.Status.KubernetesVersion = "1.33.2"
		c.Status.Images = []api.NodeImage{{ID: sig + "2204gen2containerd/versions/202612.01.0"}, {ID: sig + "2204gen2arm64containerd/versions/202612.01.0"}}
		return c
	}
	network := api.DefaultClusterNetwork()
	identity := "11111111-1111-1111-1111-111111111111"
	tests := []struct {
		name    string
		change  func(n *Node, c *api.AKSNodeClass, cluster *ClusterConfig)
		want    string
		changed []string
	}{
		{name: "nothing changed"},
		{name: "osDiskSizeGB", want: DriftNodeClass, changed: []string{"spec.osDiskSizeGB"},
			change: func(_ *Node, c *api.AKSNodeClass, _ *ClusterConfig) { c.Spec.OSDiskSizeGB = int32p(256) }},
		{name: "maxPods and kubelet", want: DriftNodeClass, changed: []string{"spec.kubelet", "spec.maxPods"},
			change: func(_ *Node, c *api.AKSNodeClass, _ *ClusterConfig) {
				c.Spec.MaxPods = int32p(50)
				c.Spec.Kubelet = &api.KubeletConfiguration{ContainerLogMaxFiles: int32p(3)}
			}},
		{name: "security profile", want: DriftNodeClass, changed: []string{"spec.security"},
			change: func(_ *Node, c *api.AKSNodeClass, _ *ClusterConfig) {
				on := true
				c.Spec.Security = &api.Security{EncryptionAtHost: &on}
			}},
		{name: "subnet", want: DriftNodeClass, changed: []string{"spec.vnetSubnetID"},
			change: func(_ *Node, c *api.AKSNodeClass, _ *ClusterConfig) {
				s := "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/other"
				c.Spec.VNETSubnetID = &s
			}},
		{name: "FIPS", want: DriftNodeClass, changed: []string{"spec.fipsMode"},
			change: func(_ *Node, c *api.AKSNodeClass, _ *ClusterConfig) {
				m := api.FIPSModeFIPS
				c.Spec.FIPSMode = &m
			}},
		{name: "tags are updated in place, not drift",
			change: func(_ *Node, c *api.AKSNodeClass, _ *ClusterConfig) { c.Spec.Tags["team"] = "b" }},
		{name: "a defaulted field written out is not drift",
			change: func(_ *Node, c *api.AKSNodeClass, _ *ClusterConfig) { c.Default() }},
		{name: "only the hash version differs: nothing rolls",
			change: func(n *Node, c *api.AKSNodeClass, _ *ClusterConfig) {
				n.NodeClaim.Annotations[api.AnnotationAKSNodeClassHashVersion] = "napkit-v0"
				c.Spec.OSDiskSizeGB = int32p(256)
			}},
		{name: "hash without field hashes still drifts", want: DriftNodeClass, changed: []string{"spec"},
			change: func(n *Node, c *api.AKSNodeClass, _ *ClusterConfig) {
				delete(n.NodeClaim.Annotations, api.AnnotationAKSNodeClassFieldHashes)
				c.Spec.OSDiskSizeGB = int32p(256)
			}},
		{name: "Kubernetes version", want: DriftKubernetesVersion, changed: []string{"kubernetesVersion 1.33.2 -> 1.34.0"},
			change: func(_ *Node, c *api.AKSNodeClass, _ *ClusterConfig) { c.Status.KubernetesVersion = "1.34.0" }},
		{name: "Kubernetes version not ready: no drift",
			change: func(_ *Node, c *api.AKSNodeClass, _ *ClusterConfig) {
				c.Status.KubernetesVersion = "1.34.0"
				c.Status.Conditions = []metav1.Condition{{Type: "KubernetesVersionReady", Status: metav1.ConditionFalse}}
			}},
		{name: "kubelet identity", want: DriftKubeletIdentity,
			changed: []string{"kubelet identity client ID 00000000-0000-0000-0000-000000000002 -> " + identity},
			change: func(n *Node, _ *api.AKSNodeClass, cl *ClusterConfig) {
				n.Node.Labels[api.LabelKubeletIdentityClientID] = "00000000-0000-0000-0000-000000000002"
				cl.KubeletIdentityClientID = identity
			}},
		{name: "kubelet identity label missing: no drift",
			change: func(_ *Node, _ *api.AKSNodeClass, cl *ClusterConfig) { cl.KubeletIdentityClientID = identity }},
		{name: "network plugin mode", want: DriftClusterConfig, changed: []string{`network pluginMode "overlay" -> ""`},
			change: func(_ *Node, _ *api.AKSNodeClass, cl *ClusterConfig) {
				n := network
				n.PluginMode = ""
				cl.Network = &n
			}},
		{name: "network dataplane", want: DriftClusterConfig, changed: []string{`network dataplane "cilium" -> "azure"`},
			change: func(_ *Node, _ *api.AKSNodeClass, cl *ClusterConfig) {
				n := network
				n.Dataplane = api.NetworkDataplaneAzure
				cl.Network = &n
			}},
		{name: "network policy is not drift",
			change: func(_ *Node, _ *api.AKSNodeClass, cl *ClusterConfig) {
				n := network
				n.Policy = "cilium"
				cl.Network = &n
			}},
		{name: "image bumped", want: DriftImage,
			changed: []string{"image " + sig + "2204gen2containerd/versions/202611.01.0 -> " + sig + "2204gen2containerd/versions/202612.01.0"},
			change: func(n *Node, _ *api.AKSNodeClass, _ *ClusterConfig) {
				n.NodeClaim.Status.ImageID = sig + "2204gen2containerd/versions/202611.01.0"
			}},
		{name: "images not ready: no drift",
			change: func(n *Node, c *api.AKSNodeClass, _ *ClusterConfig) {
				n.NodeClaim.Status.ImageID = sig + "2204gen2containerd/versions/202611.01.0"
				c.Status.Conditions = []metav1.Condition{{Type: "ImagesReady", Status: metav1.ConditionFalse}}
			}},
		{name: "NodeClass drift comes before image drift", want: DriftNodeClass, changed: []string{"spec.osDiskSizeGB"},
			change: func(n *Node, c *api.AKSNodeClass, _ *ClusterConfig) {
				n.NodeClaim.Status.ImageID = sig + "2204gen2containerd/versions/202611.01.0"
				c.Spec.OSDiskSizeGB = int32p(256)
			}},
		{name: "a Drifted condition keeps what changed", want: DriftNodeClass, changed: []string{"spec.maxPods", "spec.osDiskSizeGB"},
			change: func(n *Node, _ *api.AKSNodeClass, _ *ClusterConfig) {
				n.NodeClaim.Status.Conditions = []metav1.Condition{{Type: api.ConditionDrifted, Status: metav1.ConditionTrue,
					Reason: DriftNodeClass, Message: "spec.maxPods; spec.osDiskSizeGB"}}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			class := newClass()
			n := ruleNode("n1", "p", it.Name, "eastus-1", api.CapacityTypeOnDemand)
			n.NodeClaim = launchedFrom(class)
			n.NodeClaim.Status.ImageID = class.Status.Images[0].ID
			n.Node.Status.NodeInfo.KubeletVersion = "v1.33.2"
			cluster := ClusterConfig{Network: &network}
			if tt.change != nil {
				tt.change(n, class, &cluster)
			}
			got, changed := driftReason(ruleCandidate(n, pool, class, it), NodePoolHash(pool), cluster, ruleNow)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.changed, changed)
		})
	}
}

// upstream: pkg/controllers/nodeclass/hash/controller.go updateNodeClaimHash.
func TestRestampNodeClassHash(t *testing.T) {
	class := &api.AKSNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	class.Spec.OSDiskSizeGB = int32p(256)
	old := map[string]string{api.AnnotationAKSNodeClassHash: "42", api.AnnotationAKSNodeClassHashVersion: "napkit-v0", "keep": "me"}

	nc := ruleClaim("nc", ruleNow)
	nc.Annotations = maps.Clone(old)
	got, ok := RestampNodeClassHash(nc, class)
	require.True(t, ok)
	assert.Equal(t, NodeClassHash(class), got[api.AnnotationAKSNodeClassHash])
	assert.Equal(t, NodeClassHashVersion, got[api.AnnotationAKSNodeClassHashVersion])
	assert.Equal(t, "me", got["keep"])
	assert.Equal(t, old, nc.Annotations, "the claim is not modified")
	nc.Annotations = got
	kind, _ := driftReason(ruleCandidate(&Node{Node: ruleNode("n", "p", "t", "eastus-1", "on-demand").Node, NodeClaim: nc}, rulePool("p"), class, nil),
		"", ClusterConfig{}, ruleNow)
	assert.NotEqual(t, DriftNodeClass, kind, "a re-stamped claim matches its class")

	drifted := ruleClaim("nc", ruleNow)
	drifted.Annotations = maps.Clone(old)
	drifted.Status.Conditions = []metav1.Condition{{Type: api.ConditionDrifted, Status: metav1.ConditionTrue, Reason: DriftNodeClass}}
	got, ok = RestampNodeClassHash(drifted, class)
	require.True(t, ok)
	assert.Equal(t, "42", got[api.AnnotationAKSNodeClassHash], "a drifted claim keeps its hash")
	assert.Equal(t, NodeClassHashVersion, got[api.AnnotationAKSNodeClassHashVersion])

	current := ruleClaim("nc", ruleNow)
	current.Annotations = NodeClassHashAnnotations(class)
	_, ok = RestampNodeClassHash(current, class)
	assert.False(t, ok, "a claim of this version needs nothing")
}

func TestNodeClassHashIgnoresOrderAndTags(t *testing.T) {
	a := &api.AKSNodeClass{}
	a.Spec.Kubelet = &api.KubeletConfiguration{AllowedUnsafeSysctls: []string{"net.a", "kernel.b"}}
	b := &api.AKSNodeClass{}
	b.Spec.Kubelet = &api.KubeletConfiguration{AllowedUnsafeSysctls: []string{"kernel.b", "net.a"}}
	b.Spec.Tags = map[string]string{"x": "y"}
	assert.Equal(t, NodeClassHash(a), NodeClassHash(b))
	assert.Regexp(t, `^[0-9]+$`, NodeClassHash(a))
	assert.Empty(t, NodeClassHash(nil))
	assert.Equal(t, []string{"net.a", "kernel.b"}, a.Spec.Kubelet.AllowedUnsafeSysctls, "the class is not modified")
}
