// Package quota decides which offerings the subscription's vCPU quota can still host, so that the
// provisioner plans around a family with no quota left instead of learning it from a failed
// launch. It is pure: the caller lists the region's usages (package launch/discovery, through
// armcompute's usage client, with a TTL) and applies the table to a catalogue.
//
// Rules (upstream: pkg/providers/quota/quota.go HasQuotaFor, pkg/providers/instancetype
// instancetypes.go): an on-demand VM needs its vCPUs free in its family's quota
// ("standardDSv3Family") and in the regional total ("cores"); a spot VM consumes no family quota,
// only the regional spot quota ("lowPriorityCores"). A quota napkit has no entry for is taken as
// available (fail open), as upstream does.
//
// Data flow: []Usage -> NewTable -> Apply(catalogue) -> offerings unavailable with the quota named
// in Offering.UnavailableReason -> the provisioner's pending-pod reason.
package quota
