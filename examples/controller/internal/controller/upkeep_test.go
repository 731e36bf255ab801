package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/kubeversion"
	"github.com/napkit/napkit/launch/azuresim"
	"github.com/napkit/napkit/launch/discovery"
)

// upkeepEnv is a testEnv whose status writer discovers images on a simulated Azure, against an
// API server of version v1.33.2.
func upkeepEnv(t *testing.T) (*testEnv, *azuresim.Sim) {
	t.Helper()
	e := newTestEnv(t)
	e.kube.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{GitVersion: "v1.33.2"}
	sim := azuresim.New(azuresim.Options{})
	opts := sim.ClientOptions()
	opts.Retry = policy.RetryOptions{MaxRetries: 1, RetryDelay: time.Millisecond, MaxRetryDelay: time.Millisecond}
	images, err := discovery.NewImages(discovery.ImagesOptions{SubscriptionID: sim.SubscriptionID(), Location: sim.Location(),
		Credential: sim.Credential(), ClientOptions: opts, TTL: time.Nanosecond})
	require.NoError(t, err)
	e.c.cfg.Upkeep.ImageVersions = images
	class := &api.AKSNodeClass{TypeMeta: metav1.TypeMeta{APIVersion: api.AzureVersion, Kind: api.KindAKSNodeClass},
		ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	u, err := ToUnstructured(class)
	require.NoError(t, err)
	require.NoError(t, e.c.inf.classes.GetIndexer().Add(u))
	_, err = e.dyn.Resource(AKSNodeClassesGVR).Create(context.Background(), u.DeepCopy(), metav1.CreateOptions{})
	require.NoError(t, err)
	return e, sim
}

func (e *testEnv) storedClass(t *testing.T) *api.AKSNodeClass {
	t.Helper()
	u, err := e.dyn.Resource(AKSNodeClassesGVR).Get(context.Background(), "default", metav1.GetOptions{})
	require.NoError(t, err)
	class, err := FromUnstructured[api.AKSNodeClass](u)
	require.NoError(t, err)
	return class
}

// syncClass copies the stored class into the informer cache, as the watch would.
func (e *testEnv) syncClass(t *testing.T) {
	t.Helper()
	u, err := e.dyn.Resource(AKSNodeClassesGVR).Get(context.Background(), "default", metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, e.c.inf.classes.GetIndexer().Update(u))
}

// The status writer on the simulated Azure: status is written from what the galleries publish,
// a failing gallery leaves it as it was, an empty one makes the class not Ready.
func TestStatusWriterOnSimulatedAzure(t *testing.T) {
	e, sim := upkeepEnv(t)
	ctx := context.Background()
	for _, def := range []string{"2204gen2containerd", "2204containerd", "2204gen2arm64containerd"} {
		sim.PublishImageVersion(def, azuresim.ImageVersion{Version: "202611.01.0", PublishedAt: testNow.Add(-time.Hour)})
	}
	e.c.updateNodeClasses(ctx)
	class := e.storedClass(t)
	assert.Equal(t, "1.33.2", class.Status.KubernetesVersion)
	require.Len(t, class.Status.Images, 3)
	assert.Equal(t, "/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204gen2containerd/versions/202611.01.0",
		class.Status.Images[0].ID)
	for _, c := range []string{"KubernetesVersionReady", "ImagesReady", "ValidationSucceeded", "LocalDNSReady", "Ready"} {
		assert.True(t, meta.IsStatusConditionTrue(class.Status.Conditions, c), c)
	}
	assert.Nil(t, meta.FindStatusCondition(class.Status.Conditions, "SubnetsReady"), "no subnet configured, none checked")
	assert.Equal(t, consolidation.NodeClassHashVersion, class.Annotations[api.AnnotationAKSNodeClassHashVersion])
	assert.Equal(t, consolidation.NodeClassHash(class), class.Annotations[api.AnnotationAKSNodeClassHash])
	e.syncClass(t)

	sim.Inject(azuresim.Fault{Kind: azuresim.FaultServerError, Op: azuresim.OpImageVersionList})
	e.c.updateNodeClasses(ctx)
	assert.Equal(t, class.Status, e.storedClass(t).Status, "a failing gallery changes nothing")
	sim.ClearFaults()

	empty, _ := upkeepEnv(t)
	empty.c.updateNodeClasses(ctx)
	cond := meta.FindStatusCondition(empty.storedClass(t).Status.Conditions, "ImagesReady")
	require.NotNil(t, cond)
	assert.Equal(t, metav1.ConditionFalse, cond.Status)
	assert.Equal(t, "ImagesNotFound", cond.Reason)
}

// A NodeClaim stamped under an older hash version is re-stamped, not drifted.
func TestStatusWriterRestampsOldHashVersion(t *testing.T) {
	e, sim := upkeepEnv(t)
	sim.PublishImageVersion("2204gen2containerd", azuresim.ImageVersion{Version: "202611.01.0", PublishedAt: testNow})
	nc := testClaim("nc-1", "p", "azure:///x", registered())
	nc.Spec.NodeClassRef = &api.NodeClassReference{Name: "default"}
	nc.Annotations = map[string]string{api.AnnotationAKSNodeClassHash: "1", api.AnnotationAKSNodeClassHashVersion: "napkit-v0"}
	e.addClaim(t, nc)
	e.c.updateNodeClasses(context.Background())
	stored := e.storedClaim(t, "nc-1")
	assert.Equal(t, consolidation.NodeClassHashVersion, stored.Annotations[api.AnnotationAKSNodeClassHashVersion])
	assert.Equal(t, consolidation.NodeClassHash(e.storedClass(t)), stored.Annotations[api.AnnotationAKSNodeClassHash])
}

// Repair deletes only the unhealthy node's NodeClaim, with an event saying why, and stops at the
// 20 % guard.
func TestRepairPass(t *testing.T) {
	notReady := func(ago time.Duration) nodeOpt {
		return func(n *corev1.Node) {
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse,
				LastTransitionTime: metav1.NewTime(testNow.Add(-ago))}}
		}
	}
	setup := func(t *testing.T, sick int) *testEnv {
		e := newTestEnv(t)
		for i := range 5 {
			opt := isReady()
			if i < sick {
				opt = notReady(11 * time.Minute)
			}
			id := fmt.Sprintf("azure:///vm-%d", i)
			e.addNode(t, newNode(fmt.Sprintf("node-%d", i), id, opt))
			e.addClaim(t, testClaim(fmt.Sprintf("nc-%d", i), "p", id, registered()))
		}
		return e
	}
	ctx := context.Background()

	e := setup(t, 1)
	e.c.repairPass(ctx)
	claims, err := e.dyn.Resource(NodeClaimsGVR).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	var left []string
	for _, u := range claims.Items {
		left = append(left, u.GetName())
	}
	assert.Equal(t, []string{"nc-1", "nc-2", "nc-3", "nc-4"}, left, "only the unhealthy node's claim is deleted")
	events, err := e.kube.CoreV1().Events("default").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, events.Items)
	assert.Equal(t, "NodeRepair", events.Items[0].Reason)
	assert.Equal(t, "Ready=False for 11m0s, longer than the 10m0s toleration", events.Items[0].Message)

	guarded := setup(t, 2)
	guarded.c.repairPass(ctx)
	claims, err = guarded.dyn.Resource(NodeClaimsGVR).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, claims.Items, 5, "2 of 5 unhealthy is more than 20 %: nothing repaired")
	events, err = guarded.kube.CoreV1().Events("default").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, events.Items)
	assert.Equal(t, "NodeRepairBlocked", events.Items[0].Reason)
	assert.Contains(t, events.Items[0].Message, "2 of the cluster's 5 nodes are unhealthy, more than 20%")
}

