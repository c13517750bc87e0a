/* The ring of deferred hook records and the copying of a call into it
 * (vkgen_defer.h). Producers are application threads; the one consumer is
 * Go (layer/defer.go), which reads records in place and zeroes what it
 * consumed, so a header's state is 0 until its producer commits it. */
#include "vkgen_defer.h"

#include <errno.h>
#include <pthread.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vkgen_callstack.h"
#include "vkgen_fork.h"
#include "vkgen_ring.h"

struct vkgen_ring vkgen_ring;

/* Bounds on what one record may hold: a chain longer than this, or nesting
 * deeper, is cut (the copy ends with a NULL pointer there). */
#define MAX_CHAIN 64
#define MAX_DEPTH 8

/* A record too big for the ring goes to the heap; the ring holds its address. */
#define MAX_INLINE (VKGEN_RING_BYTES / 8)

static inline uint64_t align8(uint64_t n) { return (n + 7) & ~(uint64_t)7; }

static uint64_t count_of(const void *base, uint8_t size, uint32_t offset) {
	const unsigned char *p = (const unsigned char *)base + offset;
	switch (size) {
	case 1: return *p;
	case 2: return *(const uint16_t *)p;
	case 4: return *(const uint32_t *)p;
	case 8: return *(const uint64_t *)p;
	}
	return 1;
}

/* A bump allocator over the record being written (measure: dst == NULL).
 * With relocs, the copy goes to a thread's scratch buffer first and the
 * offsets (from the scratch's start, base) of the pointers it writes are
 * kept, to rebase them when the record is moved into the ring. */
struct out {
	unsigned char *dst;
	uint64_t used, limit; /* limit: what measuring found, for the copy; the scratch's room */
	unsigned char *base;
	uint32_t *relocs;
	uint32_t nrelocs, maxrelocs;
	int overflow; /* the scratch lacked room, or relocs ran out */
};

/* A copy never exceeds what was measured, even if the application changed
 * its memory in between (then the excess pointers are NULL). */
static void *take(struct out *o, uint64_t n) {
	if (o->dst && o->used + align8(n) > o->limit) {
		o->overflow = 1;
		return NULL;
	}
	void *p = o->dst ? o->dst + o->used : NULL;
	o->used += align8(n);
	return p;
}

/* Stores pointer c at at (nothing when measuring). */
static void put_ptr(struct out *o, unsigned char *at, void *c) {
	if (!at) return;
	memcpy(at, &c, sizeof(c));
	if (!c || !o->relocs) return;
	if (o->nrelocs == o->maxrelocs) o->overflow = 1;
	else o->relocs[o->nrelocs++] = (uint32_t)(at - o->base);
}

static void *copy_ptr(struct out *o, const struct vkgen_cap_ptr *d, const void *src, uint64_t count, int depth);

/* Every Vulkan structure with an sType has its pNext at this offset. */
#define PNEXT_OFFSET 8

/* Copies the pointers of n structures of type t at dst (already holding
 * their bytes; NULL when measuring); src are the originals. In a chain
 * element (in_chain) the pNext member is left to copy_chain. */
static void fix_structs(struct out *o, const struct vkgen_cap_type *t, unsigned char *dst, const unsigned char *src,
                        uint64_t n, int depth, int in_chain) {
	for (uint64_t i = 0; i < n; i++, src += t->size, dst = dst ? dst + t->size : NULL)
		for (uint32_t j = 0; j < t->nptrs; j++) {
			const struct vkgen_cap_ptr *d = &t->ptrs[j];
			if (in_chain && d->kind == VKGEN_CAP_CHAIN) continue;
			const void *p = *(const void *const *)(src + d->offset);
			uint64_t count = d->count_size ? count_of(src, d->count_size, d->count_offset) : 1;
			put_ptr(o, dst ? dst + d->offset : NULL, copy_ptr(o, d, p, count, depth + 1));
		}
}

/* Copies a pNext chain, one structure at a time by its sType; the copy ends
 * where the tables do not know a structure. */
static void *copy_chain(struct out *o, const void *src, int depth) {
	void *head = NULL;
	unsigned char *prev = NULL;
	for (int i = 0; src && i < MAX_CHAIN; i++) {
		const struct vkgen_cap_type *t = vkgen_cap_stype(*(const int32_t *)src);
		if (!t) break;
		unsigned char *c = take(o, t->size);
		if (c) memcpy(c, src, t->size);
		fix_structs(o, t, c, src, 1, depth, 1);
		if (c) {
			void *none = NULL;
			memcpy(c + PNEXT_OFFSET, &none, sizeof(none));
			if (prev) put_ptr(o, prev + PNEXT_OFFSET, c);
			else head = c;
		}
		prev = c;
		src = *(const void *const *)((const unsigned char *)src + PNEXT_OFFSET);
	}
	return head;
}

