//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/examples/controller/internal/simnodes"
	"github.com/napkit/napkit/launch/azuresim"
	"github.com/napkit/napkit/repair"
)

// upkeepStack is a stack with the AKSNodeClass status writer on, the seed objects applied, the
// seed pool's budget at one node at a time, and three nodes each running one "web" pod (required
// anti-affinity) under a PDB allowing one disruption.
func upkeepStack(t *testing.T, tune func(*controller.Config)) (*stack, string) {
	t.Helper()
	s := startStack(t, stackOptions{upkeep: true, tune: tune})
	ctx := t.Context()
	applySeed(t, s.c)
	budget := []byte(`{"spec":{"disruption":{"budgets":[{"nodes":"1"}]}}}`)
	_, err := s.c.dyn.Resource(nodePoolsGVR).Patch(ctx, seedPool, types.MergePatchType, budget, metav1.PatchOptions{})
	require.NoError(t, err)
	waitUntil(t, time.Minute, "AKSNodeClass default Ready with images of "+upkeepImage, func(ctx context.Context) error {
		return classImages(ctx, s, upkeepImage)
	})
	ns := s.c.newNamespace(t, "upkeep")
	_, err = s.c.kube.AppsV1().Deployments(ns).Create(ctx, spread(ns, "web", 3), metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = s.c.kube.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, pdb(ns, "web", 1), metav1.CreateOptions{})
	require.NoError(t, err)
	waitUntil(t, 2*time.Minute, "three web pods running", func(ctx context.Context) error {
		_, err := s.c.runningPods(ctx, ns, "web", 3)
		return err
	})
	return s, ns
}

// defaultNodeClass reads the seed's AKSNodeClass "default" as the library type.
func defaultNodeClass(ctx context.Context, s *stack) (*api.AKSNodeClass, error) {
	u, err := s.c.dyn.Resource(nodeClassGVR).Get(ctx, "default", metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return controller.FromUnstructured[api.AKSNodeClass](u)
}

// classImages is nil once the default AKSNodeClass is Ready and every status image has version.
func classImages(ctx context.Context, s *stack, version string) error {
	class, err := defaultNodeClass(ctx, s)
	if err != nil {
		return err
	}
	if !meta.IsStatusConditionTrue(class.Status.Conditions, "Ready") || class.Status.KubernetesVersion == "" || len(class.Status.Images) == 0 {
		return fmt.Errorf("status not ready: %+v", class.Status)
	}
	for _, img := range class.Status.Images {
		if !strings.HasSuffix(img.ID, "/versions/"+version) {
			return fmt.Errorf("image %s is not version %s", img.ID, version)
		}
	}
	return nil
}

// rollWatch samples the cluster while nodes are replaced: the fewest Ready web pods, the most
// nodes disrupted at once, and every Drifted reason and message seen on a NodeClaim.
type rollWatch struct {
	s      *stack
	ns     string
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	// minReady is the fewest Ready web pods; maxDisrupted the most nodes tainted at once.
	minReady, maxDisrupted int
	drifted                map[string]string // NodeClaim -> "reason: message"
}

func watchRoll(t *testing.T, s *stack, ns string) *rollWatch {
	ctx, cancel := context.WithCancel(t.Context())
	w := &rollWatch{s: s, ns: ns, cancel: cancel, done: make(chan struct{}), minReady: 3, drifted: map[string]string{}}
	sampleUntilDone(ctx, w.done, w.sample)
	return w
}

func (w *rollWatch) sample(ctx context.Context) {
	ready, err := readyPods(ctx, w.s, w.ns, "app=web")
	if err != nil {
		return
	}
	nodes, err := w.s.c.poolNodes(ctx, seedPool)
	if err != nil {
		return
	}
	claims, err := w.s.c.nodeClaims(ctx)
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.minReady = min(w.minReady, ready)
	disrupted := 0
	for _, n := range nodes {
		for _, taint := range n.Spec.Taints {
			if taint.Key == api.TaintKeyDisrupted {
				disrupted++
			}
		}
	}
	w.maxDisrupted = max(w.maxDisrupted, disrupted)
	for _, nc := range claims {
		if c := meta.FindStatusCondition(nc.Status.Conditions, api.ConditionDrifted); c != nil && c.Status == metav1.ConditionTrue {
			w.drifted[nc.Name] = c.Reason + ": " + c.Message
		}
	}
}

func (w *rollWatch) stop() {
	w.cancel()
	<-w.done
}

// rolled is nil once none of the old nodes is left, three web pods run, and want holds for every
// NodeClaim.
func rolled(ctx context.Context, s *stack, ns string, old []string, want func(*api.NodeClaim) error) error {
	nodes, err := s.c.poolNodes(ctx, seedPool)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		for _, o := range old {
			if n.Name == o {
				return fmt.Errorf("old node %s still there", o)
			}
		}
	}
	if _, err := s.c.runningPods(ctx, ns, "web", 3); err != nil {
		return err
	}
	claims, err := s.c.nodeClaims(ctx)
	if err != nil {
		return err
	}
	for _, nc := range claims {
		if err := want(nc); err != nil {
			return fmt.Errorf("NodeClaim %s: %w", nc.Name, err)
		}
	}
	return nil
}

