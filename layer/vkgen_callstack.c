/* Call-stack capture and the module list (vkgen_callstack.h).
 *
 * Unwinding uses the unwind tables (.eh_frame) through _Unwind_Backtrace:
 * applications and the loader are rarely built with frame pointers, and
 * glibc's dl_find_object makes finding a frame's table cheap
 * (docs/performance.md, "Call stacks"). */
#define _GNU_SOURCE
#include "vkgen_callstack.h"

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

struct walk {
	uint64_t *out;
	uint32_t n, max;
};

static _Unwind_Reason_Code step(struct _Unwind_Context *ctx, void *arg) {
	struct walk *w = arg;
	uintptr_t pc = _Unwind_GetIP(ctx);
	if (!pc) return _URC_END_OF_STACK;
	if (pc >= own_lo && pc < own_hi) return w->n ? _URC_END_OF_STACK : _URC_NO_REASON;
	w->out[w->n++] = pc;
	return w->n == w->max ? _URC_END_OF_STACK : _URC_NO_REASON;
}

uint32_t vkgen_capture_stack(uint64_t *out, uint32_t max) {
	pthread_once(&own_once, own_init);
	if (max > VKGEN_STACK_MAX) max = VKGEN_STACK_MAX;
	struct walk w = {out, 0, max};
	if (max) _Unwind_Backtrace(step, &w);
	return w.n;
}

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
