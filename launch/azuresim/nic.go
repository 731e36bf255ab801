package azuresim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
)

const networkProvider = "Microsoft.Network"

// MaxIPConfigurationsPerNIC is Azure's limit of private IP addresses (IP configurations) per network
// interface. The error code of the refusal is the simulator's own.
const MaxIPConfigurationsPerNIC = 256

// putNIC creates or updates a NIC. Like ARM, it answers 201 (or 200) with a
// Succeeded provisioning state plus an Azure-AsyncOperation header. crash
// cuts the caller off from the name afterwards (FaultCrashAfterNIC).
func (s *Sim) putNIC(c call, crash bool) reply {
	var nic armnetwork.Interface
	if err := json.Unmarshal(c.body, &nic); err != nil {
		return badRequest("InvalidRequestContent", "The request content was invalid and could not be deserialized: %v", err)
	}
	if rep := s.validateNIC(&nic); rep != nil {
		return *rep
	}
	k := key(c.rg, c.name)
	status := http.StatusCreated
	if old, ok := s.nics[k]; ok {
		status = http.StatusOK
		nic.Properties.VirtualMachine = old.model.Properties.VirtualMachine
	}
	nic.ID = to.Ptr(fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Network/networkInterfaces/%s",
		s.opts.SubscriptionID, c.rg, c.name))
	nic.Name, nic.Type = to.Ptr(c.name), to.Ptr("Microsoft.Network/networkInterfaces")
	nic.Properties.ProvisioningState = to.Ptr(armnetwork.ProvisioningStateSucceeded)
	s.nics[k] = &nicRecord{rg: c.rg, model: nic}
	if crash {
		s.severed[key("", c.name)] = true
	}
	_, opURL := s.startOperation(c, networkProvider, func() *armError { return nil })
	return asyncReply(jsonReply(status, nic), opURL)
}

// validateNIC checks the location and that every IP configuration has a subnet.
func (s *Sim) validateNIC(nic *armnetwork.Interface) *reply {
	if nic.Location == nil || !strings.EqualFold(*nic.Location, s.opts.Location) {
		r := badRequest("LocationNotAvailableForResourceType", "location must be %s", s.opts.Location)
		return &r
	}
	if nic.Properties == nil || len(nic.Properties.IPConfigurations) == 0 {
		r := badRequest("InvalidRequestFormat", "A network interface needs at least one IP configuration.")
		return &r
	}
	if n := len(nic.Properties.IPConfigurations); n > MaxIPConfigurationsPerNIC {
		r := badRequest("TooManyIpConfigurationsPerNic", "A network interface can have at most %d IP configurations; this one has %d.", MaxIPConfigurationsPerNIC, n)
		return &r
	}
	primaries := 0
	for _, ip := range nic.Properties.IPConfigurations {
		if ip.Properties != nil && ip.Properties.Primary != nil && *ip.Properties.Primary {
			primaries++
		}
		if ip.Properties == nil || ip.Properties.Subnet == nil || ip.Properties.Subnet.ID == nil {
			r := badRequest("InvalidRequestFormat", "An IP configuration has no subnet.")
			return &r
		}
	}
	if len(nic.Properties.IPConfigurations) > 1 && primaries != 1 {
		r := badRequest("NetworkInterfaceMustHaveExactlyOnePrimaryIpConfiguration", "A network interface with several IP configurations needs exactly one primary; it has %d.", primaries)
		return &r
	}
	if pool, missing := s.missingPool(nic); missing {
		r := badRequest("InvalidResourceReference", "Resource %s referenced by resource %s was not found.", pool, "networkInterface")
		return &r
	}
	return nil
}

func (s *Sim) getNIC(c call) reply {
	nic, ok := s.nics[key(c.rg, c.name)]
	if !ok {
		return notFound("Microsoft.Network/networkInterfaces", c.rg, c.name)
	}
	return jsonReply(http.StatusOK, nic.model)
}

// deleteNIC deletes a free NIC. A missing NIC is 204, as ARM answers; a NIC
// still attached to a VM is refused.
func (s *Sim) deleteNIC(c call) reply {
	k := key(c.rg, c.name)
	nic, ok := s.nics[k]
	if !ok {
		return emptyReply(http.StatusNoContent)
	}
	if vm := nic.model.Properties.VirtualMachine; vm != nil {
		return badRequest("NicInUse", "Network Interface %s is used by existing resource %s.", *nic.model.ID, *vm.ID)
	}
	_, opURL := s.startOperation(c, networkProvider, func() *armError {
		delete(s.nics, k)
		return nil
	})
	return asyncReply(emptyReply(http.StatusAccepted), opURL)
}

func (s *Sim) listNICs(c call) reply {
	var all []any
	for _, k := range s.sortedKeys(c.rg, false) {
		all = append(all, s.nics[k].model)
	}
	return s.page(c, all)
}
