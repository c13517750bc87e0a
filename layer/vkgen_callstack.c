/* Call-stack capture and the module list (vkgen_callstack.h).
 *
 * Unwinding follows the unwind tables (.eh_frame): applications and the
 * loader are rarely built with frame pointers. Walking them through
 * libgcc's _Unwind_Backtrace costs about 150 ns a frame (finding and
 * interpreting each frame's CFI), so it is done once per return address:
 * what it finds is kept as that address's rule (how to get the caller's
 * frame address, and where the caller's rbp was saved), and later walks
 * follow the cached rules, a few loads a frame, falling back to libgcc at
 * the first address without one (docs/performance.md, "Call stacks").
 * Reads stay within the thread's stack. x86-64 only; elsewhere libgcc
 * walks every time. */
#define _GNU_SOURCE
#include "vkgen_callstack.h"
#include "vkgen_defer.h"

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <unwind.h>

int vkgen_stack_depth;

/* This library's own code: its frames (trampoline, record) are skipped. */
static uintptr_t own_lo, own_hi;
static pthread_once_t own_once = PTHREAD_ONCE_INIT;

static int find_own(struct dl_phdr_info *info, size_t size, void *data) {
	(void)size;
	uintptr_t at = (uintptr_t)data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD) continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (at >= lo && at < hi) {
			own_lo = lo;
			own_hi = hi;
			return 1;
		}
	}
	return 0;
}

static void own_init(void) { dl_iterate_phdr(find_own, (void *)(uintptr_t)&vkgen_capture_stack); }

static int own(uintptr_t pc) { return pc >= own_lo && pc < own_hi; }

/* Appends pc unless it is one of the library's own frames on top; returns
 * 0 when the walk should stop (full, or back in the library below the
 * application). */
static int keep(uint64_t *out, uint32_t *n, uint32_t max, uintptr_t pc) {
	if (own(pc)) return *n == 0;
	out[(*n)++] = pc;
	return *n < max;
}

/* ---- the slow walk: libgcc, learning rules ---- */

#define WALK_MAX (VKGEN_STACK_MAX + 16) /* the library's own frames on top */

/* What libgcc gives for a frame: its pc, its stack pointer (_Unwind_GetCFA
 * in a backtrace callback is the CFA of the frame below, which is this
 * frame's stack pointer) and its rbp. */
struct frame {
	uintptr_t pc, sp, rbp;
};

struct walk {
	struct frame f[WALK_MAX];
	int n;
};

static _Unwind_Reason_Code step(struct _Unwind_Context *ctx, void *arg) {
	struct walk *w = arg;
	uintptr_t pc = _Unwind_GetIP(ctx);
	if (!pc) return _URC_END_OF_STACK;
#if defined(__x86_64__)
	uintptr_t rbp = _Unwind_GetGR(ctx, 6); /* DWARF register 6 is rbp: what the rules learn from */
#else
	uintptr_t rbp = 0; /* elsewhere register 6 is a scratch register libgcc may not track: reading it dereferences NULL */
#endif
	w->f[w->n++] = (struct frame){pc, _Unwind_GetCFA(ctx), rbp};
	return w->n == WALK_MAX ? _URC_END_OF_STACK : _URC_NO_REASON;
}

#if defined(__x86_64__)

/* A return address's rule: the frame's CFA (the caller's stack pointer) is
 * rsp + off (RULE_RSP) or rbp + 16 (RULE_RBP); the caller's rbp is saved at
 * CFA - 8 * slot, or is this frame's (slot 0). The return address is at
 * CFA - 8. RULE_END: the outermost frame (libgcc found no caller). */
enum { RULE_NONE = 0, RULE_RSP = 1, RULE_RBP = 2, RULE_END = 3 };

struct rule_entry {
	uint64_t pc;
	uint32_t state; /* 0 free, 1 being written, 2 ready: never changes after */
	uint8_t kind, slot;
	uint32_t off;
};

