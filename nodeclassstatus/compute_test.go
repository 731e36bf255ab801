package nodeclassstatus_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/nodeclassstatus"
)

const cig = "/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/"

var now = time.Date(2026, 12, 4, 3, 0, 0, 0, time.UTC)

func published(def string, versions ...string) []imagefamily.AvailableVersion {
	var out []imagefamily.AvailableVersion
	for i, v := range versions {
		out = append(out, imagefamily.AvailableVersion{Definition: def, Version: v, PublishedAt: now.AddDate(0, 0, -30+i)})
	}
	return out
}

func ubuntu22(versions ...string) []imagefamily.AvailableVersion {
	var out []imagefamily.AvailableVersion
	for _, d := range []string{"2204gen2containerd", "2204containerd", "2204gen2arm64containerd"} {
		out = append(out, published(d, versions...)...)
	}
	return out
}

func newClass() *api.AKSNodeClass {
	c := &api.AKSNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default", Generation: 3}}
	c.Default()
	return c
}

func compute(t *testing.T, in nodeclassstatus.Input) nodeclassstatus.Output {
	t.Helper()
	if in.Now.IsZero() {
		in.Now = now
	}
	out, err := nodeclassstatus.Compute(in)
	require.NoError(t, err)
	return out
}

func ids(imgs []api.NodeImage) []string {
	out := make([]string, len(imgs))
	for i, img := range imgs {
		out[i] = img.ID
	}
	return out
}

// upstream: pkg/controllers/nodeclass/status/images.go (scenario A case 1: a new class takes the
// newest images) and kubernetesversion.go (init from the API server).
func TestComputeNewClass(t *testing.T) {
	out := compute(t, nodeclassstatus.Input{Class: newClass(), ServerVersion: "1.33.2", Available: ubuntu22("202611.01.0", "202612.01.0")})
	assert.True(t, out.Changed)
	assert.Equal(t, "1.33.2", out.Status.KubernetesVersion)
	assert.Equal(t, []string{
		cig + "2204gen2containerd/versions/202612.01.0",
		cig + "2204containerd/versions/202612.01.0",
		cig + "2204gen2arm64containerd/versions/202612.01.0",
	}, ids(out.Status.Images))
	assert.Equal(t, []api.NodeSelectorRequirementWithMinValues{
		{Key: "kubernetes.io/arch", Operator: "In", Values: []string{"amd64"}},
		{Key: "karpenter.azure.com/sku-hyperv-generation", Operator: "In", Values: []string{"2"}},
	}, out.Status.Images[0].Requirements)
	for _, c := range []string{"Ready", "ImagesReady", "KubernetesVersionReady"} {
		cond := meta.FindStatusCondition(out.Status.Conditions, c)
		require.NotNil(t, cond, c)
		assert.Equal(t, metav1.ConditionTrue, cond.Status, c)
		assert.Equal(t, int64(3), cond.ObservedGeneration)
	}
	assert.Contains(t, out.Notes, "kubernetesVersion (none) -> 1.33.2")

	again := newClass()
	again.Status = out.Status
	second := compute(t, nodeclassstatus.Input{Class: again, ServerVersion: "1.33.2", Available: ubuntu22("202611.01.0", "202612.01.0")})
	assert.False(t, second.Changed, "a second pass on the same answers changes nothing")
	assert.Empty(t, second.Notes)
}

// upstream: images.go case 4 (the maintenance window gates version bumps) and case 5/6
// (a definition not yet recorded comes in at its newest version even outside the window).
func TestComputeMaintenanceWindow(t *testing.T) {
	base := compute(t, nodeclassstatus.Input{Class: newClass(), ServerVersion: "1.33.2", Available: ubuntu22("202611.01.0")})
	recorded := newClass()
	recorded.Status = base.Status
	recorded.Status.Images = recorded.Status.Images[:2] // the arm64 image is not recorded yet
	closed := nodeclassstatus.Window{Defined: true, Start: now.Add(time.Hour), End: now.Add(5 * time.Hour)}
	open := nodeclassstatus.Window{Defined: true, Start: now.Add(-time.Hour), End: now.Add(time.Hour)}
	newer := ubuntu22("202611.01.0", "202612.01.0")

	held := compute(t, nodeclassstatus.Input{Class: recorded, ServerVersion: "1.33.2", Available: newer, Window: closed})
	assert.Equal(t, []string{
		cig + "2204gen2containerd/versions/202611.01.0",
		cig + "2204containerd/versions/202611.01.0",
		cig + "2204gen2arm64containerd/versions/202612.01.0",
	}, ids(held.Status.Images))
	assert.Contains(t, held.Notes, "newer images held until the node-OS maintenance window opens")

	bumped := compute(t, nodeclassstatus.Input{Class: recorded, ServerVersion: "1.33.2", Available: newer, Window: open})
	assert.Equal(t, cig+"2204gen2containerd/versions/202612.01.0", bumped.Status.Images[0].ID)
	assert.Contains(t, bumped.Notes, "image "+cig+"2204gen2containerd 202611.01.0 -> 202612.01.0")

	always := compute(t, nodeclassstatus.Input{Class: recorded, ServerVersion: "1.33.2", Available: newer})
	assert.Equal(t, ids(bumped.Status.Images), ids(always.Status.Images), "no window defined: always open")
}

