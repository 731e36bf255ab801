package azuresim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
)

const computeProvider = "Microsoft.Compute"

// putVM validates a VM, checks faults, quota and capacity, and starts its
// creation. Sync refusals create nothing; async ones leave a Failed VM.
func (s *Sim) putVM(c call, f Fault, faulted bool) reply {
	var vm armcompute.VirtualMachine
	_ = json.Unmarshal(c.body, &vm) // parse already checked it decodes
	k := key(c.rg, c.name)
	if old, ok := s.vms[k]; ok && old.state() != statusFailed {
		return jsonReply(http.StatusOK, old.model)
	}
	nic, rep := s.validateVM(c, &vm)
	if rep != nil {
		return *rep
	}
	failure, async := s.vmRefusal(c, f, faulted)
	if failure != nil && !async {
		return errorReply(http.StatusConflict, failure.Code, failure.Message)
	}
	rec := s.createVM(c, vm, nic)
	op, opURL := s.startOperation(c, computeProvider, func() *armError {
		state := statusSucceeded
		if failure != nil {
			state = statusFailed
		}
		rec.model.Properties.ProvisioningState = to.Ptr(state)
		return failure
	})
	rec.op = op
	return asyncReply(jsonReply(http.StatusCreated, rec.model), opURL)
}

// validateVM checks what ARM checks before accepting a VM: location, size,
// zones and an existing, free NIC.
func (s *Sim) validateVM(c call, vm *armcompute.VirtualMachine) (*nicRecord, *reply) {
	bad := func(code, format string, args ...any) (*nicRecord, *reply) {
		r := badRequest(code, format, args...)
		return nil, &r
	}
	p := vm.Properties
	switch {
	case vm.Location == nil || !strings.EqualFold(*vm.Location, s.opts.Location):
		return bad("LocationNotAvailableForResourceType", "location must be %s", s.opts.Location)
	case p == nil || p.HardwareProfile == nil || p.HardwareProfile.VMSize == nil:
		return bad("InvalidParameter", "Required parameter 'hardwareProfile.vmSize' is missing.")
	case len(vm.Zones) > 1:
		return bad("InvalidParameter", "A virtual machine can be placed in at most one zone.")
	case p.NetworkProfile == nil || len(p.NetworkProfile.NetworkInterfaces) != 1 || p.NetworkProfile.NetworkInterfaces[0].ID == nil:
		return bad("InvalidParameter", "Exactly one network interface is required.")
	}
	if trustedLaunchImage(p.StorageProfile) && !trustedLaunchVM(p.SecurityProfile) {
		// ARM's answer when a TrustedLaunch-only gallery image meets a VM without securityType.
		return bad("BadRequest", "The provided gallery image only supports creation of VMs and VM Scale Sets with 'TrustedLaunch' security type.")
	}
	nicID := *p.NetworkProfile.NetworkInterfaces[0].ID
	nic, ok := s.nics[key(c.rg, lastSegment(nicID))]
	if !ok {
		return bad("NotFound", "Resource %s not found.", nicID)
	}
	if attached := nic.model.Properties.VirtualMachine; attached != nil && !strings.EqualFold(lastSegment(*attached.ID), c.name) {
		return bad("NicInUse", "Network interface %s is used by virtual machine %s.", nicID, *attached.ID)
	}
	return nic, nil
}

// vmRefusal is the failure a VM PUT meets: an injected fault, an unknown
// size, quota, then capacity. async says it arrives through the operation.
func (s *Sim) vmRefusal(c call, f Fault, faulted bool) (*armError, bool) {
	if faulted {
		if e, ok := s.vmFailure(f, c); ok {
			return &e, f.Async
		}
	}
	sku, ok := s.opts.SKUs[c.sku]
	if !ok {
		e := skuNotAvailable(c.sku, s.opts.Location)
		return &e, false
	}
	if e := s.quotaRefusal(c, sku); e != nil {
		return e, false
	}
	if limit, ok := s.opts.Capacity[Slot{SKU: c.sku, Zone: c.zone}]; ok && s.liveVMs(c.sku, c.zone) >= limit {
		e := allocationFailed(c.zone != Regional)
		return &e, true
	}
	return nil, false
}

