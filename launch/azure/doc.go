// Package azure is the Azure implementation of launch.Launcher: it turns a
// launch.Request into an Azure virtual machine, and back. It creates, gets,
// lists, deletes and garbage-collects the VMs, NICs and AKS Machines that node
// autoprovisioning owns, on the Azure SDK for Go (armcompute and armnetwork,
// and a bare azcore ARM client for the AKS Machine API) through one kind of
// azcore pipeline, so retries, throttling (429 with Retry-After) and transport
// injection are azcore's. Tests swap only the transport, for the simulated
// ARM of package launch/azuresim.
//
// ARM failures are classified by [ClassifyError] into a typed
// *launch.LaunchError and recorded in the launch.UnavailableOfferings cache
// with the scope and time-to-live of the reference table.
//
// What a node costs in ARM writes depends on the provisioning mode
// ([Options].Mode):
//
//	aksscriptless             NIC, VM, billing extension              3 writes
//	bootstrappingclient       NIC, VM, CSE, billing extension         4 writes
//	aksmachineapi             Machine (AKS makes VM, NIC, bootstrap)  1 write
//	aksmachineapiheaderbatch  one Machine PUT per batch               1 write per ≤50 nodes
//
// Extensions cannot ride in the VM PUT (a VM's "resources" are read-only in
// ARM), so each is its own write; the billing extension is added only in the
// public, China and US Government clouds. In the header-batch mode,
// concurrent creates whose Machine bodies differ only in name, zones and tags
// are held for up to [Options].BatchIdle without a new create (BatchMax
// at most, or until BatchMaxSize of them wait) and sent as one PUT whose
// BatchPutMachine header lists each machine; every Create gets its own
// machine's result. In both Machine API modes a Create then follows its
// machine (not the operation ARM started) in lists of the agent pool that
// all waiting creates share (one read per page), or by its own GET while the
// machines awaited are no more than a list's pages.
//
// Reads are the scarce side of a burst once writes are batched: ARM refills
// a subscription's reads at 25 a second per principal, and every call goes
// through one budget per operation type ([Options].RequestRates) and every
// poll through [Options].PollRate. A NodeClaim's instance is found by its
// deterministic name ([Launcher.FindByNodeClaim]), never by a full list.
//
// A NIC joins the backend pools of the cluster's kubernetes and
// kubernetes-internal load balancers and, on a custom VNET, AKS's managed NSG,
// unless the request or the options name them. Both are looked up once in the
// node resource group and cached; a NIC refused over stale pools triggers one
// fresh lookup and retry.
//
// Package launch/azuresim is an in-memory Azure Resource Manager for tests and
// the example controller; it sits behind the SDK's transport seam, not inside
// this package's code path.
package azure