static void *copy_ptr(struct out *o, const struct vkgen_cap_ptr *d, const void *src, uint64_t count, int depth) {
	if (!src || depth > MAX_DEPTH) return NULL;
	switch (d->kind) {
	case VKGEN_CAP_STRUCT: {
		if (!count) return NULL;
		uint64_t n = count * d->type->size;
		unsigned char *c = take(o, n);
		if (c) memcpy(c, src, n);
		fix_structs(o, d->type, c, src, count, depth, 0);
		return c;
	}
	case VKGEN_CAP_BYTES: {
		if (!count) return NULL;
		void *c = take(o, count * d->elem_size);
		if (c) memcpy(c, src, count * d->elem_size);
		return c;
	}
	case VKGEN_CAP_STRING: {
		size_t n = strlen(src) + 1;
		void *c = take(o, n);
		if (c) memcpy(c, src, n);
		if (c) ((char *)c)[n - 1] = 0;
		return c;
	}
	case VKGEN_CAP_CHAIN:
		return copy_chain(o, src, depth);
	}
	return NULL;
}

static void write_params(struct out *o, const struct vkgen_cap_cmd *cmd, const uint64_t *args, uint64_t *slots) {
	for (uint32_t i = 0; i < cmd->nparams; i++) {
		const struct vkgen_cap_ptr *d = &cmd->params[i];
		if (d->kind == VKGEN_CAP_VALUE) {
			if (slots) slots[i] = args[i];
			continue;
		}
		uint64_t count = d->count_size ? args[d->count_param] : 1;
		if (d->count_size && d->count_size < 8) count &= (1ull << (8 * d->count_size)) - 1;
		put_ptr(o, slots ? (unsigned char *)&slots[i] : NULL, copy_ptr(o, d, (const void *)(uintptr_t)args[i], count, 0));
	}
}

/* ---- the ring ---- */

/* A record's call stack, captured before it is copied (the frames go last). */
struct frames {
	uint32_t n;
	uint64_t pc[VKGEN_STACK_MAX];
};

static void record(const struct vkgen_cap_cmd *cmd, const uint64_t *args, int64_t result, const struct frames *f);

int vkgen_defer_timestamps;
static atomic_uint_fast64_t lost;

