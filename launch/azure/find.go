package azure

import (
	"context"
	"errors"

	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
)

// FindByNodeClaim returns the instance launched for a NodeClaim, or an error wrapping
// launch.ErrNotFound when there is none. It implements launch.NodeClaimFinder.
//
// Why: a NodeClaim whose launch failed before it reported a provider ID must still have its VM
// (or machine) removed, and the names napkit gives them are pure functions of the NodeClaim's
// name (ResourceName, bootstrap.MachineName), so one GET finds it where a List would page
// through every VM in the resource group: at 1,000 VMs that is 50 reads per claim, spent from the
// same ARM read budget as the launches.
//
// In the Machine API modes the machine is looked up first and then, if there is none, the VM a
// VM-mode launcher would have made: a launcher switched between modes still finds the VMs it
// made before, as Get and Delete do.
func (l *Launcher) FindByNodeClaim(ctx context.Context, nodeClaimName string) (*launch.Instance, error) {
	if l.opts.Mode.IsMachineAPI() {
		name := bootstrap.MachineName(nodeClaimName)
		inst, err := l.getMachineInstance(ctx, "machine "+name, name)
		if !errors.Is(err, launch.ErrNotFound) {
			return inst, err
		}
	}
	return l.Get(ctx, l.providerID(ResourceName(nodeClaimName)))
}
