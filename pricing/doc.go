// Package pricing owns napkit's prices: the hourly Linux on-demand and spot price of each Azure VM
// size in each region, and the monthly price of each managed-disk tier (a node's managed OS disk is
// part of its bill), in USD. It parses the price tables that package azuredata embeds, reads live
// prices from the public Azure Retail Prices API, and answers lookups (RegionPrices.ManagedDisk gives
// a disk's tier and hourly price, monthly / HoursPerMonth).
//
// Data flows one way:
//
//	azuredata (embedded prices.csv, prices-unstable.csv, disk-prices.csv)
//	    │ DefaultSnapshot: parse, use the Linux price where a Windows price leaked in
//	    ▼
//	Snapshot (immutable) ──▶ Provider ◀── Client.Fetch + FetchDisks (Retail Prices API), on Refresh
//	                             │ Region(name) → RegionPrices, Note
//	                             ▼
//	instance-type catalogue: prices each offering; MissingPrice for a SKU with none
//
// Works offline by default: a Snapshot alone answers every lookup, and a Provider without a Client
// never touches the network. Spot capacity is priced at the on-demand price until real spot prices
// are known (from the table's few spot values or a refresh), so spot never looks cheaper than known.
//
// The package keeps no global state and does not log. Things a caller may want to log, such as a
// fallback to eastus prices for a region with none, come back as a Note. Refresh scheduling (Karpenter
// refreshes every 12 hours) belongs to the caller.
package pricing
