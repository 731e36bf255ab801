// Package launch is the contract between napkit's plans and a cloud: the small
// [Launcher] interface that creates, gets, lists and deletes the machines
// behind NodeClaims, and the SDK-free types around it. It imports no Azure SDK
// package, so a platform can implement Launcher for another cloud, a test
// double or its own provisioning API without linking Azure. Package
// launch/azure implements it on the Azure SDK for Go; launch/azuresim is the
// in-memory Azure Resource Manager its tests and the example controller run
// against.
//
// Data flows one way, and every caller (the example controller, `napkit
// bootstrap`, a library user) goes this one way:
//
//	NodeClaim + AKSNodeClass ──┐
//	node class's Catalogue ────┼─RequestFor─► *Request ─► Launcher.Create ─► *Instance
//	ClusterSettings ───────────┘                 (one offering loop: Choose an offering,
//	UnavailableOfferings (what failed recently) ─► BootstrapFor renders its bootstrap)
//
// [RequestFor] picks the claim's instance types from the catalogue and keeps
// the offerings its zone and capacity-type requirements allow; it takes the
// OS disk, subnet, tags, encryption at host and trusted launch from the node
// class, Ultra SSD from the claim, identities and the disk encryption set from
// the cluster settings, and the NIC's pod IP configurations from the cluster
// network ([PodIPConfigurations]). Its [BootstrapFunc] runs
// imagefamily.Generate for the offering the launcher picks, since the image,
// kubelet reservations and node labels depend on the size, zone and capacity
// type. [Request.ValidateFor] checks a request for a launcher's mode without
// quoting a secret.
//
// A launch picks one offering (instance type, zone, capacity type) from the
// request's [Candidate] list with [Choose]: cheapest available first, spot
// before on-demand at equal price, zonal before regional, remaining ties
// broken by a seeded shuffle. A launcher classifies its cloud's failures into
// a typed [*LaunchError] (errors.Is against ErrInsufficientCapacity and the
// other sentinels) and records them in the [UnavailableOfferings] cache, so
// the next attempt and the next scheduling pass avoid the offering.
//
// [LaunchAll] runs many launches with a concurrency bound; each launch is
// independent of the others' failures.
package launch
