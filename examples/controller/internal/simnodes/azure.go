package simnodes

import (
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"

	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

// AzureOptions configure NewAzure.
type AzureOptions struct {
	// Catalogue gives the region and the VM sizes the simulated Azure offers (all of them).
	Catalogue *instancetype.Catalogue
	// ResourceGroup is the node resource group; ClusterName tags the VMs.
	ResourceGroup, ClusterName string
	// Latency delays every ARM call.
	Latency time.Duration
	// VMCreateTime is how long a VM create's long-running operation runs (0: done at its first
	// poll). The simulated kubelet boots a VM only once it has succeeded, as a real one is
	// started by that operation.
	VMCreateTime time.Duration
	// RateLimits, if set, throttle the simulated Azure's calls as ARM's buckets do
	// (azuresim.ARMSubscriptionLimits), and the launcher then keeps its own defaults
	// (PollFrequency, PollRate, RequestRates), as on Azure, so the calls it spends are a real launcher's.
	RateLimits *azuresim.RateLimits
	// Mode is the launcher's provisioning mode ("" is aksscriptless). In the Machine API modes the
	// launcher PUTs AKS Machines in MachinesPool of the managed cluster ClusterName in
	// ClusterResourceGroup, whose VMs the simulated Azure puts in
	// azuresim.MachineNodeResourceGroup(ClusterResourceGroup, ClusterName, region): that must be
	// ResourceGroup. VMCreateTime is then the machine create's.
	Mode                               imagefamily.Mode
	MachinesPool, ClusterResourceGroup string
	// Offerings is the unavailable-offerings cache the launcher marks (share it with the controller).
	Offerings *launch.UnavailableOfferings
	Seed      uint64
	Clock     func() time.Time
	Logger    *slog.Logger
}

// NewAzure returns a simulated Azure Resource Manager that offers every size of the catalogue in
// the catalogue's region, and the real Azure launcher pointed at it through the SDK's transport
// seam: the controller cannot tell it from Azure except by its speed.
func NewAzure(opts AzureOptions) (*azuresim.Sim, *azure.Launcher, error) {
	skus := map[string]azuresim.SKU{}
	for _, it := range opts.Catalogue.InstanceTypes {
		if it.SKU != nil {
			skus[it.Name] = azuresim.SKU{Family: it.SKU.Family, VCPUs: int(it.SKU.VCPUs)}
		}
	}
	if err := opts.validateMode(opts.Catalogue.Region); err != nil {
		return nil, nil, err
	}
	create := map[azuresim.Op]time.Duration{azuresim.OpVMPut: opts.VMCreateTime, azuresim.OpMachinePut: opts.VMCreateTime}
	sim := azuresim.New(azuresim.Options{Location: opts.Catalogue.Region, SKUs: skus, Latency: opts.Latency, Clock: opts.Clock,
		OperationTime: create, RateLimits: opts.RateLimits})
	l, err := newLauncher(sim, opts, sim.ClientOptions())
	if err != nil {
		return nil, nil, err
	}
	return sim, l, nil
}

// NewObserver returns a launcher on sim for the simulated kubelets, which only list the VMs they
// boot: its calls are unmetered (azuresim.UnmeteredHeader), because a kubelet on Azure does not
// call ARM, so they neither spend nor count against Options.RateLimits.
func NewObserver(sim *azuresim.Sim, opts AzureOptions) (*azure.Launcher, error) {
	return newLauncher(sim, opts, sim.UnmeteredClientOptions())
}

// newLauncher is the real Azure launcher pointed at sim through client.
func newLauncher(sim *azuresim.Sim, opts AzureOptions, client *arm.ClientOptions) (*azure.Launcher, error) {
	// Unthrottled, the launcher calls and polls as fast as the simulation needs; under ARM's
	// buckets it keeps its defaults (poll frequency, poll rate, request rates), as on Azure.
	poll, pollRate, rates := pollFrequency(opts.VMCreateTime), math.Inf(1), azure.UnlimitedRequestRates()
	if opts.RateLimits != nil {
		poll, pollRate, rates = 0, 0, azure.RequestRates{}
	}
	l, err := azure.NewLauncher(azure.Options{
		SubscriptionID: sim.SubscriptionID(), ResourceGroup: opts.ResourceGroup, Location: sim.Location(),
		ClusterName: opts.ClusterName, Credential: sim.Credential(), ClientOptions: client,
		Mode: opts.Mode, MachinesPool: opts.MachinesPool, ClusterResourceGroup: opts.ClusterResourceGroup,
		PollFrequency: poll, PollRate: pollRate, RequestRates: rates, Seed: opts.Seed, Clock: opts.Clock, Cache: opts.Offerings, Logger: opts.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("launcher on the simulated Azure: %w", err)
	}
	return l, nil
}

// pollFrequency is how often the launcher polls the simulated Azure's operations: 10 ms when they
// end at their first poll, so a launch takes milliseconds; a second's fraction of a VM create that
// runs for seconds, so hundreds of launches in flight do not poll the simulator (and the machine's
// cores) thousands of times a second, as they would not poll Azure (the launcher's default is 3 s).
func pollFrequency(vmCreate time.Duration) time.Duration {
	if vmCreate <= 0 {
		return 10 * time.Millisecond
	}
	return min(max(vmCreate/30, 10*time.Millisecond), time.Second)
}

// validateMode checks that a Machine API mode's VMs land in the node resource group the simulated
// kubelets and the provider IDs use.
func (o AzureOptions) validateMode(region string) error {
	mode, err := o.Mode.Resolve()
	if err != nil || !mode.IsMachineAPI() {
		return err
	}
	if want := azuresim.MachineNodeResourceGroup(o.ClusterResourceGroup, o.ClusterName, region); want != o.ResourceGroup {
		return fmt.Errorf("simulated Azure in mode %s: ResourceGroup %q must be the machines' node resource group %q (ClusterResourceGroup %q, ClusterName %q)",
			mode, o.ResourceGroup, want, o.ClusterResourceGroup, o.ClusterName)
	}
	return nil
}
