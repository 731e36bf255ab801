package azure

import (
	"context"
	"fmt"
	"slices"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/napkit/napkit/launch"
)

// nicBody is the NIC of a launch: a primary dynamic IPv4 configuration on
// the subnet with the load-balancer backend pools of net, then
// req.PodIPConfigurations secondary ones (ipconfig1, ...) for pods' addresses
// (Azure CNI node subnet; they join no pool), accelerated networking as the
// SKU allows, the NSG of net, and the launch tags.
func (l *Launcher) nicBody(req *launch.Request, c launch.Choice, net nicNetwork, tags map[string]string) armnetwork.Interface {
	name := ResourceName(req.NodeClaimName)
	ipConfig := &armnetwork.InterfaceIPConfigurationPropertiesFormat{
		Primary:                   to.Ptr(true),
		PrivateIPAllocationMethod: to.Ptr(armnetwork.IPAllocationMethodDynamic),
		PrivateIPAddressVersion:   to.Ptr(armnetwork.IPVersionIPv4),
		Subnet:                    &armnetwork.Subnet{ID: to.Ptr(req.SubnetID)},
	}
	for _, pool := range net.pools {
		ipConfig.LoadBalancerBackendAddressPools = append(ipConfig.LoadBalancerBackendAddressPools,
			&armnetwork.BackendAddressPool{ID: to.Ptr(pool)})
	}
	props := &armnetwork.InterfacePropertiesFormat{
		EnableAcceleratedNetworking: to.Ptr(c.Candidate.AcceleratedNetworking),
		EnableIPForwarding:          to.Ptr(false),
		IPConfigurations:            []*armnetwork.InterfaceIPConfiguration{{Name: to.Ptr(name), Properties: ipConfig}},
	}
	for i := 1; i <= req.PodIPConfigurations; i++ {
		props.IPConfigurations = append(props.IPConfigurations, &armnetwork.InterfaceIPConfiguration{
			Name: to.Ptr(fmt.Sprintf("ipconfig%d", i)),
			Properties: &armnetwork.InterfaceIPConfigurationPropertiesFormat{
				Primary:                   to.Ptr(false),
				PrivateIPAllocationMethod: to.Ptr(armnetwork.IPAllocationMethodDynamic),
				PrivateIPAddressVersion:   to.Ptr(armnetwork.IPVersionIPv4),
				Subnet:                    &armnetwork.Subnet{ID: to.Ptr(req.SubnetID)},
			},
		})
	}
	if net.nsg != "" {
		props.NetworkSecurityGroup = &armnetwork.SecurityGroup{ID: to.Ptr(net.nsg)}
	}
	return armnetwork.Interface{
		Location:   to.Ptr(l.opts.Location),
		Properties: props,
		Tags:       toARMTags(nicTags(tags, l.opts.Clock())),
	}
}

// putNIC creates or updates the NIC and returns its ID. PUT is idempotent, so
// a retry after a crash rewrites the same NIC. When ARM refuses a NIC whose
// pools were looked up, the pools may have changed since (a load balancer
// rebuilt): they are looked up again and, if they differ, the PUT is retried
// once, as the reference does. A 429 says nothing about the pools, and a
// look-up then would only spend more of the reads ARM is refusing.
func (l *Launcher) putNIC(ctx context.Context, req *launch.Request, c launch.Choice, net nicNetwork, tags map[string]string) (string, error) {
	err := l.putNICOnce(ctx, req, c, net, tags)
	if err != nil && net.lookedUp && armRejected(err) && !isThrottled(err) {
		l.pools.invalidate()
		fresh, _, lookupErr := l.poolsFor(ctx, req)
		if lookupErr == nil && !slices.Equal(fresh, net.pools) {
			net.pools = fresh
			err = l.putNICOnce(ctx, req, c, net, tags)
		}
	}
	if err != nil {
		return "", err
	}
	return l.nicID(ResourceName(req.NodeClaimName)), nil
}

// putNICOnce PUTs the NIC and waits for it. The NIC's ID is known from its
// name, so the operation's final GET is skipped.
func (l *Launcher) putNICOnce(ctx context.Context, req *launch.Request, c launch.Choice, net nicNetwork, tags map[string]string) error {
	name := ResourceName(req.NodeClaimName)
	poller, err := l.nics.BeginCreateOrUpdate(ctx, l.opts.ResourceGroup, name, l.nicBody(req, c, net, tags), nil)
	if err != nil {
		return err
	}
	return pollSucceeded(ctx, poller, l.pace)
}

// deleteNIC deletes the NIC; a NIC that is already gone is success.
func (l *Launcher) deleteNIC(ctx context.Context, name string) error {
	poller, err := l.nics.BeginDelete(ctx, l.opts.ResourceGroup, name, nil)
	if err == nil {
		_, err = pollUntilDone(ctx, poller, l.pace)
	}
	if err != nil && !isNotFound(err) {
		return cloudError("delete network interface", name, err)
	}
	return nil
}
