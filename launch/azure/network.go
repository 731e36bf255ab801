package azure

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"golang.org/x/sync/errgroup"

	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
)

// The AKS-managed network resources the lookups look for (reference 7.2).
var (
	clusterLoadBalancers = []string{"kubernetes", "kubernetes-internal"}
	ipv6BackendPools     = []string{"aksOutboundBackendPool-ipv6", "kubernetes-ipv6"}
	managedNSGPattern    = regexp.MustCompile(`^aks-agentpool-[0-9]{8}-nsg$`)
)

// nicNetwork is what a NIC joins besides its subnet.
type nicNetwork struct {
	pools []string
	nsg   string
	// lookedUp says the pools came from the lookup, so a NIC refusal may mean
	// they went stale.
	lookedUp bool
}

// networkFor resolves the NIC's backend pools and NSG; the two lookups run
// side by side.
func (l *Launcher) networkFor(ctx context.Context, req *launch.Request) (nicNetwork, error) {
	var n nicNetwork
	var g errgroup.Group
	g.Go(func() (err error) {
		n.pools, n.lookedUp, err = l.poolsFor(ctx, req)
		return err
	})
	g.Go(func() (err error) {
		n.nsg, err = l.nsgFor(ctx, req)
		return err
	})
	return n, g.Wait()
}

// poolsFor returns the request's pools, else the options', else the
// looked-up ones (reporting true).
func (l *Launcher) poolsFor(ctx context.Context, req *launch.Request) ([]string, bool, error) {
	switch {
	case len(req.LoadBalancerBackendPools) > 0:
		return req.LoadBalancerBackendPools, false, nil
	case len(l.opts.LoadBalancerBackendPools) > 0:
		return l.opts.LoadBalancerBackendPools, false, nil
	case l.opts.DisableNetworkLookup:
		return nil, false, nil
	}
	pools, err := l.pools.get(ctx, l.lookupPools)
	return pools, true, err
}

// nsgFor returns the NSG a NIC on req's subnet gets. A subnet of the
// AKS-managed VNET already carries AKS's NSG, so its NICs get none.
func (l *Launcher) nsgFor(ctx context.Context, req *launch.Request) (string, error) {
	switch {
	case req.NetworkSecurityGroupID != "":
		return req.NetworkSecurityGroupID, nil
	case isManagedVNET(req.SubnetID, l.opts.ResourceGroup):
		return "", nil
	case l.opts.NetworkSecurityGroupID != "":
		return l.opts.NetworkSecurityGroupID, nil
	case l.opts.DisableNetworkLookup:
		return "", nil
	}
	return l.nsg.get(ctx, l.lookupNSG)
}

// lookupPools lists the node resource group's load balancers once and keeps
// the NIC-based IPv4 backend pools of the cluster's two, sorted.
func (l *Launcher) lookupPools(ctx context.Context) ([]string, error) {
	var pools []string
	pager := l.lbs.NewListPager(l.opts.ResourceGroup, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, cloudError("list load balancers in", l.opts.ResourceGroup, err)
		}
		for _, lb := range page.Value {
			if lb != nil && lb.Properties != nil && slices.ContainsFunc(clusterLoadBalancers, nameIs(lb.Name)) {
				pools = append(pools, usablePools(lb.Properties.BackendAddressPools)...)
			}
		}
	}
	slices.Sort(pools)
	l.opts.Logger.Info("looked up load balancer backend pools", "resourceGroup", l.opts.ResourceGroup, "pools", len(pools))
	return pools, nil
}

// usablePools keeps pools a NIC can join: not IPv6, not IP-based (those
// list addresses in a VNET instead of NIC configurations).
func usablePools(pools []*armnetwork.BackendAddressPool) []string {
	var ids []string
	for _, p := range pools {
		if p == nil || p.ID == nil || slices.ContainsFunc(ipv6BackendPools, nameIs(p.Name)) || isIPBased(p) {
			continue
		}
		ids = append(ids, *p.ID)
	}
	return ids
}

func isIPBased(p *armnetwork.BackendAddressPool) bool {
	if p.Properties == nil {
		return false
	}
	if p.Properties.VirtualNetwork != nil {
		return true
	}
	return slices.ContainsFunc(p.Properties.LoadBalancerBackendAddresses, func(a *armnetwork.LoadBalancerBackendAddress) bool {
		return a != nil && a.Properties != nil && a.Properties.IPAddress != nil
	})
}

// lookupNSG finds AKS's managed NSG in the node resource group. None is not
// an error (the subnet may carry the NSG); two are, since either may be wrong.
func (l *Launcher) lookupNSG(ctx context.Context) (string, error) {
	var found []string
	pager := l.nsgs.NewListPager(l.opts.ResourceGroup, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return "", cloudError("list network security groups in", l.opts.ResourceGroup, err)
		}
		for _, nsg := range page.Value {
			if nsg != nil && nsg.ID != nil && managedNSGPattern.MatchString(deref(nsg.Name)) {
				found = append(found, *nsg.ID)
			}
		}
	}
	switch len(found) {
	case 0:
		l.opts.Logger.Warn("no AKS-managed network security group found; NICs on custom VNETs get none", "resourceGroup", l.opts.ResourceGroup)
		return "", nil
	case 1:
		return found[0], nil
	}
	slices.Sort(found)
	return "", fmt.Errorf("%w: %d AKS-managed network security groups in %s: %s",
		launch.ErrCloud, len(found), l.opts.ResourceGroup, strings.Join(found, ", "))
}

// isManagedVNET reports whether subnetID is the subnet of the VNET AKS made
// in the node resource group (aks-vnet-<8 digits>/aks-subnet).
func isManagedVNET(subnetID, nodeResourceGroup string) bool {
	s, err := bootstrap.ParseSubnetID(subnetID)
	return err == nil && s.InAKSManagedVNET(nodeResourceGroup)
}

// nameIs matches an ARM name case-insensitively, as ARM compares names.
func nameIs(name *string) func(string) bool {
	return func(want string) bool { return name != nil && strings.EqualFold(*name, want) }
}
