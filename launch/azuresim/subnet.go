package azuresim

import (
	"fmt"
	"net/http"
	"strings"
)

// OpSubnetGet reads a virtual network subnet (what upstream's AKSNodeClass SubnetsReady check
// does). The simulator serves only subnets added with AddSubnet; NIC PUTs do not consult them.
const OpSubnetGet Op = "subnet.get"

// AddSubnet makes subnet name of virtual network vnet in resource group rg exist; a subnet never
// added answers 404 NotFound.
func (s *Sim) AddSubnet(rg, vnet, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lists.subnets == nil {
		s.lists.subnets = map[string]bool{}
	}
	s.lists.subnets[key(rg, vnet+"/"+name)] = true
}

func (s *Sim) getSubnet(c call) reply {
	vnet, name, _ := strings.Cut(c.name, "/")
	id := fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Network/virtualNetworks/%s/subnets/%s",
		s.opts.SubscriptionID, c.rg, vnet, name)
	if !s.lists.subnets[key(c.rg, c.name)] {
		return errorReply(http.StatusNotFound, "NotFound", fmt.Sprintf("Resource %s not found.", id))
	}
	return jsonReply(http.StatusOK, map[string]any{"id": id, "name": name, "type": "Microsoft.Network/virtualNetworks/subnets",
		"properties": map[string]any{"addressPrefix": "10.224.0.0/16", "provisioningState": "Succeeded"}})
}
