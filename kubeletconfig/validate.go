package kubeletconfig

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/napkit/napkit/api"
)

// kubeletPath prefixes the fields a user sets in an AKSNodeClass, so errors point into the manifest.
const kubeletPath = "spec.kubelet."

// Kubelet defaults Validate compares against when only one image GC threshold is set: the kubelet
// checks the pair it will actually run with, and AKS's base flags use these same numbers.
const (
	kubeletImageGCHigh int32 = api.DefaultImageGCHighThresholdPercent
	kubeletImageGCLow  int32 = api.DefaultImageGCLowThresholdPercent
)

// Validate checks c against the rules of the AKSNodeClass CRD and of the kubelet itself, so a bad
// setting fails here instead of leaving a VM whose kubelet never starts. All problems are reported
// together (errors.Join) in a fixed order; each is an *api.FieldError of class ErrInvalid.
func (c *Config) Validate() error {
	var errs []error
	for _, check := range []func() []error{
		c.validateCore, c.validateReserved, c.validateEviction, c.validatePolicies,
		c.validateImageGC, c.validateLogs, c.validateSysctls,
	} {
		errs = append(errs, check()...)
	}
	return errors.Join(errs...)
}

func (c *Config) validateCore() []error {
	var errs []error
	if c.MaxPods < 1 {
		errs = append(errs, invalid("maxPods", c.MaxPods, "must be at least 1"))
	}
	for i, ip := range c.ClusterDNS {
		// A zone (fe80::1%eth0) means nothing to the kubelet and could carry the flag separator.
		if addr, err := netip.ParseAddr(ip); err != nil || addr.Zone() != "" {
			errs = append(errs, invalid(indexed("clusterDNS", i), ip, "must be an IP address without a zone"))
		}
	}
	if c.ClusterDomain != "" {
		if msgs := validation.IsDNS1123Subdomain(c.ClusterDomain); len(msgs) > 0 {
			errs = append(errs, invalid("clusterDomain", c.ClusterDomain, "%s", strings.Join(msgs, "; ")))
		}
	}
	return errs
}

func (c *Config) validatePolicies() []error {
	var errs []error
	cpuPolicies := []string{"", CPUManagerPolicyNone, CPUManagerPolicyStatic}
	if !slices.Contains(cpuPolicies, c.CPUManagerPolicy) {
		errs = append(errs, invalid(kubeletPath+"cpuManagerPolicy", c.CPUManagerPolicy,
			"must be %q or %q", CPUManagerPolicyNone, CPUManagerPolicyStatic))
	}
	topologyPolicies := []string{"", TopologyManagerPolicyNone, TopologyManagerPolicyBestEffort,
		TopologyManagerPolicyRestricted, TopologyManagerPolicySingleNUMANode}
	if !slices.Contains(topologyPolicies, c.TopologyManagerPolicy) {
		errs = append(errs, invalid(kubeletPath+"topologyManagerPolicy", c.TopologyManagerPolicy,
			"must be one of %s", strings.Join(topologyPolicies[1:], ", ")))
	}
	// The kubelet rejects periods outside [1ms, 1s] at startup.
	if p := c.CPUCFSQuotaPeriod; p != nil && (*p < time.Millisecond || *p > time.Second) {
		errs = append(errs, invalid(kubeletPath+"cpuCFSQuotaPeriod", *p, "must be between 1ms and 1s"))
	}
	return errs
}

func (c *Config) validateImageGC() []error {
	var errs []error
	high, low := deref(c.ImageGCHighThresholdPercent), deref(c.ImageGCLowThresholdPercent)
	for _, f := range []struct {
		name string
		p    *int32
	}{{"imageGCHighThresholdPercent", c.ImageGCHighThresholdPercent}, {"imageGCLowThresholdPercent", c.ImageGCLowThresholdPercent}} {
		if f.p != nil && (*f.p < 0 || *f.p > 100) {
			errs = append(errs, invalid(kubeletPath+f.name, *f.p, "must be between 0 and 100"))
		}
	}
	if len(errs) > 0 || (c.ImageGCHighThresholdPercent == nil && c.ImageGCLowThresholdPercent == nil) {
		return errs
	}
	if c.ImageGCHighThresholdPercent == nil {
		high = kubeletImageGCHigh
	}
	if c.ImageGCLowThresholdPercent == nil {
		low = kubeletImageGCLow
	}
	if high <= low {
		return []error{invalid(kubeletPath+"imageGCLowThresholdPercent", low,
			"must be less than imageGCHighThresholdPercent (%d; the kubelet defaults are high %d, low %d)",
			high, kubeletImageGCHigh, kubeletImageGCLow)}
	}
	return nil
}

func (c *Config) validateLogs() []error {
	var errs []error
	if c.ContainerLogMaxSize != "" {
		if err := validateLogSize(c.ContainerLogMaxSize); err != nil {
			errs = append(errs, err)
		}
	}
	if n := c.ContainerLogMaxFiles; n != nil && *n < 2 {
		errs = append(errs, invalid(kubeletPath+"containerLogMaxFiles", *n, "must be at least 2"))
	}
	// -1 is the kubelet's "no limit"; other negative numbers are meaningless.
	if n := c.PodPidsLimit; n != nil && *n < -1 {
		errs = append(errs, invalid(kubeletPath+"podPidsLimit", *n, "must be -1 (unlimited) or at least 0"))
	}
	return errs
}
