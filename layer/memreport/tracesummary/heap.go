package tracesummary

// pq is a binary min-heap under less, of values (container/heap would box
// every element in an interface, an allocation per event).
type pq[T any] struct {
	s    []T
	less func(a, b *T) bool
}

func (h *pq[T]) push(x T) {
	h.s = append(h.s, x)
	for i := len(h.s) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(&h.s[i], &h.s[p]) {
			break
		}
		h.s[i], h.s[p] = h.s[p], h.s[i]
		i = p
	}
}

// pop removes and returns the least element; the heap must not be empty.
func (h *pq[T]) pop() T {
	top := h.s[0]
	n := len(h.s) - 1
	h.s[0] = h.s[n]
	var zero T
	h.s[n] = zero
	h.s = h.s[:n]
	h.down()
	return top
}

// replaceTop puts x in place of the least element.
func (h *pq[T]) replaceTop(x T) {
	h.s[0] = x
	h.down()
}

func (h *pq[T]) down() {
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(h.s) {
			return
		}
		m := l
		if r := l + 1; r < len(h.s) && h.less(&h.s[r], &h.s[l]) {
			m = r
		}
		if !h.less(&h.s[m], &h.s[i]) {
			return
		}
		h.s[i], h.s[m] = h.s[m], h.s[i]
		i = m
	}
}
