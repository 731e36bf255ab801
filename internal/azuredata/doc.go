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
package azuredata
