// Package azuresim is an in-memory Azure Resource Manager for the virtual
// machine, network and AKS Machine operations napkit's launcher uses. It plugs
// into the Azure SDK's own transport seam (arm.ClientOptions.Transport), so
// tests and the example controller run the real armcompute and armnetwork
// clients, pipelines, pollers and retry policy against it.
//
// It serves VM PUT (a long-running operation polled through
// Azure-AsyncOperation), GET, DELETE (with forceDeletion) and list pages, VM
// extension PUT and GET, NIC PUT, GET, DELETE and list, load balancer and
// network security group GET and list (seeded with AddLoadBalancer and
// AddNetworkSecurityGroup), the AKS Machine API (machine PUT, GET, list and
// the agent pool's deleteMachines action), and operation status. Machines
// share the VMs' capacity, quota and fault rules; a machine that fails late
// records its VM error as the first detail of its provisioning error. A
// Machine PUT with a BatchPutMachine header creates every machine the header
// names in one write, answering per-machine failures as AKS's header batch
// does (BatchMachineClientError, BatchMachineInternalServerError).
//
// It models per-call latency, capacity per SKU and zone, vCPU quota per
// family (plus low-priority and total regional cores), and count-limited
// injected faults: throttling with Retry-After, server errors, hung calls, the
// ARM allocation, SKU and quota errors, the Machine API's VMSizeNotSupported,
// and a controller crash between NIC and VM creation. Options.RateLimits,
// opt-in, throttle calls with ARM's per-subscription token buckets for reads,
// writes and deletes (ARMSubscriptionLimits). Every
// request is recorded with its body for field-by-field assertions.
//
// It is test support, not a mock inside the launcher: the launcher cannot tell
// it from Azure except by its speed.
package azuresim
