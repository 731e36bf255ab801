package bootstrap

import (
	"github.com/napkit/napkit/api"
)

// LocalDNSProfile is the per-node DNS cache's configuration as the node bootstrapping service and the
// AKS Machine API take it: overrides keyed by zone, durations in whole seconds.
type LocalDNSProfile struct {
	Mode             string                      `json:"mode,omitempty"`
	VnetDNSOverrides map[string]LocalDNSOverride `json:"vnetDNSOverrides,omitempty"`
	KubeDNSOverrides map[string]LocalDNSOverride `json:"kubeDNSOverrides,omitempty"`
}

// LocalDNSOverride is how one zone is served.
type LocalDNSOverride struct {
	QueryLogging                string `json:"queryLogging,omitempty"`
	Protocol                    string `json:"protocol,omitempty"`
	ForwardDestination          string `json:"forwardDestination,omitempty"`
	ForwardPolicy               string `json:"forwardPolicy,omitempty"`
	MaxConcurrent               *int32 `json:"maxConcurrent,omitempty"`
	CacheDurationInSeconds      *int32 `json:"cacheDurationInSeconds,omitempty"`
	ServeStaleDurationInSeconds *int32 `json:"serveStaleDurationInSeconds,omitempty"`
	ServeStale                  string `json:"serveStale,omitempty"`
}

// LocalDNSProfileFor converts a node class's resolved spec.localDNS (AKSNodeClass.LocalDNSForWire:
// never Preferred) into the profile; nil stays nil.
func LocalDNSProfileFor(l *api.LocalDNS) *LocalDNSProfile {
	if l == nil {
		return nil
	}
	return &LocalDNSProfile{Mode: string(l.Mode), VnetDNSOverrides: overridesByZone(l.VnetDNSOverrides),
		KubeDNSOverrides: overridesByZone(l.KubeDNSOverrides)}
}

func overridesByZone(in []api.LocalDNSZoneOverride) map[string]LocalDNSOverride {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]LocalDNSOverride, len(in))
	for _, o := range in {
		out[o.Zone] = LocalDNSOverride{
			QueryLogging: o.QueryLogging, Protocol: o.Protocol, ForwardDestination: o.ForwardDestination,
			ForwardPolicy: o.ForwardPolicy, MaxConcurrent: clone(o.MaxConcurrent),
			CacheDurationInSeconds: seconds(o.CacheDuration), ServeStaleDurationInSeconds: seconds(o.ServeStaleDuration),
			ServeStale: o.ServeStale,
		}
	}
	return out
}

// seconds is a duration in whole seconds, or nil when unset ("Never" is unset too).
func seconds(d api.NillableDuration) *int32 {
	if d.Duration == nil {
		return nil
	}
	s := int32(d.Duration.Seconds())
	return &s
}