// upstream: kubernetesversion.go (an upgrade resets ImagesReady so images are re-picked at once,
// maintenance window or not; a lower version is never taken).
func TestComputeKubernetesUpgrade(t *testing.T) {
	base := compute(t, nodeclassstatus.Input{Class: newClass(), ServerVersion: "1.33.2", Available: ubuntu22("202611.01.0")})
	class := newClass()
	class.Status = base.Status
	closed := nodeclassstatus.Window{Defined: true, Start: now.Add(time.Hour), End: now.Add(2 * time.Hour)}
	avail := append(ubuntu22("202611.01.0", "202612.01.0"), published("2404gen2containerd", "202612.01.0")...)

	up := compute(t, nodeclassstatus.Input{Class: class, ServerVersion: "1.34.0", Available: avail, Window: closed})
	assert.Equal(t, "1.34.0", up.Status.KubernetesVersion)
	assert.Equal(t, []string{"/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2404gen2containerd/versions/202612.01.0"},
		ids(up.Status.Images), "1.34 boots Ubuntu 24.04, at its newest version despite the closed window")
	assert.Contains(t, up.Notes, "images re-picked for the Kubernetes upgrade")

	down := compute(t, nodeclassstatus.Input{Class: class, ServerVersion: "1.32.9", Available: avail})
	assert.Equal(t, "1.33.2", down.Status.KubernetesVersion, "never downgraded")
}

func TestComputeNotReady(t *testing.T) {
	fips := newClass()
	mode := api.FIPSModeFIPS
	fips.Spec.FIPSMode = &mode
	for name, tc := range map[string]struct {
		in     nodeclassstatus.Input
		reason string
	}{
		"nothing published": {nodeclassstatus.Input{Class: newClass(), ServerVersion: "1.33.2"}, nodeclassstatus.ReasonImagesNotFound},
		"other definitions only": {nodeclassstatus.Input{Class: newClass(), ServerVersion: "1.33.2", Available: published("V3gen2", "1.0.0")},
			nodeclassstatus.ReasonImagesNotFound},
		// upstream: images.go SIGRequiredForFIPS
		"FIPS from the community gallery": {nodeclassstatus.Input{Class: fips, ServerVersion: "1.33.2", Available: ubuntu22("202611.01.0")},
			nodeclassstatus.ReasonSIGRequiredForFIPS},
	} {
		t.Run(name, func(t *testing.T) {
			out := compute(t, tc.in)
			assert.Empty(t, out.Status.Images)
			cond := meta.FindStatusCondition(out.Status.Conditions, nodeclassstatus.ConditionImagesReady)
			require.NotNil(t, cond)
			assert.Equal(t, metav1.ConditionFalse, cond.Status)
			assert.Equal(t, tc.reason, cond.Reason)
			assert.False(t, meta.IsStatusConditionTrue(out.Status.Conditions, nodeclassstatus.ConditionReady))
			assert.True(t, meta.IsStatusConditionTrue(out.Status.Conditions, nodeclassstatus.ConditionKubernetesVersionReady))
		})
	}
	_, err := nodeclassstatus.Compute(nodeclassstatus.Input{Class: newClass(), ServerVersion: "latest", Now: now})
	require.Error(t, err)
}

func TestComputeSharedGallery(t *testing.T) {
	class := newClass()
	mode := api.FIPSModeFIPS
	class.Spec.FIPSMode = &mode
	out := compute(t, nodeclassstatus.Input{Class: class, ServerVersion: "1.33.2", Gallery: imagefamily.SharedImageGallery,
		SIGSubscriptionID: "sub", Available: published("2004gen2fipscontainerd", "202611.01.0", "202612.01.0")})
	require.NotEmpty(t, out.Status.Images)
	assert.Equal(t, "/subscriptions/sub/resourceGroups/AKS-Ubuntu/providers/Microsoft.Compute/galleries/AKSUbuntu/images/2004gen2fipscontainerd/versions/202612.01.0",
		out.Status.Images[0].ID)
}

