package api

import "slices"

// The resolved LocalDNS states an AKSNodeClass status records.
const (
	LocalDNSStateEnabled  = "Enabled"
	LocalDNSStateDisabled = "Disabled"
)

// LocalDNSEnabled reports whether nodes of this class get LocalDNS: always with mode Required, never
// without spec.localDNS or with mode Disabled, and with mode Preferred only once the status has
// resolved it to Enabled (LocalDNSStateEnabled). An unresolved Preferred is disabled, as upstream's
// AKSNodeClass.IsLocalDNSEnabled treats a status not yet written.
func (nc *AKSNodeClass) LocalDNSEnabled() bool {
	if nc == nil || nc.Spec.LocalDNS == nil {
		return false
	}
	switch nc.Spec.LocalDNS.Mode {
	case LocalDNSModeRequired:
		return true
	case LocalDNSModePreferred:
		return nc.Status.LocalDNSState == LocalDNSStateEnabled
	}
	return false
}

// LocalDNSForWire is spec.localDNS as the bootstrap payloads carry it: Preferred is replaced by the
// resolved decision (Required or Disabled), so AKS never decides it again differently per node. Nil
// without spec.localDNS. The result shares nothing with nc.
func (nc *AKSNodeClass) LocalDNSForWire() *LocalDNS {
	if nc == nil || nc.Spec.LocalDNS == nil {
		return nil
	}
	out := *nc.Spec.LocalDNS
	out.VnetDNSOverrides = cloneOverrides(out.VnetDNSOverrides)
	out.KubeDNSOverrides = cloneOverrides(out.KubeDNSOverrides)
	if out.Mode == LocalDNSModePreferred {
		out.Mode = LocalDNSModeDisabled
		if nc.LocalDNSEnabled() {
			out.Mode = LocalDNSModeRequired
		}
	}
	return &out
}

func cloneOverrides(in []LocalDNSZoneOverride) []LocalDNSZoneOverride {
	out := slices.Clone(in)
	for i := range out {
		o := &out[i]
		if o.MaxConcurrent != nil {
			v := *o.MaxConcurrent
			o.MaxConcurrent = &v
		}
		for _, d := range []*NillableDuration{&o.CacheDuration, &o.ServeStaleDuration} {
			if d.Duration != nil {
				v := *d.Duration
				d.Duration = &v
			}
		}
	}
	return out
}
