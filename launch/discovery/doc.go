// Package discovery asks Azure what napkit must otherwise guess: the published versions of the
// node image definitions (community gallery, or AKS's shared image gallery), the region's vCPU
// usage and limits, and whether the controlling identity may read the nodes' disk encryption set. Every call goes through armcompute's clients, so the azcore pipeline retries
// throttling (429, honouring Retry-After) and 5xx answers; tests swap only the transport
// (launch/azuresim serves both lists, with faults).
//
// Answers are cached with a TTL (image versions: ImageVersionsTTL, upstream's 3 days; usage:
// UsageTTL, upstream's 10-minute quota refresh), so callers may ask on every reconcile. A failed
// refresh returns the error and keeps nothing new; the caller decides whether to keep its last
// answer (the AKSNodeClass status writer keeps its status; quota fails open after MaxStaleness).
//
// Data flow: imagefamily definitions -> Images.Versions -> []imagefamily.AvailableVersion ->
// package nodeclassstatus; Usage.List -> []quota.Usage -> package quota.
package discovery
