package azure

import (
	"context"
	"maps"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
)

// ExpectedTags are the tags a VM of nodePool launched from a node class with nodeClassTags
// carries: what UpdateTags brings an existing VM and its NIC to.
func (l *Launcher) ExpectedTags(nodePool string, nodeClassTags map[string]string) map[string]string {
	return resourceTags(l.opts.ClusterName, nodePool, nodeClassTags)
}

// UpdateTags brings the tags of the VM behind providerID, and of its NIC, to the expected tags
// in place, as the Azure provider does when only AKSNodeClass tags change (upstream:
// pkg/controllers/nodeclaim/inplaceupdate): a VM PATCH and a NIC tags PATCH, each sent only when
// the tags differ. Tags are replaced as a whole, so a tag removed from the node class goes; the
// NIC keeps its creation-time tag. It reports whether anything was written. An AKS Machine's VM
// is not napkit's to patch and is left alone.
func (l *Launcher) UpdateTags(ctx context.Context, providerID, nodePool string, nodeClassTags map[string]string) (bool, error) {
	ref, err := l.parseOwnProviderID(providerID)
	if err != nil {
		return false, err
	}
	if _, ok := l.machineOf(ref.Name); ok {
		return false, nil
	}
	release, err := l.acquire(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	want := l.ExpectedTags(nodePool, nodeClassTags)
	vmChanged, err := l.updateVMTags(ctx, ref.Name, want)
	if err != nil {
		return false, err
	}
	nicChanged, err := l.updateNICTags(ctx, ref.Name, want)
	return vmChanged || nicChanged, err
}

func (l *Launcher) updateVMTags(ctx context.Context, name string, want map[string]string) (bool, error) {
	resp, err := l.vms.Get(ctx, l.opts.ResourceGroup, name, nil)
	if err != nil {
		return false, cloudError("get virtual machine", name, err)
	}
	if sameTags(resp.Tags, want) {
		return false, nil
	}
	poller, err := l.vms.BeginUpdate(ctx, l.opts.ResourceGroup, name, armcompute.VirtualMachineUpdate{Tags: tagPtrs(want)}, nil)
	if err == nil {
		_, err = pollUntilDone(ctx, poller, l.pace)
	}
	if err != nil {
		return false, cloudError("update virtual machine tags", name, err)
	}
	return true, nil
}

func (l *Launcher) updateNICTags(ctx context.Context, name string, want map[string]string) (bool, error) {
	resp, err := l.nics.Get(ctx, l.opts.ResourceGroup, name, nil)
	if isNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, cloudError("get network interface", name, err)
	}
	want = maps.Clone(want)
	if at := resp.Tags[TagCreatedAt]; at != nil {
		want[TagCreatedAt] = *at
	}
	if sameTags(resp.Tags, want) {
		return false, nil
	}
	if _, err := l.nics.UpdateTags(ctx, l.opts.ResourceGroup, name, armnetwork.TagsObject{Tags: tagPtrs(want)}, nil); err != nil {
		return false, cloudError("update network interface tags", name, err)
	}
	return true, nil
}

func sameTags(have map[string]*string, want map[string]string) bool {
	if len(have) != len(want) {
		return false
	}
	for k, v := range want {
		if h, ok := have[k]; !ok || h == nil || *h != v {
			return false
		}
	}
	return true
}

func tagPtrs(tags map[string]string) map[string]*string {
	out := make(map[string]*string, len(tags))
	for k, v := range tags {
		out[k] = to.Ptr(v)
	}
	return out
}
