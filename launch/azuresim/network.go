package azuresim

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
)

// AddLoadBalancer stores (or replaces) a load balancer in rg. Backend pools
// need only a name; the simulator fills in IDs, as ARM does. It returns the
// pool IDs in order.
func (s *Sim) AddLoadBalancer(rg string, lb armnetwork.LoadBalancer) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := *lb.Name
	lb.ID = to.Ptr(s.networkID(rg, "loadBalancers", name))
	lb.Type, lb.Location = to.Ptr("Microsoft.Network/loadBalancers"), to.Ptr(s.opts.Location)
	if lb.Properties == nil {
		lb.Properties = &armnetwork.LoadBalancerPropertiesFormat{}
	}
	var ids []string
	for _, p := range lb.Properties.BackendAddressPools {
		p.ID = to.Ptr(*lb.ID + "/backendAddressPools/" + *p.Name)
		ids = append(ids, *p.ID)
	}
	s.lbs[key(rg, name)] = &lb
	return ids
}

// RemoveLoadBalancer deletes a load balancer, e.g. before adding it back
// with other pools.
func (s *Sim) RemoveLoadBalancer(rg, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.lbs, key(rg, name))
}

// AddNetworkSecurityGroup stores an empty network security group in rg and
// returns its ID.
func (s *Sim) AddNetworkSecurityGroup(rg, name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.networkID(rg, "networkSecurityGroups", name)
	s.nsgs[key(rg, name)] = &armnetwork.SecurityGroup{
		ID: to.Ptr(id), Name: to.Ptr(name), Type: to.Ptr("Microsoft.Network/networkSecurityGroups"),
		Location: to.Ptr(s.opts.Location), Properties: &armnetwork.SecurityGroupPropertiesFormat{},
	}
	return id
}

func (s *Sim) networkID(rg, kind, name string) string {
	return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Network/%s/%s", s.opts.SubscriptionID, rg, kind, name)
}

func (s *Sim) getNetworkResource(c call) reply {
	if c.op == OpLBGet {
		if lb, ok := s.lbs[key(c.rg, c.name)]; ok {
			return jsonReply(http.StatusOK, lb)
		}
		return notFound("Microsoft.Network/loadBalancers", c.rg, c.name)
	}
	if nsg, ok := s.nsgs[key(c.rg, c.name)]; ok {
		return jsonReply(http.StatusOK, nsg)
	}
	return notFound("Microsoft.Network/networkSecurityGroups", c.rg, c.name)
}

func (s *Sim) listNetworkResources(c call) reply {
	var all []any
	if c.op == OpLBList {
		for _, k := range sortedIn(s.lbs, c.rg) {
			all = append(all, s.lbs[k])
		}
	} else {
		for _, k := range sortedIn(s.nsgs, c.rg) {
			all = append(all, s.nsgs[k])
		}
	}
	return s.page(c, all)
}

// missingPool returns the first backend pool a NIC names that this
// subscription should hold but does not. Pools of other subscriptions are
// not simulated and pass.
func (s *Sim) missingPool(nic *armnetwork.Interface) (string, bool) {
	own := strings.ToLower("/subscriptions/" + s.opts.SubscriptionID + "/")
	for _, ip := range nic.Properties.IPConfigurations {
		for _, pool := range ip.Properties.LoadBalancerBackendAddressPools {
			if pool == nil || pool.ID == nil || !strings.HasPrefix(strings.ToLower(*pool.ID), own) {
				continue
			}
			if !s.hasPool(*pool.ID) {
				return *pool.ID, true
			}
		}
	}
	return "", false
}

func (s *Sim) hasPool(id string) bool {
	seg := strings.Split(strings.Trim(id, "/"), "/")
	if len(seg) != 10 {
		return false
	}
	lb, ok := s.lbs[key(seg[3], seg[7])]
	if !ok {
		return false
	}
	for _, p := range lb.Properties.BackendAddressPools {
		if strings.EqualFold(*p.ID, id) {
			return true
		}
	}
	return false
}
