package frontier

// hostHeap orders hosts by ready time (container/heap.Interface).
type hostHeap []*host

func (h hostHeap) Len() int { return len(h) }

func (h hostHeap) Less(i, j int) bool {
	if h[i].readyAt().Equal(h[j].readyAt()) {
		return h[i].name < h[j].name // deterministic order among equals
	}
	return h[i].readyAt().Before(h[j].readyAt())
}

func (h hostHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIndex = i
	h[j].heapIndex = j
}

func (h *hostHeap) Push(x any) {
	hh := x.(*host)
	hh.heapIndex = len(*h)
	*h = append(*h, hh)
}

func (h *hostHeap) Pop() any {
	old := *h
	n := len(old)
	hh := old[n-1]
	old[n-1] = nil
	hh.heapIndex = -1
	*h = old[:n-1]
	return hh
}
