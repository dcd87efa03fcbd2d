package frontier

// queue is a FIFO of URL entries that also accepts a task back at its head. It
// is a ring buffer, so a long-lived host does not leak its consumed prefix.
type queue struct {
	buf        []*entry
	head, size int
}

func (q *queue) len() int { return q.size }

func (q *queue) grow() {
	n := max(8, 2*len(q.buf))
	buf := make([]*entry, n)
	for i := range q.size {
		buf[i] = q.buf[(q.head+i)%len(q.buf)]
	}
	q.buf, q.head = buf, 0
}

func (q *queue) pushBack(t *entry) {
	if q.size == len(q.buf) {
		q.grow()
	}
	q.buf[(q.head+q.size)%len(q.buf)] = t
	q.size++
}

func (q *queue) pushFront(t *entry) {
	if q.size == len(q.buf) {
		q.grow()
	}
	q.head = (q.head - 1 + len(q.buf)) % len(q.buf)
	q.buf[q.head] = t
	q.size++
}

func (q *queue) popFront() *entry {
	t := q.buf[q.head]
	q.buf[q.head] = nil
	q.head = (q.head + 1) % len(q.buf)
	q.size--
	return t
}
