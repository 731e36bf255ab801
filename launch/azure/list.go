package azure

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/napkit/napkit/launch"
)

// Get returns the VM named by providerID, or the AKS Machine behind it.
func (l *Launcher) Get(ctx context.Context, providerID string) (*launch.Instance, error) {
	ref, err := l.parseOwnProviderID(providerID)
	if err != nil {
		return nil, err
	}
	if name, ok := l.machineOf(ref.Name); ok {
		return l.getMachineInstance(ctx, providerID, name)
	}
	resp, err := l.vms.Get(ctx, l.opts.ResourceGroup, ref.Name, nil)
	if isNotFound(err) {
		return nil, fmt.Errorf("%w: %s", launch.ErrNotFound, providerID)
	}
	if err != nil {
		return nil, cloudError("get virtual machine", ref.Name, err)
	}
	return l.instance(&resp.VirtualMachine)
}

// List returns the VMs tagged for the cluster, by name; in the Machine API
// modes, the pool's machines too. It pages through the resource group's VMs
// and filters by tag here, which needs no Resource Graph access.
func (l *Launcher) List(ctx context.Context) ([]*launch.Instance, error) {
	vms, err := l.listVMs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*launch.Instance, 0, len(vms))
	for _, vm := range vms {
		inst, err := l.instance(vm)
		if err != nil {
			return nil, err
		}
		out = append(out, inst)
	}
	if !l.opts.Mode.IsMachineAPI() {
		return out, nil
	}
	machines, err := l.listMachines(ctx)
	if err != nil {
		return nil, err
	}
	fromMachines, err := l.machineInstances(machines)
	if err != nil {
		return nil, err
	}
	out = append(out, fromMachines...)
	slices.SortFunc(out, func(a, b *launch.Instance) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// listVMs returns the cluster's VMs, sorted by name.
func (l *Launcher) listVMs(ctx context.Context) ([]*armcompute.VirtualMachine, error) {
	var vms []*armcompute.VirtualMachine
	pager := l.vms.NewListPager(l.opts.ResourceGroup, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, cloudError("list virtual machines in", l.opts.ResourceGroup, err)
		}
		for _, vm := range page.Value {
			if vm != nil && vm.Name != nil && l.ownsVMResource(vm.Tags) {
				vms = append(vms, vm)
			}
		}
	}
	slices.SortFunc(vms, func(a, b *armcompute.VirtualMachine) int { return strings.Compare(*a.Name, *b.Name) })
	return vms, nil
}

// ownsVMResource reports whether tags mark a VM or NIC as one this
// cluster's VM-mode launches made (not the VM of an AKS Machine).
func (l *Launcher) ownsVMResource(tags map[string]*string) bool {
	v := tags[TagCluster]
	return v != nil && *v == l.opts.ClusterName && tags[TagMachineNodeClaim] == nil
}

// instance converts a VM to a launch.Instance.
func (l *Launcher) instance(vm *armcompute.VirtualMachine) (*launch.Instance, error) {
	name := deref(vm.Name)
	zone, err := zoneLabel(deref(vm.Location), vm.Zones)
	if err != nil {
		return nil, fmt.Errorf("%w: VM %s: %w", launch.ErrCloud, name, err)
	}
	nodeClaim, _ := NodeClaimName(name)
	tags := fromARMTags(vm.Tags)
	inst := &launch.Instance{
		Name:          name,
		ProviderID:    l.providerID(name),
		Zone:          zone,
		CapacityType:  launch.CapacityTypeOnDemand,
		NodeClaimName: nodeClaim,
		NodePool:      tags[TagNodePool],
		Tags:          tags,
		State:         provisioningState(vm),
	}
	if p := vm.Properties; p != nil {
		inst.CreatedAt = derefTime(p.TimeCreated)
		if p.Priority != nil && *p.Priority == armcompute.VirtualMachinePriorityTypesSpot {
			inst.CapacityType = launch.CapacityTypeSpot
		}
		if p.HardwareProfile != nil && p.HardwareProfile.VMSize != nil {
			inst.SKU = string(*p.HardwareProfile.VMSize)
		}
		inst.ImageID = imageID(p.StorageProfile)
	}
	return inst, nil
}

func imageID(sp *armcompute.StorageProfile) string {
	if sp == nil || sp.ImageReference == nil {
		return ""
	}
	if id := deref(sp.ImageReference.CommunityGalleryImageID); id != "" {
		return id
	}
	return deref(sp.ImageReference.ID)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func derefTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}
