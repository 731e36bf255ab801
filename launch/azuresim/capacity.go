package azuresim

import (
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// quotaRefusal checks the vCPU quotas a new VM of sku would use: spot VMs
// draw on low-priority cores; others on their family and the regional total.
func (s *Sim) quotaRefusal(c call, sku SKU) *armError {
	usages := []string{sku.Family, QuotaTotalRegional}
	if c.spot {
		usages = []string{QuotaLowPriority}
	}
	for _, usage := range usages {
		limit, ok := s.opts.Quota[usage]
		if !ok {
			continue
		}
		if used := s.usedVCPUs(usage); used+sku.VCPUs > limit {
			e := quotaExceeded(usage, s.opts.Location, limit, used, sku.VCPUs)
			return &e
		}
	}
	return nil
}

// usedVCPUs sums the vCPUs of live VMs counted against usage.
func (s *Sim) usedVCPUs(usage string) int {
	total := 0
	for _, vm := range s.liveSlots() {
		sku := s.opts.SKUs[vm.sku]
		counts := (vm.spot && usage == QuotaLowPriority) ||
			(!vm.spot && (usage == QuotaTotalRegional || usage == sku.Family))
		if counts {
			total += sku.VCPUs
		}
	}
	return total
}

// liveVMs counts live VMs of sku in zone.
func (s *Sim) liveVMs(sku, zone string) int {
	n := 0
	for _, vm := range s.liveSlots() {
		if vm.sku == sku && vm.zone == zone {
			n++
		}
	}
	return n
}

// liveSlot is a VM that holds capacity and quota: a VM or an AKS Machine's,
// unless it failed.
type liveSlot struct {
	sku, zone string
	spot      bool
}

func (s *Sim) liveSlots() []liveSlot {
	var out []liveSlot
	for _, vm := range s.vms {
		if vm.live() {
			out = append(out, liveSlot{vm.sku, vm.zone, vm.spot})
		}
	}
	for _, m := range s.machines {
		if m.state() != statusFailed {
			out = append(out, liveSlot{m.sku, m.zone, m.spot})
		}
	}
	return out
}

// sortedIn lists the keys of m in rg, by name.
func sortedIn[T any](m map[string]T, rg string) []string {
	prefix := key(rg, "")
	var keys []string
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// sortedKeys lists the keys of VMs (or NICs) in rg, by name.
func (s *Sim) sortedKeys(rg string, vms bool) []string {
	prefix := key(rg, "")
	var keys []string
	if vms {
		for k := range s.vms {
			keys = append(keys, k)
		}
	} else {
		for k := range s.nics {
			keys = append(keys, k)
		}
	}
	keys = slices.DeleteFunc(keys, func(k string) bool { return !strings.HasPrefix(k, prefix) })
	slices.Sort(keys)
	return keys
}

// page returns one list page; $skiptoken is the offset of the next page.
func (s *Sim) page(c call, all []any) reply {
	start, _ := strconv.Atoi(c.query.Get("$skiptoken"))
	start = min(max(start, 0), len(all))
	end := min(start+s.opts.PageSize, len(all))
	body := map[string]any{"value": append([]any{}, all[start:end]...)}
	if end < len(all) {
		q := maps.Clone(c.query)
		q.Set("$skiptoken", strconv.Itoa(end))
		body["nextLink"] = c.base + c.path + "?" + q.Encode()
	}
	return jsonReply(http.StatusOK, body)
}
