package azure

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/napkit/napkit/launch"
	"golang.org/x/sync/errgroup"
)

// CollectGarbage deletes the cluster's VMs, NICs and (in the Machine API
// modes) AKS Machines that no NodeClaim owns
// and that are older than gracePeriod at now. The grace period spares
// launches whose NodeClaim the caller has not seen yet. A NIC attached to a
// VM, or named like a listed VM, is left to that VM's deletion. Failures are
// joined; the pass deletes all it can.
func (l *Launcher) CollectGarbage(ctx context.Context, owned func(nodeClaimName string) bool,
	gracePeriod time.Duration, now time.Time) (launch.GCResult, error) {
	if owned == nil {
		return launch.GCResult{}, fmt.Errorf("%w: CollectGarbage needs an owned function", launch.ErrInvalidOptions)
	}
	vms, err := l.listVMs(ctx)
	if err != nil {
		return launch.GCResult{}, err
	}
	nics, err := l.listNICs(ctx)
	if err != nil {
		return launch.GCResult{}, err
	}
	orphan := func(name string, created time.Time) bool {
		nodeClaim, ok := NodeClaimName(name)
		return ok && !owned(nodeClaim) && now.Sub(created) >= gracePeriod
	}
	var res launch.GCResult
	var vmErr, nicErr error
	res.DeletedVMs, vmErr = l.deleteAll(ctx, orphanVMs(vms, orphan), l.deleteVMAndNIC)
	res.DeletedNICs, nicErr = l.deleteAll(ctx, orphanNICs(nics, vms, orphan), l.deleteNIC)
	var machineErr error
	res.DeletedMachines, machineErr = l.collectMachines(ctx, owned, gracePeriod, now)
	return res, errors.Join(vmErr, nicErr, machineErr)
}

// orphanVMs names the VMs orphan approves, skipping those already deleting.
func orphanVMs(vms []*armcompute.VirtualMachine, orphan func(string, time.Time) bool) []string {
	var names []string
	for _, vm := range vms {
		var created time.Time
		if vm.Properties != nil {
			created = derefTime(vm.Properties.TimeCreated)
		}
		if provisioningState(vm) != launch.StateDeleting && orphan(*vm.Name, created) {
			names = append(names, *vm.Name)
		}
	}
	return names
}

// orphanNICs names the unattached NICs orphan approves whose VM is not
// listed. A NIC without a readable creation tag counts as old.
func orphanNICs(nics []*armnetwork.Interface, vms []*armcompute.VirtualMachine, orphan func(string, time.Time) bool) []string {
	vmNames := make(map[string]bool, len(vms))
	for _, vm := range vms {
		vmNames[*vm.Name] = true
	}
	var names []string
	for _, nic := range nics {
		attached := nic.Properties != nil && nic.Properties.VirtualMachine != nil
		created := parseCreatedAt(deref(nic.Tags[TagCreatedAt]))
		if !attached && !vmNames[*nic.Name] && orphan(*nic.Name, created) {
			names = append(names, *nic.Name)
		}
	}
	return names
}

// deleteVMAndNIC deletes a VM and then its NIC.
func (l *Launcher) deleteVMAndNIC(ctx context.Context, name string) error {
	if err := l.deleteVM(ctx, name); err != nil {
		return err
	}
	return l.deleteNIC(ctx, name)
}

// deleteAll runs del on every name, MaxConcurrency at a time, and returns
// the names it deleted; one failure does not stop the others.
func (l *Launcher) deleteAll(ctx context.Context, names []string, del func(context.Context, string) error) ([]string, error) {
	errs := make([]error, len(names))
	var g errgroup.Group
	g.SetLimit(l.opts.MaxConcurrency)
	for i, name := range names {
		g.Go(func() error {
			errs[i] = del(ctx, name)
			return nil
		})
	}
	_ = g.Wait()
	var deleted []string
	for i, name := range names {
		if errs[i] == nil {
			deleted = append(deleted, name)
		}
	}
	return deleted, errors.Join(errs...)
}

// listNICs returns the cluster's NICs.
func (l *Launcher) listNICs(ctx context.Context) ([]*armnetwork.Interface, error) {
	var nics []*armnetwork.Interface
	pager := l.nics.NewListPager(l.opts.ResourceGroup, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, cloudError("list network interfaces in", l.opts.ResourceGroup, err)
		}
		for _, nic := range page.Value {
			if nic != nil && nic.Name != nil && l.ownsVMResource(nic.Tags) {
				nics = append(nics, nic)
			}
		}
	}
	return nics, nil
}