func nodeNames(t *testing.T, s *stack) []string {
	t.Helper()
	nodes, err := s.c.poolNodes(t.Context(), seedPool)
	require.NoError(t, err)
	var out []string
	for _, n := range nodes {
		out = append(out, n.Name)
	}
	return out
}

// TestImageBumpRollsNodes: AKS publishes a new node image; discovery finds it, the AKSNodeClass
// status takes it (no maintenance window is defined), every node drifts (ImageDrifted, with the old
// and new image in the Drifted message) and is replaced one at a time (the pool's budget), the
// replacement launched before the drain, so the web Deployment never has more than one pod down
// (its PDB) and ends with three pods on three nodes booted from the new image.
func TestImageBumpRollsNodes(t *testing.T) {
	s, ns := upkeepStack(t, nil)
	old := nodeNames(t, s)
	require.Len(t, old, 3)
	w := watchRoll(t, s, ns)
	const next = "202612.01.0"
	simnodes.PublishNodeImages(s.sim, next, time.Now())
	waitUntil(t, 30*time.Second, "AKSNodeClass images at "+next, func(ctx context.Context) error {
		return classImages(ctx, s, next)
	})
	took := waitUntil(t, 4*time.Minute, "every node replaced by one booted from "+next, func(ctx context.Context) error {
		return rolled(ctx, s, ns, old, func(nc *api.NodeClaim) error {
			if !strings.HasSuffix(nc.Status.ImageID, "/versions/"+next) {
				return fmt.Errorf("boots %q", nc.Status.ImageID)
			}
			return nil
		})
	})
	w.stop()
	t.Logf("rolled in %s: at least %d of 3 web pods Ready, at most %d node(s) disrupted at once; drifted: %v",
		took, w.minReady, w.maxDisrupted, w.drifted)
	assert.GreaterOrEqual(t, w.minReady, 2, "the PDB allows one web pod down at a time")
	assert.Equal(t, 1, w.maxDisrupted, "one node at a time (the budget)")
	assert.Len(t, w.drifted, 3, "every old node drifted")
	for name, why := range w.drifted {
		assert.True(t, strings.HasPrefix(why, "ImageDrifted: image "), "%s: %s", name, why)
		assert.Contains(t, why, "/versions/"+upkeepImage+" -> ", name)
		assert.Contains(t, why, "/versions/"+next, name)
	}
}

// TestOSDiskSizeChangeDriftsNodes: changing the AKSNodeClass's osDiskSizeGB changes its static
// hash; every node launched before drifts with NodeClassDrifted naming spec.osDiskSizeGB and is
// replaced by one with the new disk.
func TestOSDiskSizeChangeDriftsNodes(t *testing.T) {
	s, ns := upkeepStack(t, nil)
	old := nodeNames(t, s)
	w := watchRoll(t, s, ns)
	patch := []byte(`{"spec":{"osDiskSizeGB":64}}`)
	_, err := s.c.dyn.Resource(nodeClassGVR).Patch(t.Context(), "default", types.MergePatchType, patch, metav1.PatchOptions{})
	require.NoError(t, err)
	took := waitUntil(t, 4*time.Minute, "every node replaced by one with a 64 GB OS disk", func(ctx context.Context) error {
		return rolled(ctx, s, ns, old, func(nc *api.NodeClaim) error {
			vm := vmDisk(s, nc)
			if vm != 64 {
				return fmt.Errorf("OS disk %d GB", vm)
			}
			return nil
		})
	})
	w.stop()
	t.Logf("rolled in %s; drifted: %v", took, w.drifted)
	assert.GreaterOrEqual(t, w.minReady, 2)
	assert.Len(t, w.drifted, 3)
	for name, why := range w.drifted {
		assert.Equal(t, "NodeClassDrifted: spec.osDiskSizeGB", why, name)
	}
}