// The maintenance window gates image updates in the controller as upstream's images.go does: with
// AKS's ConfigMap in the system namespace naming a node-OS window that is not open, a newer image
// is held (the recorded version stays); once the window opens it is taken; a ConfigMap with half a
// window is an error that leaves the status as it was.
func TestStatusWriterHoldsImagesOutsideMaintenanceWindow(t *testing.T) {
	e, sim := upkeepEnv(t)
	e.c.cfg.Upkeep.SystemNamespace = "kube-system"
	ctx := context.Background()
	defs := []string{"2204gen2containerd", "2204containerd", "2204gen2arm64containerd"}
	publish := func(version string) {
		for _, def := range defs {
			sim.PublishImageVersion(def, azuresim.ImageVersion{Version: version, PublishedAt: testNow.Add(-time.Hour)})
		}
	}
	window := func(start, end time.Time) map[string]string {
		return map[string]string{"aksManagedNodeOSUpgradeSchedule-start": start.Format(time.RFC3339),
			"aksManagedNodeOSUpgradeSchedule-end": end.Format(time.RFC3339)}
	}
	versions := func() []string {
		var out []string
		for _, img := range e.storedClass(t).Status.Images {
			out = append(out, img.ID[strings.LastIndex(img.ID, "/")+1:])
		}
		return out
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "upcoming-maintenance-window", Namespace: "kube-system"},
		Data: window(testNow.Add(time.Hour), testNow.Add(5*time.Hour))}
	_, err := e.kube.CoreV1().ConfigMaps("kube-system").Create(ctx, cm, metav1.CreateOptions{})
	require.NoError(t, err)

	publish("202611.01.0")
	e.c.updateNodeClasses(ctx)
	assert.Equal(t, []string{"202611.01.0", "202611.01.0", "202611.01.0"}, versions(), "a new class takes the newest images whatever the window")
	e.syncClass(t)

	publish("202612.01.0")
	e.c.updateNodeClasses(ctx)
	assert.Equal(t, []string{"202611.01.0", "202611.01.0", "202611.01.0"}, versions(), "held while the window is closed")
	e.syncClass(t)

	cm.Data = map[string]string{"aksManagedNodeOSUpgradeSchedule-start": testNow.Format(time.RFC3339)}
	_, err = e.kube.CoreV1().ConfigMaps("kube-system").Update(ctx, cm, metav1.UpdateOptions{})
	require.NoError(t, err)
	e.c.updateNodeClasses(ctx)
	assert.Equal(t, []string{"202611.01.0", "202611.01.0", "202611.01.0"}, versions(), "half a window: nothing changes")

	cm.Data = window(testNow.Add(-time.Minute), testNow.Add(time.Hour))
	_, err = e.kube.CoreV1().ConfigMaps("kube-system").Update(ctx, cm, metav1.UpdateOptions{})
	require.NoError(t, err)
	e.c.updateNodeClasses(ctx)
	assert.Equal(t, []string{"202612.01.0", "202612.01.0", "202612.01.0"}, versions(), "taken once the window is open")
}

