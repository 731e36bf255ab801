package provisioner

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Resource vectors are the hot path's currency: int64 per resource (CPU in millicores, everything
// else in base units), indexed by a table fixed for the whole solve. CPU, memory and pods always
// come first; other resources follow in name order.
const (
	resCPU    = 0
	resMemory = 1
	resPods   = 2
)

type resVec []int64

// resTable maps resource names to vector indices.
type resTable struct {
	names []corev1.ResourceName
	index map[corev1.ResourceName]int
}

func newResTable(extra []corev1.ResourceName) *resTable {
	t := &resTable{index: map[corev1.ResourceName]int{}}
	for _, n := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods} {
		t.add(n)
	}
	sorted := slices.Clone(extra)
	slices.Sort(sorted)
	for _, n := range sorted {
		t.add(n)
	}
	return t
}

func (t *resTable) add(n corev1.ResourceName) {
	if _, ok := t.index[n]; !ok {
		t.index[n] = len(t.names)
		t.names = append(t.names, n)
	}
}

func (t *resTable) len() int { return len(t.names) }

func (t *resTable) zero() resVec { return make(resVec, len(t.names)) }

// quantityValue is the integer a quantity counts for: millicores for CPU, rounded-up base units
// otherwise.
func quantityValue(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// fromList converts a resource list; resources outside the table are dropped (no pod asks for them).
func (t *resTable) fromList(list corev1.ResourceList) resVec {
	v := t.zero()
	for name, q := range list {
		if i, ok := t.index[name]; ok {
			v[i] = quantityValue(name, q)
		}
	}
	return v
}

// fromMap converts a request map built by podRequests.
func (t *resTable) fromMap(m map[corev1.ResourceName]int64) resVec {
	v := t.zero()
	for name, q := range m {
		if i, ok := t.index[name]; ok {
			v[i] = q
		}
	}
	return v
}

// toList renders a vector for the plan, omitting zero entries.
func (t *resTable) toList(v resVec) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i, n := range t.names {
		if v[i] == 0 {
			continue
		}
		if n == corev1.ResourceCPU {
			out[n] = *resource.NewMilliQuantity(v[i], resource.DecimalSI)
		} else if n == corev1.ResourceMemory || n == corev1.ResourceEphemeralStorage {
			out[n] = *resource.NewQuantity(v[i], resource.BinarySI)
		} else {
			out[n] = *resource.NewQuantity(v[i], resource.DecimalSI)
		}
	}
	return out
}

func (v resVec) clone() resVec { return slices.Clone(v) }

// fits reports whether need ≤ free in every resource.
func (v resVec) fits(free resVec) bool {
	for i, n := range v {
		if n > free[i] {
			return false
		}
	}
	return true
}

// fitsScaled reports whether k copies of v fit into free.
func (v resVec) fitsScaled(k int64, free resVec) bool {
	for i, n := range v {
		if n*k > free[i] {
			return false
		}
	}
	return true
}

// maxCopies returns how many copies of v fit into free (capped at limit).
func (v resVec) maxCopies(free resVec, limit int64) int64 {
	k := limit
	for i, n := range v {
		if n <= 0 {
			continue
		}
		if free[i] < 0 {
			return 0
		}
		if c := free[i] / n; c < k {
			k = c
		}
	}
	return k
}

func (v resVec) addScaled(o resVec, k int64) {
	for i, n := range o {
		v[i] += n * k
	}
}

// sub returns v − o as a new vector, floored at zero.
func (v resVec) subFloor(o resVec) resVec {
	out := make(resVec, len(v))
	for i := range v {
		out[i] = max(0, v[i]-o[i])
	}
	return out
}
