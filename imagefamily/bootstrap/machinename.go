package bootstrap

import (
	"hash/fnv"
	"strconv"
	"strings"
)

// MaxMachineNameLength is the longest AKS Machine name: AKS derives the VM name
// aks-<pool>-<machine>-<8 chars>-vm from it and must stay within Azure's limits.
const MaxMachineNameLength = 34

// machineHashLength is the length of the hash that replaces the truncated part of a long name.
const machineHashLength = 6

// MachineName derives the AKS Machine name from a NodeClaim name. Names of up to 34 characters are
// kept. Longer names keep their last "-suffix" (the random part Karpenter appends, which tells
// sibling claims apart), keep as much of the rest as fits and fill the gap with a 6-character
// base-36 hash of the whole name, so the result is deterministic and different names stay different.
func MachineName(nodeClaim string) string {
	if len(nodeClaim) <= MaxMachineNameLength {
		return nodeClaim
	}
	suffix := ""
	if i := strings.LastIndexByte(nodeClaim, '-'); i > 0 && len(nodeClaim)-i <= MaxMachineNameLength-machineHashLength {
		suffix = nodeClaim[i:]
	}
	keep := MaxMachineNameLength - machineHashLength - len(suffix)
	return nodeClaim[:keep] + nameHash(nodeClaim) + suffix
}

// nameHash is FNV-1a of s in base 36, padded or cut to machineHashLength characters.
func nameHash(s string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	digits := strconv.FormatUint(h.Sum64(), 36)
	if len(digits) < machineHashLength {
		digits = strings.Repeat("0", machineHashLength-len(digits)) + digits
	}
	return digits[len(digits)-machineHashLength:]
}
