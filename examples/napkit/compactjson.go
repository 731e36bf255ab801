package main

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/provisioner"
)

// appendPlanJSON appends what json.Marshal(plan) gives, written field by field for the parts that
// grow with the plan (the NodeClaims and their pod lists), and through encoding/json for the rest.
// Why: encoding/json spent about 20 µs of reflection, map sorting and allocations per NodeClaim and
// grew its buffer by doubling; `plan --compact` writes after the solve on one core, so those 2 ms
// at 10,000 pods were all wall time. Same bytes: TestCompactPlanJSON compares both on plans with
// every optional field and escape-worthy text; TestCompactPlanJSONFields fails when a field it does
// not write is added to the types below.
func appendPlanJSON(b []byte, plan *provisioner.Plan) ([]byte, error) {
	b = append(b, `{"kind":`...)
	b = appendString(b, plan.Kind)
	if plan.Region != "" {
		b = append(b, `,"region":`...)
		b = appendString(b, plan.Region)
	}
	b, err := appendNodeClaims(append(b, `,"nodeClaims":`...), plan.NodeClaims)
	b = append(b, `,"existingNodes":`...)
	b = appendList(b, plan.ExistingNodes, appendPlacement)
	if len(plan.InFlightClaims) > 0 {
		b = append(b, `,"inFlightClaims":`...)
		b = appendList(b, plan.InFlightClaims, appendPlacement)
	}
	b, err = appendField(b, `,"unschedulable":`, plan.Unschedulable, err)
	if len(plan.UnmetPreferences) > 0 {
		b, err = appendField(b, `,"unmetPreferences":`, plan.UnmetPreferences, err)
	}
	b, err = appendField(b, `,"cost":`, plan.Cost, err)
	b, err = appendField(b, `,"stats":`, plan.Stats, err)
	return append(b, '}'), err
}

// appendNodeClaims writes the NodeClaims as a JSON array (null for nil, as encoding/json).
func appendNodeClaims(b []byte, claims []provisioner.NodeClaim) ([]byte, error) {
	if claims == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	var err error
	for i := range claims {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendNodeClaim(b, &claims[i]); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

// appendNodeClaim writes one NodeClaim in its fields' order; its floats and taints go through
// encoding/json, whose number and struct formats they must keep.
func appendNodeClaim(b []byte, nc *provisioner.NodeClaim) ([]byte, error) {
	var err error
	b = appendStringField(b, `{"name":`, nc.Name)
	b = appendStringField(b, `,"nodePool":`, nc.NodePool)
	b = appendStringField(b, `,"instanceType":`, nc.InstanceType)
	b = append(b, `,"instanceTypeOptions":`...)
	b = appendStrings(b, nc.InstanceTypeOptions)
	b = appendStringField(b, `,"zone":`, nc.Zone)
	b = appendStringField(b, `,"capacityType":`, nc.CapacityType)
	b, err = appendField(b, `,"pricePerHour":`, nc.PricePerHour, err)
	b, err = appendField(b, `,"vmPricePerHour":`, nc.VMPricePerHour, err)
	b, err = appendField(b, `,"diskPricePerHour":`, nc.DiskPricePerHour, err)
	b, err = appendResourcesField(b, `,"capacity":`, nc.Capacity, err)
	b, err = appendResourcesField(b, `,"allocatable":`, nc.Allocatable, err)
	b, err = appendResourcesField(b, `,"requests":`, nc.Requests, err)
	b = append(b, `,"labels":`...)
	b = appendStringMap(b, nc.Labels)
	b, err = appendField(b, `,"taints":`, nc.Taints, err)
	if len(nc.StartupTaints) > 0 {
		b, err = appendField(b, `,"startupTaints":`, nc.StartupTaints, err)
	}
	b = append(b, `,"pods":`...)
	b = appendStrings(b, nc.Pods)
	if len(nc.BufferPods) > 0 {
		b = append(b, `,"bufferPods":`...)
		b = appendStrings(b, nc.BufferPods)
	}
	if nc.MinValuesRelaxed {
		b = append(b, `,"minValuesRelaxed":true`...)
	}
	return append(b, '}'), err
}

func appendPlacement(b []byte, p *provisioner.NodePlacement) []byte {
	b = appendStringField(b, `{"name":`, p.Name)
	b = append(b, `,"pods":`...)
	b = appendStrings(b, p.Pods)
	if len(p.BufferPods) > 0 {
		b = append(b, `,"bufferPods":`...)
		b = appendStrings(b, p.BufferPods)
	}
	return append(b, '}')
}

// appendList writes a JSON array of items (null for a nil slice, as encoding/json).
func appendList[T any](b []byte, items []T, appendItem func([]byte, *T) []byte) []byte {
	if items == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendItem(b, &items[i])
	}
	return append(b, ']')
}

func appendStrings(b []byte, list []string) []byte {
	return appendList(b, list, func(b []byte, s *string) []byte { return appendString(b, *s) })
}

func appendStringField(b []byte, name, s string) []byte {
	return appendString(append(b, name...), s)
}

// appendStringMap writes a map with its keys sorted, as encoding/json.
func appendStringMap(b []byte, m map[string]string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, k), ':')
		b = appendString(b, m[k])
	}
	return append(b, '}')
}