// createVM stores the VM as ARM would return it: server fields set,
// customData dropped (ARM never returns it), NIC attached.
func (s *Sim) createVM(c call, vm armcompute.VirtualMachine, nic *nicRecord) *vmRecord {
	id := fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Compute/virtualMachines/%s",
		s.opts.SubscriptionID, c.rg, c.name)
	vm.ID, vm.Name, vm.Type = to.Ptr(id), to.Ptr(c.name), to.Ptr("Microsoft.Compute/virtualMachines")
	vm.Properties.ProvisioningState = to.Ptr("Creating")
	vm.Properties.TimeCreated = to.Ptr(s.opts.Clock())
	vm.Properties.VMID = to.Ptr(fmt.Sprintf("00000000-0000-0000-0000-%012d", s.newID()))
	if vm.Properties.OSProfile != nil {
		vm.Properties.OSProfile.CustomData = nil
	}
	nic.model.Properties.VirtualMachine = &armnetwork.SubResource{ID: to.Ptr(id)}
	spot := vm.Properties.Priority != nil && *vm.Properties.Priority == armcompute.VirtualMachinePriorityTypesSpot
	rec := &vmRecord{rg: c.rg, sku: c.sku, zone: c.zone, spot: spot, model: vm}
	s.vms[key(c.rg, c.name)] = rec
	return rec
}

func (s *Sim) getVM(c call) reply {
	vm, ok := s.vms[key(c.rg, c.name)]
	if !ok {
		return notFound("Microsoft.Compute/virtualMachines", c.rg, c.name)
	}
	if vm.op != nil {
		vm.op.advance(s.opts.Clock())
	}
	return jsonReply(http.StatusOK, vm.model)
}

// deleteVM marks the VM Deleting; the operation removes it and, per their
// deleteOption, its NIC.
func (s *Sim) deleteVM(c call) reply {
	k := key(c.rg, c.name)
	vm, ok := s.vms[k]
	if !ok {
		return emptyReply(http.StatusNoContent)
	}
	vm.model.Properties.ProvisioningState = to.Ptr("Deleting")
	_, opURL := s.startOperation(c, computeProvider, func() *armError {
		s.removeVM(k)
		return nil
	})
	return asyncReply(emptyReply(http.StatusAccepted), opURL)
}

// removeVM deletes the VM and the NICs it says to delete with it.
func (s *Sim) removeVM(k string) {
	vm, ok := s.vms[k]
	if !ok {
		return
	}
	delete(s.vms, k)
	for _, ref := range vm.model.Properties.NetworkProfile.NetworkInterfaces {
		nk := key(vm.rg, lastSegment(*ref.ID))
		if nic, ok := s.nics[nk]; ok {
			nic.model.Properties.VirtualMachine = nil
			if ref.Properties != nil && ref.Properties.DeleteOption != nil && *ref.Properties.DeleteOption == armcompute.DeleteOptionsDelete {
				delete(s.nics, nk)
			}
		}
	}
}

func (s *Sim) listVMs(c call) reply {
	var all []any
	for _, name := range s.sortedKeys(c.rg, true) {
		vm := s.vms[name]
		if vm.op != nil {
			vm.op.advance(s.opts.Clock())
		}
		all = append(all, vm.model)
	}
	return s.page(c, all)
}

func (r *vmRecord) state() string {
	if r.model.Properties.ProvisioningState == nil {
		return ""
	}
	return *r.model.Properties.ProvisioningState
}

// live reports whether the VM holds capacity and quota: failed ones do not.
func (r *vmRecord) live() bool { return r.state() != statusFailed }

// tlDefinition matches the image definitions AKS publishes for trusted launch only
// (2204gen2TLcontainerd, 2204gen2fipsTLcontainerd, ...): such images boot only on a TrustedLaunch VM.
var tlDefinition = regexp.MustCompile(`(?i)/images/[^/]*gen2(fips)?TL[^/]*/`)

func trustedLaunchImage(sp *armcompute.StorageProfile) bool {
	if sp == nil || sp.ImageReference == nil {
		return false
	}
	for _, id := range []*string{sp.ImageReference.ID, sp.ImageReference.CommunityGalleryImageID, sp.ImageReference.SharedGalleryImageID} {
		if id != nil && tlDefinition.MatchString(*id) {
			return true
		}
	}
	return false
}

func trustedLaunchVM(sp *armcompute.SecurityProfile) bool {
	return sp != nil && sp.SecurityType != nil && *sp.SecurityType == armcompute.SecurityTypesTrustedLaunch
}

func lastSegment(id string) string { return id[strings.LastIndexByte(id, '/')+1:] }
