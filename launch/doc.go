// Package launch turns a NodeClaim's launch request into an Azure virtual
// machine, and back: it creates, gets, lists, deletes and garbage-collects the
// VMs and NICs that node autoprovisioning owns.
//
// The contract is the small [Launcher] interface, which users can implement for
// their own clouds or tests. [AzureLauncher] implements it on the Azure SDK for
// Go (armcompute and armnetwork) through one azcore pipeline, so retries,
// throttling (429 with Retry-After) and transport injection are azcore's.
//
// A launch picks one offering (instance type, zone, capacity type) from the
// request's [Candidate] list with [Choose]: cheapest available first, spot
// before on-demand at equal price, zonal before regional, remaining ties
// broken by a seeded shuffle. ARM failures are classified by [ClassifyError]
// into a typed [*LaunchError] and recorded in the [UnavailableOfferings] cache
// with the scope and time-to-live of the reference table, so the next attempt
// and the next scheduling pass avoid the offering.
//
// [LaunchAll] runs many launches with a concurrency bound; each launch is
// independent of the others' failures.
//
// The sub-package azuresim is an in-memory Azure Resource Manager for tests and
// the example controller; it sits behind the SDK's transport seam, not inside
// this package's code path.
package launch
