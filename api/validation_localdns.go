package api

import (
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// LocalDNS enum values, zone names and limits from the CRD.
const (
	LocalDNSForwardClusterCoreDNS = "ClusterCoreDNS"
	LocalDNSForwardVnetDNS        = "VnetDNS"
	LocalDNSZoneRoot              = "."
	LocalDNSZoneClusterLocal      = "cluster.local"
	MaxLocalDNSOverrides          = 100
)

var (
	localDNSModes  = []string{string(LocalDNSModePreferred), string(LocalDNSModeRequired), string(LocalDNSModeDisabled)}
	queryLoggings  = []string{"Error", "Log"}
	dnsProtocols   = []string{"PreferUDP", "ForceTCP"}
	forwardDests   = []string{LocalDNSForwardClusterCoreDNS, LocalDNSForwardVnetDNS}
	forwardPols    = []string{"Sequential", "RoundRobin", "Random"}
	serveStales    = []string{"Verify", "Immediate", "Disable"}
	dnsZonePattern = regexp.MustCompile(`^(\.|[A-Za-z0-9]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)*\.?)$`)
)

// validateLocalDNS checks the mode and both override lists. Each list must cover the root zone and
// cluster.local, because LocalDNS replaces the node's resolver for all traffic of that kind.
func validateLocalDNS(p *field.Path, l *LocalDNS) []*FieldError {
	if l == nil {
		return nil
	}
	var errs []*FieldError
	if l.Mode == "" {
		errs = append(errs, required(p.Child("mode"), "one of %s", strings.Join(localDNSModes, ", ")))
	}
	errs = append(errs, oneOf(p.Child("mode"), string(l.Mode), localDNSModes...)...)
	errs = append(errs, validateOverrides(p.Child("vnetDNSOverrides"), l.VnetDNSOverrides, true)...)
	return append(errs, validateOverrides(p.Child("kubeDNSOverrides"), l.KubeDNSOverrides, false)...)
}

// validateOverrides checks one override list. From VnetDNS traffic (kubelet, dnsPolicy Default) only
// cluster zones may go to CoreDNS: sending other zones there would loop through the cluster.
func validateOverrides(p *field.Path, overrides []LocalDNSZoneOverride, vnet bool) []*FieldError {
	var errs []*FieldError
	if len(overrides) > MaxLocalDNSOverrides {
		errs = append(errs, tooMany(p, len(overrides), MaxLocalDNSOverrides))
	}
	zones := sets.New[string]()
	for i := range overrides {
		o := &overrides[i]
		op := p.Index(i)
		if zones.Has(o.Zone) {
			errs = append(errs, duplicate(op.Child("zone"), o.Zone))
		}
		zones.Insert(o.Zone)
		errs = append(errs, validateOverride(op, o)...)
		if vnet && o.ForwardDestination == LocalDNSForwardClusterCoreDNS && !isClusterZone(o.Zone) {
			errs = append(errs, invalid(op.Child("forwardDestination"), o.ForwardDestination,
				"zone %q is outside the cluster and cannot be forwarded to ClusterCoreDNS from vnetDNSOverrides", o.Zone))
		}
	}
	for _, z := range []string{LocalDNSZoneRoot, LocalDNSZoneClusterLocal} {
		if !zones.Has(z) {
			errs = append(errs, required(p, "must contain an override for zone %q (both '.' and 'cluster.local' are required)", z))
		}
	}
	return errs
}

func isClusterZone(zone string) bool { return strings.HasSuffix(zone, LocalDNSZoneClusterLocal) }

func validateOverride(p *field.Path, o *LocalDNSZoneOverride) []*FieldError {
	var errs []*FieldError
	if o.Zone == "" {
		errs = append(errs, required(p.Child("zone"), "a DNS zone such as '.' or 'cluster.local'"))
	} else if len(o.Zone) > 254 || !dnsZonePattern.MatchString(o.Zone) {
		errs = append(errs, invalid(p.Child("zone"), o.Zone, "must be '.' or a DNS name of at most 254 characters"))
	}
	errs = append(errs, oneOf(p.Child("queryLogging"), o.QueryLogging, queryLoggings...)...)
	errs = append(errs, oneOf(p.Child("protocol"), o.Protocol, dnsProtocols...)...)
	errs = append(errs, oneOf(p.Child("forwardDestination"), o.ForwardDestination, forwardDests...)...)
	errs = append(errs, oneOf(p.Child("forwardPolicy"), o.ForwardPolicy, forwardPols...)...)
	errs = append(errs, oneOf(p.Child("serveStale"), o.ServeStale, serveStales...)...)
	errs = append(errs, atLeast(p.Child("maxConcurrent"), o.MaxConcurrent, 0)...)
	errs = append(errs, validateCacheDuration(p.Child("cacheDuration"), o.CacheDuration)...)
	errs = append(errs, validateCacheDuration(p.Child("serveStaleDuration"), o.ServeStaleDuration)...)
	if isClusterZone(o.Zone) && o.ForwardDestination == LocalDNSForwardVnetDNS {
		errs = append(errs, invalid(p.Child("forwardDestination"), o.ForwardDestination, "'cluster.local' cannot be forwarded to VnetDNS, which does not know cluster names"))
	}
	if o.ServeStale == "Verify" && o.Protocol == "ForceTCP" {
		errs = append(errs, invalid(p.Child("serveStale"), o.ServeStale, "serveStale Verify cannot be used with protocol ForceTCP"))
	}
	return errs
}

// validateCacheDuration rejects an explicit "Never": cache durations have no off switch. An absent one
// is left to the platform default.
func validateCacheDuration(p *field.Path, d NillableDuration) []*FieldError {
	if d.IsSet() && d.IsNever() {
		return []*FieldError{invalid(p, Never, "must be a duration such as 3600s; Never is not allowed here")}
	}
	return validateNillableDuration(p, d)
}
