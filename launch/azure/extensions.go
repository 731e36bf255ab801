package azure

import (
	"context"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"

	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
)

// VM extensions of the VM-based modes (reference 6.4 and 7.3).
const (
	// BillingExtensionName is the AKS billing extension every Linux node VM
	// gets in the public, China and US Government clouds: AKS meters nodes by it.
	BillingExtensionName = "computeAksLinuxBilling"
	billingPublisher     = "Microsoft.AKS"
	billingType          = "Compute.AKS.Linux.Billing"
	billingVersion       = "1.0"
	// CSEExtensionName is the custom script extension that runs the node
	// bootstrapping service's command in mode bootstrappingclient.
	CSEExtensionName = bootstrap.CSEExtensionName
	csePublisher     = "Microsoft.Azure.Extensions"
	cseType          = "CustomScript"
	cseVersion       = "2.0"
)

// addExtensions installs the VM's extensions, one after the other (a VM runs
// one extension operation at a time): the CSE first, since it bootstraps the
// node, then the billing extension. Each is its own ARM write: a VM PUT cannot
// carry extensions (its "resources" are read-only), so bootstrappingclient
// costs four writes per node and the other VM mode three.
func (l *Launcher) addExtensions(ctx context.Context, vmName string, b launch.Bootstrap, tags map[string]string) error {
	if l.opts.Mode == imagefamily.ModeBootstrappingClient {
		// The command carries the bootstrap token: protectedSettings are
		// encrypted by ARM and never returned.
		cse := l.extension(csePublisher, cseType, cseVersion, tags)
		cse.Properties.ProtectedSettings = map[string]string{"commandToExecute": b.CSE.Reveal()}
		if err := l.putExtension(ctx, vmName, CSEExtensionName, cse); err != nil {
			return err
		}
	}
	if !l.billing {
		return nil
	}
	return l.putExtension(ctx, vmName, BillingExtensionName, l.extension(billingPublisher, billingType, billingVersion, tags))
}

// extension is an extension body with the launch tags.
func (l *Launcher) extension(publisher, typ, version string, tags map[string]string) armcompute.VirtualMachineExtension {
	return armcompute.VirtualMachineExtension{
		Location: to.Ptr(l.opts.Location),
		Tags:     toARMTags(tags),
		Properties: &armcompute.VirtualMachineExtensionProperties{
			Publisher:               to.Ptr(publisher),
			Type:                    to.Ptr(typ),
			TypeHandlerVersion:      to.Ptr(version),
			AutoUpgradeMinorVersion: to.Ptr(true),
		},
	}
}

// putExtension creates the extension and waits until it has run.
func (l *Launcher) putExtension(ctx context.Context, vmName, name string, ext armcompute.VirtualMachineExtension) error {
	poller, err := l.exts.BeginCreateOrUpdate(ctx, l.opts.ResourceGroup, vmName, name, ext, nil)
	if err != nil {
		return err
	}
	return pollSucceeded(ctx, poller, l.pace)
}

// missingExtension names the first extension the mode installs that vmName lacks (or holds
// failed), or "" when it has them all.
func (l *Launcher) missingExtension(ctx context.Context, vmName string) (string, error) {
	var want []string
	if l.opts.Mode == imagefamily.ModeBootstrappingClient {
		want = append(want, CSEExtensionName)
	}
	if l.billing {
		want = append(want, BillingExtensionName)
	}
	for _, name := range want {
		resp, err := l.exts.Get(ctx, l.opts.ResourceGroup, vmName, name, nil)
		if isNotFound(err) {
			return name, nil
		}
		if err != nil {
			return "", err
		}
		if p := resp.Properties; p != nil && p.ProvisioningState != nil && launch.State(*p.ProvisioningState) == launch.StateFailed {
			return name, nil
		}
	}
	return "", nil
}
