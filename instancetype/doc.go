// Package instancetype is napkit's catalogue: it turns Azure VM SKUs into the instance types the
// provisioner chooses from, each with exact capacity, overhead, allocatable, labels and priced
// offerings, and it says why every other SKU was left out.
//
// Data flows one way:
//
//	ARM Resource SKUs (JSON) ──ReadSKUs──► SKUList ([]*SKU + unreadable) ┐
//	  (azuresku.Read: the SDK's armcompute.ResourceSKU, same reader)    │
//	or []*SKU from any other source ────────────────────────────────────┤
//	AKSNodeClass (image family, OS disk, security, GPU mode, maxPods) ──┤
//	cluster network (default maxPods) ──────────────────────────────────┼─Build─► Catalogue
//	region prices (package pricing), known sizes, unavailable offerings ┘          │
//	                                                                               ▼
//	               InstanceTypes (cheapest first) + Excluded (name, kind, reason) ──► provisioner
//
// The package imports no Azure SDK package: SKU is its own record, and ReadSKUs reads ARM's JSON
// format directly. The converter from the SDK's type is package azuresku, beside the ARM code.
//
// Build runs each SKU through the same steps:
//
//  1. Read: ReadSKUs converts the string-valued ARM capabilities into a typed SKU and applies the
//     region's zone and location restrictions; a record that does not read, or a SKU that fails
//     SKU.Validate, is excluded, never fatal.
//  2. Filter: global rules (AKS- and Karpenter-restricted sizes, an unparseable size name, a location
//     restriction, fewer than 2 vCPUs or 3.5 GiB, GPUs AKS has no driver for, constrained-core and
//     confidential sizes), then the node class's rules (GPU driver for the image's OS, gpu.mode Driver,
//     encryption at host, trusted launch, artifact streaming, LocalDNS). Each exclusion is recorded.
//  3. Size: capacity is vCPUs; nominal memory minus the hypervisor's share (VMMemoryOverheadPercent);
//     osDiskSizeGB as ephemeral storage; maxPods as pods; GPUs as nvidia.com/gpu or amd.com/gpu.
//     Overhead comes from kubeletconfig.Reserve, the same function that writes the kubelet flags, so
//     allocatable (capacity minus overhead, to the byte) is what the kubelet will enforce.
//  4. Label: every well-known label of Karpenter's Azure provider (instance type, architecture, zone,
//     capacity type, sku-family/series/version/cpu/memory, GPU, Hyper-V generation, placement scope,
//     AKS mode, os-sku, FIPS) as requirements.Requirements.
//  5. Offer: one offering per zone (plus the regional zone "0") and capacity type (spot only when the
//     SKU allows it), priced at the node's full bill: the VM's price from the region's prices
//     (pricing.MissingPrice when unknown) plus its managed OS disk's (ChooseOSDisk: none when the OS
//     disk is ephemeral, else Premium_LRS or StandardSSD_LRS by tier), and marked unavailable when
//     Options.Unavailable says so. Catalogue.Notes say which disk prices and capabilities are unknown.
//
// The package reads no clock, logs nothing and keeps no state between calls: the same inputs give
// byte-identical output. Names follow Azure's size-naming scheme (see VMSize); where napkit chooses
// differently from Karpenter's Azure provider (ephemeral OS disk placement, names Karpenter cannot
// parse, nominal memory not rounded to whole GiB) the function says so.
package instancetype