func TestParseWindow(t *testing.T) {
	for name, tc := range map[string]struct {
		data map[string]string
		want nodeclassstatus.Window
		bad  bool
	}{
		"no ConfigMap":   {data: nil},
		"empty":          {data: map[string]string{}},
		"other channels": {data: map[string]string{"aksManagedAutoUpgradeSchedule-start": "2026-12-04T00:00:00Z"}},
		"empty values":   {data: map[string]string{"aksManagedNodeOSUpgradeSchedule-start": "", "aksManagedNodeOSUpgradeSchedule-end": ""}},
		"both": {data: map[string]string{"aksManagedNodeOSUpgradeSchedule-start": "2026-12-04T00:00:00Z", "aksManagedNodeOSUpgradeSchedule-end": "2026-12-04T04:00:00+01:00"},
			want: nodeclassstatus.Window{Defined: true, Start: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 12, 4, 3, 0, 0, 0, time.UTC)}},
		"start only": {data: map[string]string{"aksManagedNodeOSUpgradeSchedule-start": "2026-12-04T00:00:00Z"}, bad: true},
		"bad time":   {data: map[string]string{"aksManagedNodeOSUpgradeSchedule-start": "tomorrow", "aksManagedNodeOSUpgradeSchedule-end": "2026-12-04T00:00:00Z"}, bad: true},
	} {
		t.Run(name, func(t *testing.T) {
			w, err := nodeclassstatus.ParseWindow(tc.data)
			if tc.bad {
				require.ErrorIs(t, err, nodeclassstatus.ErrMaintenanceWindow)
				assert.Contains(t, err.Error(), "aksManagedNodeOSUpgradeSchedule")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, w)
		})
	}
	w := nodeclassstatus.Window{Defined: true, Start: now, End: now.Add(time.Hour)}
	assert.False(t, w.Open(now), "the start itself is outside, as upstream's After")
	assert.True(t, w.Open(now.Add(time.Minute)))
	assert.False(t, w.Open(now.Add(time.Hour)))
	assert.True(t, nodeclassstatus.Window{}.Open(now))
}

// TestComputeLocalDNSState records the resolved LocalDNS decision; Preferred stays Disabled below
// upstream's threshold and while the cluster gates are unchecked, and sticks once Enabled.
// upstream: pkg/controllers/nodeclass/status/localdns.go (LocalDNSReconciler)
func TestComputeLocalDNSState(t *testing.T) {
	tests := []struct {
		name, recorded, want string
		localDNS             *api.LocalDNS
		checked              bool
		server               string
	}{
		{"no localDNS", "", "", nil, true, "1.33.2"},
		{"Required", "", api.LocalDNSStateEnabled, &api.LocalDNS{Mode: api.LocalDNSModeRequired}, false, "1.33.2"},
		{"Disabled", api.LocalDNSStateEnabled, api.LocalDNSStateDisabled, &api.LocalDNS{Mode: api.LocalDNSModeDisabled}, true, "1.33.2"},
		{"Preferred below the threshold", "", api.LocalDNSStateDisabled, &api.LocalDNS{Mode: api.LocalDNSModePreferred}, true, "1.35.0"},
		{"Preferred at the threshold", "", api.LocalDNSStateEnabled, &api.LocalDNS{Mode: api.LocalDNSModePreferred}, true, "1.99.0"},
		{"Preferred unchecked cluster", "", api.LocalDNSStateDisabled, &api.LocalDNS{Mode: api.LocalDNSModePreferred}, false, "1.99.0"},
		{"Preferred sticks", api.LocalDNSStateEnabled, api.LocalDNSStateEnabled, &api.LocalDNS{Mode: api.LocalDNSModePreferred}, false, "1.33.2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			class := newClass()
			class.Spec.LocalDNS = tc.localDNS
			class.Status.LocalDNSState = tc.recorded
			out := compute(t, nodeclassstatus.Input{Class: class, ServerVersion: tc.server, Available: ubuntu22("202612.01.0"),
				Network: api.DefaultClusterNetwork(), LocalDNSClusterChecked: tc.checked})
			assert.Equal(t, tc.want, out.Status.LocalDNSState)
		})
	}
}
