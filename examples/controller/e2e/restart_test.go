//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azuresim"
)

const spreadPods = 20

// TestRestartMidLaunch stops the controller while it is launching 20 NodeClaims (one pod per node,
// by hostname anti-affinity) and starts a new one. The new controller must adopt the claims and
// VMs it finds: every pod ends up running, no claim is ever given a second VM and no VM is made for
// a claim that does not exist. Afterwards garbage collection removes an orphan VM and leaves no VM
// or NIC without a NodeClaim.
func TestRestartMidLaunch(t *testing.T) {
	s := startStack(t, stackOptions{
		// Slow ARM calls and few launch slots make the 20 launches take seconds, so the restart
		// lands in the middle of them.
		azureLatency: 150 * time.Millisecond,
		tune:         func(cfg *controller.Config) { cfg.MaxConcurrentLaunches = 4 },
	})
	ctx := t.Context()
	applySeed(t, s.c)
	ns := s.c.newNamespace(t, "restart")
	_, err := s.c.kube.AppsV1().Deployments(ns).Create(ctx, spread(ns, "spread", spreadPods), metav1.CreateOptions{})
	require.NoError(t, err)

	waitUntil(t, 60*time.Second, "some but not all of the NodeClaims launched", func(ctx context.Context) error {
		return midLaunch(ctx, s)
	})
	s.stopController()
	t.Logf("controller stopped with %d VMs", len(s.sim.VMNames()))
	s.startController()

	waitUntil(t, 3*time.Minute, fmt.Sprintf("%d spread pods running", spreadPods), func(ctx context.Context) error {
		_, err := s.c.runningPods(ctx, ns, "spread", spreadPods)
		return err
	})
	claims := checkOneVMPerClaim(t, s)
	checkOnePodPerNode(t, s, ns)

	orphan := createOrphan(t, s)
	waitUntil(t, 60*time.Second, "garbage collection of the orphan VM "+orphan, func(context.Context) error {
		if slices.Contains(s.sim.VMNames(), orphan) || slices.Contains(s.sim.NICNames(), orphan) {
			return fmt.Errorf("%s still exists", orphan)
		}
		return nil
	})
	assert.Len(t, s.sim.VMNames(), len(claims), "VMs after garbage collection")
	assert.Len(t, s.sim.NICNames(), len(claims), "NICs after garbage collection")
}

// spread is a Deployment whose pods each need a node of their own.
func spread(ns, name string, replicas int32) *appsv1.Deployment {
	d := deployment(ns, name, replicas, "500m")
	d.Spec.Template.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			TopologyKey:   corev1.LabelHostname,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
		}},
	}}
	return d
}

// midLaunch is nil once all 20 NodeClaims exist and some, but not all, have their VM.
func midLaunch(ctx context.Context, s *stack) error {
	claims, err := s.c.nodeClaims(ctx)
	if err != nil {
		return err
	}
	launched := 0
	for _, nc := range claims {
		if nc.Status.ProviderID != "" {
			launched++
		}
	}
	if len(claims) < spreadPods || launched == 0 || launched == len(claims) {
		return fmt.Errorf("%d NodeClaims, %d launched", len(claims), launched)
	}
	return nil
}

// checkOneVMPerClaim checks that the VMs are exactly the NodeClaims' (one each), and that every
// VM ever created successfully belongs to one of them: no claim was launched twice under another
// name and no extra claim was made. It returns the claims.
func checkOneVMPerClaim(t *testing.T, s *stack) []*api.NodeClaim {
	t.Helper()
	claims, err := s.c.nodeClaims(t.Context())
	require.NoError(t, err)
	assert.Len(t, claims, spreadPods, "NodeClaims")
	var want []string
	for _, nc := range claims {
		want = append(want, "aks-"+nc.Name)
	}
	slices.Sort(want)
	assert.Equal(t, want, s.sim.VMNames(), "VMs")
	assert.Equal(t, want, s.sim.NICNames(), "NICs")
	created := createdVMs(s.sim)
	assert.Equal(t, want, created, "VMs ever created")
	t.Logf("%d NodeClaims, %d VMs, %d VM creations (PUTs) in all", len(claims), len(s.sim.VMNames()), vmPuts(s.sim))
	return claims
}

// createdVMs lists the VM names ARM ever accepted a create for.
func createdVMs(sim *azuresim.Sim) []string {
	var names []string
	for _, r := range sim.Requests() {
		if r.Op == azuresim.OpVMPut && r.Status >= http.StatusOK && r.Status < 300 && !slices.Contains(names, r.Name) {
			names = append(names, r.Name)
		}
	}
	slices.Sort(names)
	return names
}

func vmPuts(sim *azuresim.Sim) int {
	n := 0
	for _, r := range sim.Requests() {
		if r.Op == azuresim.OpVMPut {
			n++
		}
	}
	return n
}

// checkOnePodPerNode checks that no pod was lost or doubled up: 20 pods on 20 distinct nodes.
func checkOnePodPerNode(t *testing.T, s *stack, ns string) {
	t.Helper()
	pods, err := s.c.appPods(t.Context(), ns, "spread")
	require.NoError(t, err)
	nodes := map[string]bool{}
	for _, p := range pods {
		nodes[p.Spec.NodeName] = true
	}
	assert.Len(t, nodes, spreadPods, "nodes hosting spread pods")
}

// createOrphan creates a VM no NodeClaim owns, as a crash between an ARM create and the NodeClaim
// update would leave, with the cluster's tags so that the controller's garbage collector owns it. It
// goes the controller's own way: RequestFor, then the launcher.
func createOrphan(t *testing.T, s *stack) string {
	t.Helper()
	cfg, err := s.config()
	require.NoError(t, err)
	class := &api.AKSNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	class.Default()
	cat, err := cfg.Catalogue(class)
	require.NoError(t, err)
	claim := &api.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "orphan-e2e", Labels: map[string]string{api.LabelNodePool: seedPool}},
		Spec: api.NodeClaimSpec{Requirements: []api.NodeSelectorRequirementWithMinValues{
			{Key: api.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{"Standard_D2s_v5"}},
			{Key: api.LabelZone, Operator: corev1.NodeSelectorOpIn, Values: []string{region + "-1"}},
			{Key: api.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{api.CapacityTypeOnDemand}},
		}},
	}
	req, err := launch.RequestFor(t.Context(), launch.RequestOptions{NodeClaim: claim, NodeClass: class, Catalogue: cat,
		Images: cfg.Images, Cluster: launch.ClusterSettings{Cluster: cfg.Cluster, SSHPublicKey: cfg.SSHPublicKey, NodeIdentities: cfg.NodeIdentities}})
	require.NoError(t, err)
	inst, err := s.launcher.Create(t.Context(), req)
	require.NoError(t, err, "creating an orphan VM")
	require.True(t, strings.HasPrefix(inst.Name, "aks-"))
	return inst.Name
}
