package main

import "github.com/napkit/napkit/api"

// earlyCatalogue is the catalogue of the first node class of the manifests, built while the
// documents after it are still read (manifest.Decoder.NodeClassRead). Why: building the catalogue
// (1,300 sizes) takes a few milliseconds on one core, which `napkit plan` otherwise spends after
// the reading, on the critical path, with the other core idle. loadFor takes it only for the very
// node class it was built from (the Set's own, which neither the decoder nor the commands modify),
// so the plan is the same as without it.
type earlyCatalogue struct {
	nodeClass *api.AKSNodeClass // the node class as read
	done      chan struct{}     // closed once cat and err are set
	cat       *catalogue
	err       error
	taken     bool
}

// buildEarly starts building the catalogue of nodeClass, for the first node class read and only
// from preloaded inputs (never live prices, which wait until the manifests are read without
// error). It runs on the decoding goroutine; the decoder does not modify the node class after.
func (c *catalogueFlags) buildEarly(nodeClass *api.AKSNodeClass) {
	if c.early != nil || c.pending == nil || c.network.Validate() != nil {
		return
	}
	pending := c.pending
	c.pending = nil
	e := &earlyCatalogue{nodeClass: nodeClass, done: make(chan struct{})}
	c.early = e
	go func() {
		defer close(e.done)
		e.cat, e.err = c.build(<-pending, nodeClass)
	}()
}

// takeEarly returns the early catalogue once, when it was built from nodeClass; ok is false
// otherwise, and the caller builds one.
func (c *catalogueFlags) takeEarly(nodeClass *api.AKSNodeClass) (cat *catalogue, err error, ok bool) {
	e := c.early
	if e == nil || e.taken || e.nodeClass != nodeClass {
		return nil, nil, false
	}
	<-e.done
	e.taken = true
	return e.cat, e.err, true
}