#define RULES 8192 /* a power of two; past it addresses go the slow way */
static struct rule_entry rules[RULES];

static uint32_t rule_hash(uint64_t pc) { return (uint32_t)((pc * 0x9e3779b97f4a7c15ull) >> 51) & (RULES - 1); }

static const struct rule_entry *rule_of(uint64_t pc) {
	for (uint32_t i = rule_hash(pc), k = 0; k < 8; k++, i = (i + 1) & (RULES - 1)) {
		struct rule_entry *e = &rules[i];
		uint32_t st = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
		if (st == 0) return NULL;
		if (st == 2 && e->pc == pc) return e;
	}
	return NULL;
}

static void rule_put(uint64_t pc, uint8_t kind, uint32_t off, uint8_t slot) {
	for (uint32_t i = rule_hash(pc), k = 0; k < 8; k++, i = (i + 1) & (RULES - 1)) {
		struct rule_entry *e = &rules[i];
		uint32_t zero = 0;
		if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == 2 && e->pc == pc) return;
		if (!__atomic_compare_exchange_n(&e->state, &zero, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) continue;
		e->pc = pc, e->kind = kind, e->off = off, e->slot = slot;
		__atomic_store_n(&e->state, 2, __ATOMIC_RELEASE);
		return;
	}
}

/* The calling thread's stack: reads outside it are never made. */
static __thread uintptr_t stack_lo VKGEN_TLS_IE, stack_hi VKGEN_TLS_IE;

static int thread_stack(void) {
	if (stack_hi) return 1;
	pthread_attr_t a;
	void *addr;
	size_t size;
	if (pthread_getattr_np(pthread_self(), &a) != 0) return 0;
	int ok = pthread_attr_getstack(&a, &addr, &size) == 0;
	pthread_attr_destroy(&a);
	if (!ok) return 0;
	stack_lo = (uintptr_t)addr;
	stack_hi = stack_lo + size;
	return 1;
}

static int on_stack(uintptr_t p) { return p >= stack_lo && p + 8 <= stack_hi; }

/* Learns the rules of a slow walk's frames: frame i's CFA is frame i + 1's
 * stack pointer; its rbp and its caller's are what libgcc restored. */
static void learn(const struct walk *w) {
	if (w->n > 1 && w->n < WALK_MAX) rule_put(w->f[w->n - 1].pc, RULE_END, 0, 0);
	for (int i = 1; i + 1 < w->n; i++) {
		const struct frame *f = &w->f[i], *up = &w->f[i + 1];
		uintptr_t rsp = f->sp, cfa = up->sp;
		uint8_t kind, slot = 0;
		uint32_t off = 0;
		if (cfa == f->rbp + 16) {
			kind = RULE_RBP;
		} else if (cfa > rsp && cfa - rsp < (1u << 24)) {
			kind = RULE_RSP;
			off = (uint32_t)(cfa - rsp);
		} else {
			continue;
		}
		if (up->rbp != f->rbp) {
			for (slot = 2; slot < 64; slot++) {
				uintptr_t at = cfa - 8u * slot;
				if (at < rsp || !on_stack(at)) {
					slot = 64;
					break;
				}
				if (*(const uintptr_t *)at == up->rbp) break;
			}
			if (slot == 64) continue; /* not found: no rule */
		}
		rule_put(f->pc, kind, off, slot);
	}
}

/* The fast walk from (pc, rsp, rbp): follows cached rules; returns 0 at an
 * address without one (the caller walks the slow way). */