// A kubelet is never newer than the control plane: when the API server answers an older version
// than the class records (which upstream keeps, as mixed API servers answer during an upgrade), no
// node boots until the API server reports the recorded version again.
func TestBootNeverNewerThanControlPlane(t *testing.T) {
	e, sim := upkeepEnv(t)
	now := testNow
	e.c.cfg.Clock = func() time.Time { return now }
	e.c.cfg.Upkeep.VersionTTL = time.Minute
	served := e.kube.Discovery().(*fakediscovery.FakeDiscovery)
	for _, def := range []string{"2204gen2containerd", "2204containerd", "2204gen2arm64containerd"} {
		sim.PublishImageVersion(def, azuresim.ImageVersion{Version: "202611.01.0", PublishedAt: testNow.Add(-time.Hour)})
	}
	ctx := context.Background()
	pass := func(server string) *api.AKSNodeClass {
		t.Helper()
		served.FakedServerVersion = &version.Info{GitVersion: server}
		now = now.Add(2 * time.Minute) // past the version cache's TTL
		e.c.updateNodeClasses(ctx)
		e.syncClass(t)
		return e.storedClass(t)
	}

	class := pass("v1.33.2")
	cluster, _, err := e.c.bootSettings(class)
	require.NoError(t, err)
	assert.Equal(t, "1.33.2", cluster.KubernetesVersion)

	class = pass("v1.32.9")
	assert.Equal(t, "1.33.2", class.Status.KubernetesVersion, "the recorded version never goes down")
	_, _, err = e.c.bootSettings(class)
	require.ErrorIs(t, err, kubeversion.ErrNewerThanControlPlane)
	assert.EqualError(t, err, "AKSNodeClass default: status.kubernetesVersion 1.33.2 is newer than the control plane's 1.32.9: "+
		"kubelet version newer than the control plane")

	class = pass("v1.33.2")
	cluster, _, err = e.c.bootSettings(class)
	require.NoError(t, err)
	assert.Equal(t, "1.33.2", cluster.KubernetesVersion)
}

