package provisioner

import "math/bits"

// bitset is a fixed-size set of small integers. The hot path keeps one per open NodeClaim (its
// remaining instance-type × offering pairs) and one per (pod requirements, NodePool), so narrowing
// a NodeClaim by a pod is a word-wise AND instead of Karpenter's map-of-sets intersection.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func fullBitset(n int) bitset {
	b := newBitset(n)
	for i := range b {
		b[i] = ^uint64(0)
	}
	if r := n % 64; r != 0 {
		b[len(b)-1] = (1 << r) - 1
	}
	return b
}

func (b bitset) set(i int)      { b[i>>6] |= 1 << (i & 63) }
func (b bitset) has(i int) bool { return b[i>>6]&(1<<(i&63)) != 0 }

func (b bitset) clone() bitset { return append(bitset(nil), b...) }

// and returns b ∧ o as a new bitset.
func (b bitset) and(o bitset) bitset {
	out := make(bitset, len(b))
	for i := range b {
		out[i] = b[i] & o[i]
	}
	return out
}

// intersects reports whether b ∧ o is non-empty.
func (b bitset) intersects(o bitset) bool {
	for i := range b {
		if b[i]&o[i] != 0 {
			return true
		}
	}
	return false
}

// subsetOf reports whether b ⊆ o.
func (b bitset) subsetOf(o bitset) bool {
	for i := range b {
		if b[i]&^o[i] != 0 {
			return false
		}
	}
	return true
}

func (b bitset) any() bool {
	for _, w := range b {
		if w != 0 {
			return true
		}
	}
	return false
}

func (b bitset) count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

func (b bitset) equal(o bitset) bool {
	if len(b) != len(o) {
		return false
	}
	for i := range b {
		if b[i] != o[i] {
			return false
		}
	}
	return true
}

// anyIn reports whether b holds an element of [lo, hi).
func (b bitset) anyIn(lo, hi int) bool {
	for i := lo; i < hi; {
		w := i >> 6
		word := b[w] >> (i & 63)
		if word != 0 {
			return i+bits.TrailingZeros64(word) < hi
		}
		i = (w + 1) << 6
	}
	return false
}

// forEach calls f for every element in increasing order.
func (b bitset) forEach(f func(i int)) {
	for w, word := range b {
		for word != 0 {
			t := bits.TrailingZeros64(word)
			f(w<<6 + t)
			word &= word - 1
		}
	}
}
