package provisioner

// fitTree finds, in bin order, the first bin whose free capacity covers a request. Each internal
// node keeps the per-resource maximum of its leaves, so whole ranges of full bins are skipped: the
// first-fit scan Karpenter does linearly over every open NodeClaim costs O(log n) here when bins are
// full, and a bin rejected for resources is never looked at.
type fitTree struct {
	r    int
	size int // leaf slots, a power of two
	n    int // leaves in use
	mx   []int64
}

func newFitTree(r, hint int) *fitTree {
	size := 1
	for size < hint {
		size *= 2
	}
	t := &fitTree{r: r, size: size}
	t.mx = make([]int64, 2*size*r)
	for i := range t.mx {
		t.mx[i] = -1
	}
	return t
}

func (t *fitTree) node(i int) []int64 { return t.mx[i*t.r : (i+1)*t.r] }

// push appends a leaf.
func (t *fitTree) push(free resVec) {
	if t.n == t.size {
		t.grow()
	}
	t.n++
	t.update(t.n-1, free)
}

func (t *fitTree) grow() {
	old := t
	bigger := newFitTree(t.r, 2*t.size)
	for i := 0; i < old.n; i++ {
		bigger.n++
		bigger.update(i, old.node(old.size+i))
	}
	*t = *bigger
}

// update sets leaf i's free vector and refreshes its ancestors.
func (t *fitTree) update(i int, free resVec) {
	at := t.size + i
	copy(t.node(at), free)
	for at > 1 {
		at /= 2
		l, r, m := t.node(2*at), t.node(2*at+1), t.node(at)
		for k := range m {
			m[k] = max(l[k], r[k])
		}
	}
}

// next returns the first leaf ≥ from whose free vector covers need, or -1.
func (t *fitTree) next(from int, need resVec) int {
	if from >= t.n {
		return -1
	}
	return t.search(1, 0, t.size, from, need)
}

func (t *fitTree) search(at, lo, hi, from int, need resVec) int {
	if hi <= from || lo >= t.n || !t.covers(at, need) {
		return -1
	}
	if hi-lo == 1 {
		return lo
	}
	mid := (lo + hi) / 2
	if got := t.search(2*at, lo, mid, from, need); got >= 0 {
		return got
	}
	return t.search(2*at+1, mid, hi, from, need)
}

func (t *fitTree) covers(at int, need resVec) bool {
	m := t.node(at)
	for k, v := range need {
		if m[k] < v {
			return false
		}
	}
	return true
}