// ValidationSucceeded follows a read of the configured disk encryption set on the simulated Azure
// (upstream: pkg/controllers/nodeclass/status/validation.go): without the Reader role it is False
// with DiskEncryptionSetRBACMissing and the class is not Ready (a VM could not be created); once
// the role is granted both are True again.
func TestStatusWriterChecksDiskEncryptionSet(t *testing.T) {
	e, sim := upkeepEnv(t)
	for _, def := range []string{"2204gen2containerd", "2204containerd", "2204gen2arm64containerd"} {
		sim.PublishImageVersion(def, azuresim.ImageVersion{Version: "202611.01.0", PublishedAt: testNow.Add(-time.Hour)})
	}
	id := "/subscriptions/" + sim.SubscriptionID() + "/resourceGroups/keys/providers/Microsoft.Compute/diskEncryptionSets/des"
	des, err := discovery.NewDiskEncryptionSet(discovery.DiskEncryptionSetOptions{ID: id, Credential: sim.Credential(),
		ClientOptions: sim.ClientOptions()})
	require.NoError(t, err)
	e.c.cfg.DiskEncryptionSetID, e.c.cfg.Upkeep.DiskEncryptionSet = id, des
	ctx := context.Background()

	sim.AddDiskEncryptionSet("keys", "des", false)
	e.c.updateNodeClasses(ctx)
	class := e.storedClass(t)
	cond := meta.FindStatusCondition(class.Status.Conditions, "ValidationSucceeded")
	require.NotNil(t, cond)
	assert.Equal(t, metav1.ConditionFalse, cond.Status)
	assert.Equal(t, "DiskEncryptionSetRBACMissing", cond.Reason)
	assert.Contains(t, cond.Message, "no read access to the disk encryption set "+id+": grant the controlling identity the Reader role on it")
	assert.False(t, meta.IsStatusConditionTrue(class.Status.Conditions, "Ready"))
	e.syncClass(t)

	sim.AddDiskEncryptionSet("keys", "des", true)
	e.c.updateNodeClasses(ctx)
	class = e.storedClass(t)
	assert.True(t, meta.IsStatusConditionTrue(class.Status.Conditions, "ValidationSucceeded"))
	assert.True(t, meta.IsStatusConditionTrue(class.Status.Conditions, "Ready"))
}

// SubnetsReady reads the class's subnet on the simulated Azure (upstream:
// pkg/controllers/nodeclass/status/subnet.go): a subnet Azure does not have makes the class not
// Ready with SubnetNotFound; once it exists both are True.
func TestStatusWriterReadsSubnet(t *testing.T) {
	e, sim := upkeepEnv(t)
	for _, def := range []string{"2204gen2containerd", "2204containerd", "2204gen2arm64containerd"} {
		sim.PublishImageVersion(def, azuresim.ImageVersion{Version: "202611.01.0", PublishedAt: testNow.Add(-time.Hour)})
	}
	subnet := "/subscriptions/" + sim.SubscriptionID() + "/resourceGroups/MC_rg/providers/Microsoft.Network/virtualNetworks/aks-vnet-12345678/subnets/aks-subnet"
	e.c.cfg.Cluster.SubnetID, e.c.cfg.Cluster.NodeResourceGroup = subnet, "MC_rg"
	e.c.cfg.Upkeep.Subnets = discovery.NewSubnets(discovery.SubnetsOptions{Credential: sim.Credential(), ClientOptions: sim.ClientOptions()})
	ctx := context.Background()

	e.c.updateNodeClasses(ctx)
	class := e.storedClass(t)
	cond := meta.FindStatusCondition(class.Status.Conditions, "SubnetsReady")
	require.NotNil(t, cond)
	assert.Equal(t, metav1.ConditionFalse, cond.Status)
	assert.Equal(t, "SubnetNotFound", cond.Reason)
	assert.Contains(t, cond.Message, "subnet not found: "+subnet)
	assert.False(t, meta.IsStatusConditionTrue(class.Status.Conditions, "Ready"))
	e.syncClass(t)

	sim.AddSubnet("MC_rg", "aks-vnet-12345678", "aks-subnet")
	e.c.updateNodeClasses(ctx)
	class = e.storedClass(t)
	assert.True(t, meta.IsStatusConditionTrue(class.Status.Conditions, "SubnetsReady"))
	assert.True(t, meta.IsStatusConditionTrue(class.Status.Conditions, "Ready"))
}
