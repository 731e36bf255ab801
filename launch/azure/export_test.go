package azure

import "k8s.io/utils/clock"

// UseBatchClock makes l's AKS machine batcher run its idle and max timers on c, before any
// create. The batcher's callbacks stop their sibling timer, so c must run them on their own
// goroutine, as time.AfterFunc does.
func UseBatchClock(l *Launcher, c clock.WithDelayedExecution) { l.batcher.clock = c }

// BatchWaiters counts the creates waiting in l's open (not yet sent) batches.
func BatchWaiters(l *Launcher) int {
	l.batcher.mu.Lock()
	defer l.batcher.mu.Unlock()
	n := 0
	for _, b := range l.batcher.open {
		n += len(b.waiters)
	}
	return n
}
