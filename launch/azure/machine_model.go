package azure

import (
	"fmt"
	"maps"
	"strings"

	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
)

// machineResource is what the launcher reads of an AKS Machine.
type machineResource struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	Zones      []string `json:"zones"`
	Properties struct {
		ProvisioningState string `json:"provisioningState"`
		// ResourceID is the VM AKS made for the machine.
		ResourceID string `json:"resourceId"`
		Hardware   struct {
			VMSize string `json:"vmSize"`
		} `json:"hardware"`
		Kubernetes struct {
			NodeImageVersion string `json:"nodeImageVersion"`
		} `json:"kubernetes"`
		Priority string            `json:"priority"`
		Tags     map[string]string `json:"tags"`
		Status   *struct {
			ProvisioningError *armErrorBody `json:"provisioningError"`
		} `json:"status"`
	} `json:"properties"`
}

// provisioningError is the machine's recorded failure, if any.
func (m *machineResource) provisioningError() *armErrorBody {
	if m == nil || m.Properties.Status == nil {
		return nil
	}
	return m.Properties.Status.ProvisioningError
}

// state normalises the machine's provisioning state.
func (m *machineResource) state() launch.State {
	switch s := launch.State(m.Properties.ProvisioningState); s {
	case launch.StateCreating, launch.StateUpdating, launch.StateSucceeded, launch.StateFailed, launch.StateDeleting:
		return s
	default:
		return launch.StateUnknown
	}
}

// machineBody is b with the chosen offering's size, zone, priority and OS
// disk placement, and the launch tags: the offering is only known here.
func machineBody(b *bootstrap.Machine, c launch.Choice, tags map[string]string) bootstrap.Machine {
	body := *b
	body.Zones, _ = armZones(c.Offering.Zone) // validated with the request
	p := body.Properties
	p.Hardware.VMSize = c.Candidate.SKU
	p.Priority, p.EvictionPolicy, p.BillingProfile = "Regular", "", nil
	if c.Offering.CapacityType == launch.CapacityTypeSpot {
		p.Priority, p.EvictionPolicy = "Spot", "Delete"
		p.BillingProfile = &bootstrap.MachineBilling{MaxPrice: -1}
	}
	if size := p.OperatingSystem.OSDiskSizeGB; size > 0 {
		p.OperatingSystem.OSDiskType = "Managed"
		if c.Candidate.UsesEphemeralOSDisk(size) {
			p.OperatingSystem.OSDiskType = "Ephemeral"
		}
	}
	p.Tags = tags
	body.Properties = p
	return body
}

// machineTags are the body's tags under the launcher's own. The billing tag
// stays as imagefamily set it: a Windows machine bills as windows.
func (l *Launcher) machineTags(req *launch.Request, body *bootstrap.Machine) map[string]string {
	tags := maps.Clone(body.Properties.Tags)
	if tags == nil {
		tags = map[string]string{}
	}
	billing := tags[TagBilling]
	maps.Copy(tags, resourceTags(l.opts.ClusterName, req.NodePool, req.Tags))
	if billing != "" {
		tags[TagBilling] = billing
	}
	tags[TagMachineNodeClaim] = req.NodeClaimName
	tags[TagCreatedAt] = createdAt(l.opts.Clock())
	return tags
}

// machineInstance converts a machine to a launch.Instance named after its VM.
func (l *Launcher) machineInstance(m *machineResource) (*launch.Instance, error) {
	vmName := m.Name
	if m.Properties.ResourceID != "" {
		vmName = lastSegment(m.Properties.ResourceID)
	}
	zones := make([]*string, len(m.Zones))
	for i := range m.Zones {
		zones[i] = &m.Zones[i]
	}
	zone, err := zoneLabel(l.opts.Location, zones)
	if err != nil {
		return nil, fmt.Errorf("%w: machine %s: %w", launch.ErrCloud, m.Name, err)
	}
	tags := maps.Clone(m.Properties.Tags)
	inst := &launch.Instance{
		Name: vmName, ProviderID: l.providerID(vmName), SKU: m.Properties.Hardware.VMSize, Zone: zone,
		CapacityType: launch.CapacityTypeOnDemand, NodeClaimName: tags[TagMachineNodeClaim], NodePool: tags[TagNodePool],
		ImageID: m.Properties.Kubernetes.NodeImageVersion, Tags: tags, State: m.state(),
		CreatedAt: parseCreatedAt(tags[TagCreatedAt]),
	}
	if strings.EqualFold(m.Properties.Priority, "Spot") {
		inst.CapacityType = launch.CapacityTypeSpot
	}
	return inst, nil
}

// machineNameOfVM recovers the machine name from the name AKS gives its VM,
// aks-<pool>-<machine>-<8 characters>-vm (reference 7.1).
func machineNameOfVM(vmName, pool string) (string, bool) {
	rest, ok := strings.CutPrefix(vmName, vmNamePrefix+pool+"-")
	if !ok {
		return "", false
	}
	rest, ok = strings.CutSuffix(rest, "-vm")
	const suffixLen = 9 // "-" and 8 characters
	if !ok || len(rest) <= suffixLen || rest[len(rest)-suffixLen] != '-' {
		return "", false
	}
	return rest[:len(rest)-suffixLen], true
}

// lastSegment is the last path segment of an ARM ID.
func lastSegment(id string) string { return id[strings.LastIndexByte(id, '/')+1:] }