// sortedKeys returns m's keys in order, as encoding/json writes a map with string keys.
func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := slices.AppendSeq(make([]K, 0, len(m)), maps.Keys(m))
	slices.Sort(keys)
	return keys
}

// appendResourcesField writes a resource list with its names sorted; each quantity's own
// MarshalJSON is used as encoding/json uses it, when it needs no compacting or escaping.
func appendResourcesField(b []byte, name string, list corev1.ResourceList, err error) ([]byte, error) {
	b = append(b, name...)
	if list == nil {
		return append(b, "null"...), err
	}
	b = append(b, '{')
	for i, k := range sortedKeys(list) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, string(k)), ':')
		q := list[k]
		raw, qerr := q.MarshalJSON()
		if qerr != nil || !plainJSON(raw) {
			b, err = appendField(b, "", q, err)
			continue
		}
		b = append(b, raw...)
	}
	return append(b, '}'), err
}

// plainJSON reports whether raw is a JSON string encoding/json would copy as it is: printable ASCII
// without spaces or the characters it escapes for HTML.
func plainJSON(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	for _, c := range raw {
		if c == ' ' || !plainByte[c] && c != '"' {
			return false
		}
	}
	return true
}

// appendString writes s quoted; a string that needs escaping goes through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if !plainByte[s[i]] {
			quoted, _ := json.Marshal(s) // a string always encodes
			return append(b, quoted...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainByte marks the bytes encoding/json copies into a string as they are (with its default HTML
// escaping): printable ASCII but '"', '\\', '<', '>' and '&'. A table, because pod names are most
// of a plan's bytes and a chain of comparisons per byte took three times as long.
var plainByte = func() (t [256]bool) {
	for c := ' '; c < 0x7f; c++ {
		t[c] = !strings.ContainsRune(`"\\<>&`, c)
	}
	return t
}()

// appendField writes name and v through encoding/json, unless an earlier write failed.
func appendField(b []byte, name string, v any, err error) ([]byte, error) {
	if err != nil {
		return b, err
	}
	data, err := json.Marshal(v)
	return append(append(b, name...), data...), err
}

// compactSizeHint is about the size of plan's compact JSON, so that it is written into one buffer
// instead of one that doubles (each doubling touches fresh memory in a new process).
func compactSizeHint(plan *provisioner.Plan) int {
	n := 4096
	for i := range plan.NodeClaims {
		n += 2048 + podsSize(plan.NodeClaims[i].Pods) + podsSize(plan.NodeClaims[i].BufferPods)
	}
	for _, p := range slices.Concat(plan.ExistingNodes, plan.InFlightClaims) {
		n += 64 + podsSize(p.Pods) + podsSize(p.BufferPods)
	}
	return n + 128*(len(plan.Unschedulable)+len(plan.UnmetPreferences))
}

// podsSize is the JSON size of a list of names that need no escaping.
func podsSize(names []string) int {
	n := 2
	for _, s := range names {
		n += len(s) + 3
	}
	return n
}