uint64_t vkgen_now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void vkgen_ring_kick(void) {
	uint32_t one = 1;
	if (__atomic_compare_exchange_n(&vkgen_ring.sleeping, &one, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		syscall(SYS_futex, &vkgen_ring.sleeping, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Called by the consumer when the ring is empty: sleeps until a producer
 * commits (or timeout_ms passes). */
void vkgen_ring_wait(int timeout_ms) {
	__atomic_store_n(&vkgen_ring.sleeping, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&vkgen_ring.head, __ATOMIC_SEQ_CST) != __atomic_load_n(&vkgen_ring.tail, __ATOMIC_RELAXED)) {
		__atomic_store_n(&vkgen_ring.sleeping, 0, __ATOMIC_RELAXED);
		return;
	}
	struct timespec t = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000};
	syscall(SYS_futex, &vkgen_ring.sleeping, FUTEX_WAIT_PRIVATE, 1, &t, NULL, 0);
	__atomic_store_n(&vkgen_ring.sleeping, 0, __ATOMIC_RELAXED);
}

uint64_t vkgen_defer_lost(void) { return atomic_load(&lost); }

void vkgen_ring_room(void) {
	__atomic_fetch_add(&vkgen_ring.room_seq, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &vkgen_ring.room_seq, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
}

/* Sleeps until the consumer, publishing a tail, finds a quarter of the ring
 * free (layer/defer.go publishTail), or 10 ms pass; returns the tail then,
 * at once when it moved since seen. The waiter count is raised before the
 * tail is read again and the consumer reads it after publishing (both
 * sequentially consistent), so either this thread sees the new tail or the
 * consumer sees the waiter and bumps room_seq, which ends or prevents the
 * sleep. */
static uint64_t wait_room(uint64_t seen) {
	uint32_t seq = __atomic_load_n(&vkgen_ring.room_seq, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&vkgen_ring.room_waiters, 1, __ATOMIC_SEQ_CST);
	uint64_t tail = __atomic_load_n(&vkgen_ring.tail, __ATOMIC_SEQ_CST);
	if (tail == seen) {
		vkgen_ring_kick();
		struct timespec t = {0, 10 * 1000000};
		syscall(SYS_futex, &vkgen_ring.room_seq, FUTEX_WAIT_PRIVATE, seq, &t, NULL, 0);
		tail = __atomic_load_n(&vkgen_ring.tail, __ATOMIC_ACQUIRE);
	}
	__atomic_fetch_sub(&vkgen_ring.room_waiters, 1, __ATOMIC_RELAXED);
	return tail;
}

/* Reserves n bytes (a multiple of 8, at most MAX_INLINE) of the ring; NULL
 * when the consumer made no room for a second (the record is counted as
 * lost rather than hanging the application). A full ring puts the thread to
 * sleep until the consumer makes room: an application that records faster
 * than the hooks run waits without taking a CPU from them. */
static struct vkgen_rec *reserve(uint64_t n) {
	const uint64_t cap = VKGEN_RING_BYTES;
	/* The consumer's tail as this thread last read it: reading the shared
	 * line at every record would miss the cache whenever the consumer moved
	 * it; the tail only grows, so a stale one only underestimates room. */
	static __thread uint64_t tail_seen VKGEN_TLS_IE;
	uint64_t waiting_since = 0;
	for (;;) {
		uint64_t h = __atomic_load_n(&vkgen_ring.head, __ATOMIC_RELAXED);
		uint64_t off = h & (cap - 1), need = off + n > cap ? cap - off + n : n;
		if (h + need - tail_seen > cap) tail_seen = __atomic_load_n(&vkgen_ring.tail, __ATOMIC_ACQUIRE);
		if (h + need - tail_seen > cap) {
			uint64_t now = vkgen_now_ns();
			if (!waiting_since) waiting_since = now;
			else if (now - waiting_since > 1000000000ull) return NULL;
			tail_seen = wait_room(tail_seen);
			continue;
		}
		if (!__atomic_compare_exchange_n(&vkgen_ring.head, &h, h + need, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		unsigned char *buf = vkgen_ring.buf;
		if (need != n) { /* pad to the end, the record starts the next lap */
			struct vkgen_rec *pad = (struct vkgen_rec *)(buf + off);
			pad->size = (uint32_t)(cap - off);
			__atomic_store_n(&pad->state, VKGEN_REC_PAD, __ATOMIC_RELEASE);
			off = 0;
		}
		return (struct vkgen_rec *)(buf + off);
	}
}

void vkgen_defer(const struct vkgen_cap_cmd *cmd, const uint64_t *args, int64_t result) {
	if (!vkgen_go_ok() || !vkgen_ring.buf) return;
	struct frames f;
	f.n = 0;
	if (cmd->stack) {
		int depth = __atomic_load_n(&vkgen_stack_depth, __ATOMIC_RELAXED);
		if (depth > 0) f.n = vkgen_capture_stack(f.pc, (uint32_t)depth);
	}
	if (cmd->query) {
		uint64_t a[cmd->nparams];
		_Alignas(16) unsigned char out[cmd->query_size];
		memset(out, 0, sizeof(out));
		memcpy(a, args, (cmd->nparams - 1) * sizeof(uint64_t));
		cmd->query(args, out);
		a[cmd->nparams - 1] = (uint64_t)(uintptr_t)out;
		record(cmd, a, result, &f);
		return;
	}
	record(cmd, args, result, &f);
}

/* A thread's scratch for copying a call once: a record that fits (nearly
 * all: a create info with its chain and strings is a few hundred bytes) is
 * copied there in one walk of the tables and moved into the ring with its
 * pointers rebased; a bigger one is measured first and copied in place. It
 * is allocated at the thread's first record (the library's TLS is static:
 * no room for it there) and freed when the thread ends. */
#define SCRATCH_BYTES 4096
#define SCRATCH_RELOCS 128
struct scratch {
	uint64_t buf[SCRATCH_BYTES / 8];
	uint32_t relocs[SCRATCH_RELOCS];
};
static __thread struct scratch *scratch VKGEN_TLS_IE;
static pthread_key_t scratch_key;
static int scratch_keyed;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *p) {
	scratch = NULL; /* a later record on this thread, from another destructor, allocates again */
	free(p);
}

static void scratch_key_init(void) { scratch_keyed = pthread_key_create(&scratch_key, scratch_free) == 0; }

/* NULL when out of memory: the record is then measured and copied in place. */
static struct scratch *thread_scratch(void) {
	if (scratch) return scratch;
	pthread_once(&scratch_once, scratch_key_init);
	struct scratch *s = scratch_keyed ? malloc(sizeof(*s)) : NULL;
	if (s && pthread_setspecific(scratch_key, s) != 0) {
		free(s);
		s = NULL;
	}
	return scratch = s;
}

/* Commits r, of n bytes whose last ones are for f's frames. */
static void commit(struct vkgen_rec *r, const struct vkgen_cap_cmd *cmd, uint64_t n, int64_t result, int heap,
                   const struct frames *f) {
	r->size = (uint32_t)n;
	r->id = cmd->id;
	r->nslots = (uint16_t)cmd->nparams;
	r->names = (uint8_t)cmd->names;
	r->nframes = (uint8_t)f->n;
	if (f->n) memcpy((unsigned char *)r + n - 8 * f->n, f->pc, 8 * f->n);
	r->ts = __atomic_load_n(&vkgen_defer_timestamps, __ATOMIC_RELAXED) ? vkgen_now_ns() : 0;
	r->result = result;
	__atomic_store_n(&r->state, heap ? VKGEN_REC_HEAP : VKGEN_REC_READY, __ATOMIC_RELEASE);
	if (__atomic_load_n(&vkgen_ring.sleeping, __ATOMIC_RELAXED)) vkgen_ring_kick();
}

/* Records the call through the thread's scratch; 0 when it does not fit
 * there (or there is no scratch), and nothing was reserved. */
static int record_via_scratch(const struct vkgen_cap_cmd *cmd, const uint64_t *args, int64_t result,
                              uint64_t slots_size, const struct frames *f) {
	struct scratch *sc = slots_size < SCRATCH_BYTES ? thread_scratch() : NULL;
	if (!sc) return 0;
	unsigned char *base = (unsigned char *)sc->buf;
	struct out s = {base + slots_size, 0, SCRATCH_BYTES - slots_size, base, sc->relocs, 0, SCRATCH_RELOCS, 0};
	write_params(&s, cmd, args, sc->buf);
	if (s.overflow) return 0;
	uint64_t body = slots_size + s.used, n = sizeof(struct vkgen_rec) + body + 8 * f->n;
	struct vkgen_rec *r = reserve(n);
	if (!r) {
		atomic_fetch_add(&lost, 1);
		return 1;
	}
	unsigned char *to = (unsigned char *)r->slot;
	memcpy(to, base, body);
	for (uint32_t i = 0; i < s.nrelocs; i++) { /* rebase what pointed into the scratch */
		uint64_t p;
		memcpy(&p, to + sc->relocs[i], sizeof(p));
		p += (uint64_t)(to - base);
		memcpy(to + sc->relocs[i], &p, sizeof(p));
	}
	commit(r, cmd, n, result, 0, f);
	return 1;
}

static void record(const struct vkgen_cap_cmd *cmd, const uint64_t *args, int64_t result, const struct frames *f) {
	uint64_t slots_size = align8(cmd->nparams * sizeof(uint64_t));
	if (record_via_scratch(cmd, args, result, slots_size, f)) return;
	struct out m = {NULL, 0, 0, NULL, NULL, 0, 0, 0};
	write_params(&m, cmd, args, NULL);
	uint64_t body = slots_size + m.used;
	uint64_t n = sizeof(struct vkgen_rec) + body;
	unsigned char *heap = NULL;
	if (n > MAX_INLINE) { /* the ring holds the address of a heap copy */
		heap = malloc(body);
		if (!heap) {
			atomic_fetch_add(&lost, 1);
			return;
		}
		n = sizeof(struct vkgen_rec) + sizeof(uint64_t);
	}
	n += 8 * f->n;
	struct vkgen_rec *r = reserve(n);
	if (!r) {
		free(heap);
		atomic_fetch_add(&lost, 1);
		return;
	}
	unsigned char *slots = heap ? heap : (unsigned char *)r->slot;
	if (heap) r->slot[0] = (uint64_t)(uintptr_t)heap;
	struct out o = {slots + slots_size, 0, m.used, NULL, NULL, 0, 0, 0};
	write_params(&o, cmd, args, (uint64_t *)slots);
	commit(r, cmd, n, result, heap != NULL, f);
}

/* The ring's memory, allocated when the Go side starts the consumer. */
int vkgen_ring_init(void) {
	if (vkgen_ring.buf) return 0;
	void *p = calloc(1, VKGEN_RING_BYTES);
	if (!p) return -1;
	__atomic_store_n(&vkgen_ring.buf, p, __ATOMIC_RELEASE);
	return 0;
}
