package schedreplay

import corev1 "k8s.io/api/core/v1"

// schedule is one scheduling attempt: the pod goes to its nominated node if that node passes the
// filters (kube-scheduler's evaluateNominatedNode, pkg/scheduler/schedule_one.go), else to the
// best feasible node (its index), or nowhere (-1), which also clears its nomination (the
// preemption step's empty verdict does so in kube-scheduler).
func (st *state) schedule(pod *corev1.Pod) (int, error) {
	pc, err := st.podContext(pod)
	if err != nil {
		return -1, err
	}
	if i, ok := st.nominatedTo[pc.key]; ok && st.passes(pc, i, st.hardMinimums(pc)) {
		return i, st.place(pod, i)
	}
	feasible := st.feasible(pc)
	if len(feasible) == 0 {
		st.dropNomination(pc.key)
		return -1, nil
	}
	best := st.best(pc, feasible)
	return best, st.place(pod, best)
}
