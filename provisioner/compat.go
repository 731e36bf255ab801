package provisioner

import (
	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/requirements"
)

// poolCompat is what a requirement set means for one pool, computed once: the pairs it allows and
// the requirements a NodeClaim must carry (and narrow) for keys the pairs cannot express.
type poolCompat struct {
	ok bool
	// mask is nil when every pair is allowed.
	mask bitset
	// custom are requirements on pool-defined, well-known-but-undefined, or multi-valued keys; a
	// NodeClaim intersects them into its own requirements.
	custom []keyReq
	// miss names the first requirement that rules the pool out (for explanations).
	miss     *keyReq
	missWhy  string
	emptyKey string // the key after which no pair was left
}

// hostnamePlaceholder stands for a new NodeClaim's hostname, which no pod can name in advance.
const hostnamePlaceholder = "\x00new-nodeclaim"

func (p *pool) compat(rs *reqSet) *poolCompat {
	if c, ok := p.compats[rs.id]; ok {
		return c
	}
	c := p.computeCompat(rs)
	p.compats[rs.id] = c
	return c
}

func (p *pool) computeCompat(rs *reqSet) *poolCompat {
	c := &poolCompat{ok: true}
	for i := range rs.reqs {
		kr := rs.reqs[i]
		switch {
		case p.defined[kr.key]:
			m := p.allowed(kr.key, kr.r)
			if c.mask == nil {
				c.mask = m
			} else {
				c.mask = c.mask.and(m)
			}
			if p.pairKey(kr.key).multi {
				c.custom = append(c.custom, kr)
			}
			if !c.mask.any() && c.emptyKey == "" {
				c.emptyKey = kr.key
			}
		case p.custom[kr.key] != nil:
			if !p.custom[kr.key].Intersects(kr.r) {
				return c.fail(&rs.reqs[i], "NodePool requires "+p.custom[kr.key].String())
			}
			c.custom = append(c.custom, kr)
		case kr.key == api.LabelHostname:
			if !kr.r.Has(hostnamePlaceholder) {
				return c.fail(&rs.reqs[i], "a new node's hostname is not known in advance")
			}
		case kr.r.AllowsAbsent():
		case api.IsWellKnownLabel(kr.key):
			c.custom = append(c.custom, kr)
		default:
			return c.fail(&rs.reqs[i], "NodePool "+p.name+" does not define label "+kr.key)
		}
	}
	if c.mask != nil && !c.mask.any() {
		c.ok = false
		c.missWhy = "no instance type or offering of NodePool " + p.name + " matches"
	}
	return c
}

func (c *poolCompat) fail(kr *keyReq, why string) *poolCompat {
	c.ok, c.miss, c.missWhy = false, kr, why
	return c
}

// customCompatible reports whether the NodeClaim requirements cr admit every custom requirement.
func customCompatible(cr requirements.Requirements, custom []keyReq) bool {
	for _, kr := range custom {
		if have, ok := cr[kr.key]; ok && !have.Intersects(kr.r) {
			return false
		}
	}
	return true
}
