package azure

import (
	"context"
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/napkit/napkit/launch"
)

// Delete force-deletes the VM, then its NIC; in the Machine API modes it
// deletes the AKS Machine behind the VM. A VM or machine that is gone is
// success (a VM's NIC is still removed); one already deleting is left to finish.
func (l *Launcher) Delete(ctx context.Context, providerID string) error {
	ref, err := l.parseOwnProviderID(providerID)
	if err != nil {
		return err
	}
	release, err := l.acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	if name, ok := l.machineOf(ref.Name); ok {
		return l.deleteMachineInstance(ctx, name)
	}
	resp, err := l.vms.Get(ctx, l.opts.ResourceGroup, ref.Name, nil)
	switch {
	case isNotFound(err):
		return l.deleteNIC(ctx, ref.Name)
	case err != nil:
		return cloudError("get virtual machine", ref.Name, err)
	case provisioningState(&resp.VirtualMachine) == launch.StateDeleting:
		return nil
	}
	if err := l.deleteVM(ctx, ref.Name); err != nil {
		return err
	}
	return l.deleteNIC(ctx, ref.Name)
}

// deleteVM force-deletes the VM: its node is being removed, so a graceful
// shutdown only delays the NodeClaim. A VM that is gone is success.
func (l *Launcher) deleteVM(ctx context.Context, name string) error {
	opts := &armcompute.VirtualMachinesClientBeginDeleteOptions{ForceDeletion: to.Ptr(true)}
	poller, err := l.vms.BeginDelete(ctx, l.opts.ResourceGroup, name, opts)
	if err == nil {
		_, err = pollUntilDone(ctx, poller, l.pace)
	}
	if err != nil && !isNotFound(err) {
		return cloudError("delete virtual machine", name, err)
	}
	return nil
}

// parseOwnProviderID parses providerID and checks it names a VM in the
// launcher's subscription and resource group.
func (l *Launcher) parseOwnProviderID(providerID string) (VMRef, error) {
	ref, err := ParseProviderID(providerID)
	if err != nil {
		return VMRef{}, err
	}
	if !strings.EqualFold(ref.SubscriptionID, l.opts.SubscriptionID) || !strings.EqualFold(ref.ResourceGroup, l.opts.ResourceGroup) {
		return VMRef{}, fmt.Errorf("%w %q: not in subscription %s resource group %s",
			launch.ErrInvalidProviderID, providerID, l.opts.SubscriptionID, l.opts.ResourceGroup)
	}
	return ref, nil
}