// vmDisk is the OS disk size the claim's VM was created with, read from the VM PUT the simulated
// Azure received (0 when unknown).
func vmDisk(s *stack, nc *api.NodeClaim) int32 {
	puts := s.sim.RequestsFor(azuresim.OpVMPut, lastSegment(nc.Status.ProviderID))
	if len(puts) == 0 {
		return 0
	}
	var vm armcompute.VirtualMachine
	if json.Unmarshal(puts[len(puts)-1].Body, &vm) != nil || vm.Properties == nil || vm.Properties.StorageProfile == nil ||
		vm.Properties.StorageProfile.OSDisk == nil || vm.Properties.StorageProfile.OSDisk.DiskSizeGB == nil {
		return 0
	}
	return *vm.Properties.StorageProfile.OSDisk.DiskSizeGB
}

func lastSegment(id string) string { return id[strings.LastIndexByte(id, '/')+1:] }

// TestNotReadyNodeIsRepaired: a node whose Ready condition turns False is left alone for the
// repair toleration (shortened here to 5 s), then its NodeClaim is deleted with a NodeRepair
// event saying why, and its pod runs again on a new node. The other nodes are untouched.
func TestNotReadyNodeIsRepaired(t *testing.T) {
	const toleration = 5 * time.Second
	s, ns := upkeepStack(t, func(cfg *controller.Config) {
		cfg.Upkeep.RepairPolicies = repair.WithToleration(repair.AzurePolicies(), toleration)
	})
	ctx := t.Context()
	old := nodeNames(t, s)
	sick := old[0]
	node, err := s.c.kube.CoreV1().Nodes().Get(ctx, sick, metav1.GetOptions{})
	require.NoError(t, err)
	for i, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			node.Status.Conditions[i].Status, node.Status.Conditions[i].Reason = corev1.ConditionFalse, "KubeletNotReady"
			node.Status.Conditions[i].LastTransitionTime = metav1.Now()
		}
	}
	_, err = s.c.kube.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{})
	require.NoError(t, err)
	notReadyAt := time.Now()

	took := waitUntil(t, 2*time.Minute, "the NotReady node replaced", func(ctx context.Context) error {
		nodes, err := s.c.poolNodes(ctx, seedPool)
		if err != nil {
			return err
		}
		for _, n := range nodes {
			if n.Name == sick {
				return fmt.Errorf("node %s still there", sick)
			}
		}
		_, err = s.c.runningPods(ctx, ns, "web", 3)
		return err
	})
	t.Logf("repaired %s after it turned NotReady", took)
	assert.GreaterOrEqual(t, time.Since(notReadyAt), toleration, "not before the toleration")
	events, err := s.c.kube.CoreV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{FieldSelector: "reason=NodeRepair"})
	require.NoError(t, err)
	var messages []string
	for _, e := range events.Items {
		if e.InvolvedObject.Kind == "Node" {
			assert.Equal(t, sick, e.InvolvedObject.Name, "only the unhealthy node is repaired")
			messages = append(messages, e.Message)
		}
	}
	require.Len(t, messages, 1)
	assert.Regexp(t, `^Ready=False for [0-9]+s, longer than the 5s toleration$`, messages[0])
	for _, name := range old[1:] {
		_, err := s.c.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		assert.NoError(t, err, "healthy node %s kept", name)
	}
}

// TestTagChangeUpdatesInPlace: a tag added to the AKSNodeClass reaches every VM and NIC by a PATCH
// of their tags; tags are not in the static hash, so no node drifts or is replaced.
func TestTagChangeUpdatesInPlace(t *testing.T) {
	s, _ := upkeepStack(t, nil)
	old := nodeNames(t, s)
	patch := []byte(`{"spec":{"tags":{"team":"payments"}}}`)
	_, err := s.c.dyn.Resource(nodeClassGVR).Patch(t.Context(), "default", types.MergePatchType, patch, metav1.PatchOptions{})
	require.NoError(t, err)
	waitUntil(t, 30*time.Second, "every VM and NIC tagged team=payments", func(ctx context.Context) error {
		for _, name := range old {
			for _, op := range []azuresim.Op{azuresim.OpVMPatch, azuresim.OpNICPatch} {
				patches := s.sim.RequestsFor(op, name)
				if len(patches) == 0 || !strings.Contains(string(patches[len(patches)-1].Body), `"team":"payments"`) {
					return fmt.Errorf("%s %s not patched", op, name)
				}
			}
		}
		return nil
	})
	holdFor(t, 5*time.Second, "the same nodes, none drifted", func(ctx context.Context) error {
		claims, err := s.c.nodeClaims(ctx)
		if err != nil {
			return err
		}
		for _, nc := range claims {
			if conditionTrue(nc, api.ConditionDrifted) {
				return fmt.Errorf("NodeClaim %s drifted", nc.Name)
			}
		}
		if now := nodeNames(t, s); len(now) != len(old) {
			return fmt.Errorf("nodes %v, were %v", now, old)
		}
		return nil
	})
}