static int walk_fast(uintptr_t pc, uintptr_t rsp, uintptr_t rbp, uint64_t *out, uint32_t *n, uint32_t max) {
	for (int frames = 0; frames < WALK_MAX; frames++) {
		if (!keep(out, n, max, pc)) return 1;
		const struct rule_entry *r = rule_of(pc);
		if (!r) return 0;
		if (r->kind == RULE_END) return 1;
		uintptr_t cfa = r->kind == RULE_RBP ? rbp + 16 : rsp + r->off;
		if (cfa <= rsp || !on_stack(cfa - 8)) return 1; /* the stack's end */
		if (r->slot) {
			if (!on_stack(cfa - 8u * r->slot)) return 1;
			rbp = *(const uintptr_t *)(cfa - 8u * r->slot);
		}
		pc = *(const uintptr_t *)(cfa - 8);
		rsp = cfa;
		if (!pc) return 1;
	}
	return 1;
}

/* A frame pointer of its own: the walk starts from it. */
__attribute__((noinline, optimize("no-omit-frame-pointer"))) uint32_t vkgen_capture_stack(uint64_t *out, uint32_t max) {
	pthread_once(&own_once, own_init);
	if (max > VKGEN_STACK_MAX) max = VKGEN_STACK_MAX;
	uint32_t n = 0;
	if (!max) return 0;
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
	if (thread_stack() && on_stack(fp)) { /* not on a stack of the program's own (a fiber's) */
		if (walk_fast((uintptr_t)__builtin_return_address(0), fp + 16, *(const uintptr_t *)fp, out, &n, max)) return n;
	}
	struct walk w;
	w.n = 0;
	_Unwind_Backtrace(step, &w);
	if (stack_hi) learn(&w);
	n = 0;
	for (int i = 1; i < w.n && keep(out, &n, max, w.f[i].pc); i++) {
	}
	return n;
}

#else

uint32_t vkgen_capture_stack(uint64_t *out, uint32_t max) {
	pthread_once(&own_once, own_init);
	if (max > VKGEN_STACK_MAX) max = VKGEN_STACK_MAX;
	uint32_t n = 0;
	if (!max) return 0;
	struct walk w;
	w.n = 0;
	_Unwind_Backtrace(step, &w);
	for (int i = 1; i < w.n && keep(out, &n, max, w.f[i].pc); i++) {
	}
	return n;
}

#endif

/* ---- modules ---- */

struct listing {
	struct vkgen_module *out;
	uint32_t n, max;
};

static void build_id(struct vkgen_module *m, const struct dl_phdr_info *info) {
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE) continue;
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const unsigned char *name = p + sizeof(*nh);
			const unsigned char *desc = name + ((nh->n_namesz + 3) & ~3u);
			if (desc + nh->n_descsz > end) break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
			    nh->n_descsz <= sizeof(m->build_id)) {
				memcpy(m->build_id, desc, nh->n_descsz);
				m->build_id_len = nh->n_descsz;
				return;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
}

static int list_one(struct dl_phdr_info *info, size_t size, void *data) {
	(void)size;
	struct listing *l = data;
	if (l->n++ >= l->max) return 0;
	struct vkgen_module *m = &l->out[l->n - 1];
	memset(m, 0, sizeof(*m));
	int first = 1;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD) continue;
		uint64_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (first) {
			m->start = lo, m->end = hi;
			first = 0;
		}
		if (lo < m->start) m->start = lo;
		if (hi > m->end) m->end = hi;
	}
	m->bias = info->dlpi_addr;
	if (info->dlpi_name) {
		strncpy(m->path, info->dlpi_name, sizeof(m->path) - 1);
	}
	build_id(m, info);
	return 0;
}

uint32_t vkgen_modules(struct vkgen_module *out, uint32_t max) {
	struct listing l = {out, 0, max};
	dl_iterate_phdr(list_one, &l);
	return l.n;
}

static int count_changes(struct dl_phdr_info *info, size_t size, void *data) {
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
		*(uint64_t *)data = (uint64_t)info->dlpi_adds * 1000003u + (uint64_t)info->dlpi_subs;
	return 1; /* the counters are the same in every entry */
}

uint64_t vkgen_modules_generation(void) {
	uint64_t g = 0;
	dl_iterate_phdr(count_changes, &g);
	return g;
}
