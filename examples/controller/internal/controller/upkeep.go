package controller

import (
	"context"
	"time"

	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/kubeversion"
	"github.com/napkit/napkit/pricing"
	"github.com/napkit/napkit/quota"
	"github.com/napkit/napkit/repair"
)

// Upkeep configures what keeps nodes current: the AKSNodeClass status writer (Kubernetes version
// and node images, and so image and Kubernetes-version drift), node repair and vCPU quota.
// Zero durations mean the defaults below.
type Upkeep struct {
	// ImageVersions lists published node image versions (launch/discovery.Images). Nil turns the
	// status writer off: nodes then boot Config.Images and Config.Cluster.KubernetesVersion.
	ImageVersions ImageVersionSource
	// StatusInterval is how often every AKSNodeClass's status is recomputed (5 min, upstream's
	// requeue); the API server's version is cached for VersionTTL (kubeversion.TTL) in between.
	StatusInterval, VersionTTL time.Duration
	// SystemNamespace holds AKS's maintenance-window ConfigMap; "" means no window is defined
	// (image updates are never held back).
	SystemNamespace string
	// KubernetesVersion pins the nodes' version; "" means the control plane's. A pin newer than
	// the control plane is refused at start.
	KubernetesVersion string
	// RepairInterval is how often unhealthy nodes are looked for (30 s); RepairPolicies are the
	// repair policies (nil: repair.AzurePolicies; empty: repair off).
	RepairInterval time.Duration
	RepairPolicies []repair.Policy
	// DiskEncryptionSet reads Config.DiskEncryptionSetID's set every status pass
	// (launch/discovery.DiskEncryptionSet), for AKSNodeClass ValidationSucceeded; nil leaves that
	// condition as recorded when a set is configured.
	DiskEncryptionSet DiskEncryptionSetChecker
	// Subnets reads the subnet each AKSNodeClass's nodes join every status pass
	// (launch/discovery.Subnets), for SubnetsReady; nil checks the subnet IDs only.
	Subnets SubnetChecker
	// Usage lists the region's vCPU usages (launch/discovery.Usage); nil turns quota off.
	Usage UsageSource
	// QuotaInterval is how often usages are refreshed (10 min, upstream's).
	QuotaInterval time.Duration
	// Prices, when set, is refreshed from the Retail Prices API every PriceRefresh (12 h) and
	// prices the catalogues built with NewLiveCatalogue on the same provider.
	Prices       *pricing.Provider
	PriceRefresh time.Duration
}

// ImageVersionSource lists the published versions of a family's image definitions.
type ImageVersionSource interface {
	Versions(ctx context.Context, gallery imagefamily.GalleryKind, family imagefamily.Family,
		defs []imagefamily.Definition) ([]imagefamily.AvailableVersion, error)
}

// DiskEncryptionSetChecker reads the disk encryption set: nil when readable, an error wrapping
// discovery.ErrDiskEncryptionSetAccess when the controlling identity may not read it.
type DiskEncryptionSetChecker interface {
	Check(ctx context.Context) error
}

// SubnetChecker reads a subnet: nil when it exists, an error wrapping discovery.ErrSubnetNotFound
// when it does not.
type SubnetChecker interface {
	Check(ctx context.Context, id string) error
}

// UsageSource lists the region's vCPU usages and when they were fetched.
type UsageSource interface {
	List(ctx context.Context) ([]quota.Usage, time.Time, error)
}

func (u Upkeep) withDefaults() Upkeep {
	defaultDuration(&u.StatusInterval, 5*time.Minute)
	defaultDuration(&u.VersionTTL, kubeversion.TTL)
	defaultDuration(&u.RepairInterval, 30*time.Second)
	defaultDuration(&u.QuotaInterval, 10*time.Minute)
	defaultDuration(&u.PriceRefresh, 12*time.Hour)
	return u
}
