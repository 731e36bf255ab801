package schedreplay

import corev1 "k8s.io/api/core/v1"

// schedule is one scheduling attempt: the pod goes to the best feasible node (its index), or
// nowhere (-1).
func (st *state) schedule(pod *corev1.Pod) (int, error) {
	pc, err := st.podContext(pod)
	if err != nil {
		return -1, err
	}
	feasible := st.feasible(pc)
	if len(feasible) == 0 {
		return -1, nil
	}
	best := st.best(pc, feasible)
	return best, st.place(pod, best)
}
