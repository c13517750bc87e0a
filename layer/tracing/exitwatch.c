/* The exit watcher: a helper that outlives the application's threads and
 * appends each file session's unwritten packets to its trace once the
 * process is gone, however it ended (a Go host's exit_group, _exit, a fatal
 * signal, SIGKILL). It is a process created with clone(CLONE_VM |
 * CLONE_FILES): it shares the address space and the descriptor table, so
 * when the application's thread group dies the memory and the trace files
 * stay as they were, frozen. It sends no signal when it ends (no SIGCHLD;
 * wait(2) without __WALL does not see it), blocks every signal, and runs
 * only raw system calls: it has no thread of its own in libc or Go (its TLS
 * register is its creator's), so it must touch neither. It waits on a pidfd
 * of the application, reads the exit state that package perfetto publishes
 * (perfetto/exitstate.go documents the layout mirrored here), writes, and
 * exits. The package is compiled without stack protector: the canary lives
 * in the creator thread's TLS, which may be gone. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <vulkan/vulkan_core.h>

#include "exitwatch.h"
#include "vkgen_defer.h"
#include "vkgen_ring.h"

struct xview {
	uint64_t ptr, len, gen, mark;
};
struct xdb {
	uint64_t which;
	struct xview v[2];
};
struct xseq {
	struct xdb cur, pend;
};
struct xfile {
	int64_t fd;
	uint64_t writing, write_off, nseq;
	struct xseq *seqs;
};

#if defined(__x86_64__)
static long sys(long n, long a, long b, long c, long d) {
	long ret;
	register long r10 __asm__("r10") = d;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
static long sys(long n, long a, long b, long c, long d) {
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
	return x0;
}
#endif

#if defined(__x86_64__) || defined(__aarch64__)
#define WATCH_SUPPORTED 1

static struct {
	struct xfile **table;
	int pidfd;
	uint32_t pid;
} watch;

static struct xview view(const struct xdb *d) {
	return d->v[__atomic_load_n(&d->which, __ATOMIC_ACQUIRE) & 1];
}

/* Length of the prefix of b made of whole framed packets (0x0a, varint
 * length, payload): the most that may be appended without breaking the
 * file's framing. */
static uint64_t whole(const uint8_t *b, uint64_t n) {
	uint64_t i = 0;
	while (i < n && b[i] == 0x0a) {
		uint64_t len = 0, j = i + 1;
		int shift = 0;
		while (j < n && shift < 64) {
			len |= (uint64_t)(b[j] & 0x7f) << shift;
			shift += 7;
			if (!(b[j++] & 0x80)) break;
		}
		if (j >= n || (b[j - 1] & 0x80) || len > n - j) break;
		i = j + len;
	}
	return i;
}

static void put(long fd, const uint8_t *b, uint64_t n) {
	while (n > 0) {
		long w = sys(SYS_write, fd, (long)b, (long)n, 0);
		if (w == -EINTR) continue;
		if (w <= 0) return;
		b += w;
		n -= (uint64_t)w;
	}
}

/* Appends what file f had not written: per sequence, the rest of the batch
 * in flight, then the current buffer unless the batch took its bytes. */
static void drain(const struct xfile *f) {
	long fd = __atomic_load_n(&f->fd, __ATOMIC_ACQUIRE);
	if (fd < 0) return;
	long size = sys(SYS_lseek, fd, 0, SEEK_END, 0);
	if (size < 0) return;
	uint64_t writing = __atomic_load_n(&f->writing, __ATOMIC_ACQUIRE), off = f->write_off;
	/* What a killed write left of the batch in flight goes: it is written
	 * again whole, as it was in memory (the file may hold it compressed).
	 * Once its pend is cleared the batch is in the file, whole. */
	if (writing && writing <= f->nseq && (uint64_t)size > off && view(&f->seqs[writing - 1].pend).len) {
		if (sys(SYS_ftruncate, fd, (long)off, 0, 0) < 0 || sys(SYS_lseek, fd, (long)off, SEEK_SET, 0) < 0) return;
	}
	for (uint64_t i = 0; i < f->nseq; i++) {
		struct xview pend = view(&f->seqs[i].pend), cur = view(&f->seqs[i].cur);
		if (pend.len) put(fd, (const uint8_t *)pend.ptr, whole((const uint8_t *)pend.ptr, pend.len));
		if (cur.len && !(pend.len && pend.gen == cur.gen))
			put(fd, (const uint8_t *)cur.ptr, whole((const uint8_t *)cur.ptr, cur.len));
	}
}

/* Protobuf encoding of the packets below. */
static uint8_t *varint(uint8_t *p, uint64_t v) {
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static uint8_t *tag(uint8_t *p, uint32_t num, int wire) { return varint(p, (uint64_t)num << 3 | (uint64_t)wire); }
static uint8_t *field(uint8_t *p, uint32_t num, uint64_t v) { return varint(tag(p, num, 0), v); }
static uint8_t *bytes(uint8_t *p, uint32_t num, const uint8_t *b, uint64_t n) {
	p = varint(tag(p, num, 2), n);
	for (uint64_t i = 0; i < n; i++) *p++ = b[i];
	return p;
}

/* The length of the UTF-8 sequence starting s (n bytes left), 0 when it is
 * not a valid one (overlong forms, surrogates and values past U+10FFFF are
 * invalid, as for Go's unicode/utf8). */
static int rune_len(const uint8_t *s, uint64_t n) {
	uint8_t c = s[0];
	if (c < 0x80) return 1;
	int len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
	if (!len || c > 0xf4 || (uint64_t)len > n) return 0;
	uint8_t lo = 0x80, hi = 0xbf;
	if (c == 0xe0) lo = 0xa0;
	if (c == 0xed) hi = 0x9f;
	if (c == 0xf0) lo = 0x90;
	if (c == 0xf4) hi = 0x8f;
	if (s[1] < lo || s[1] > hi) return 0;
	for (int i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf) return 0;
	return len;
}

/* The name as package perfetto writes strings (perfetto.Sanitize): each
 * invalid byte becomes U+FFFD, and a text longer than MaxStringLen (4096)
 * is cut at a character boundary and ends with TruncationMarker. Returns the
 * length written to out, which holds 4096 bytes. */
static uint64_t sanitize(const char *name, uint8_t *out) {
	static const char marker[] = "...[truncated]";
	enum { MAX = 4096, CUT = MAX - (int)sizeof(marker) + 1 };
	uint64_t n = 0, o = 0, cut = 0, i;
	while (name[n] && n <= 4 * MAX) n++; /* NUL-terminated by the copy; enough to know it is too long */
	const uint8_t *s = (const uint8_t *)name;
	for (i = 0; i < n;) {
		int len = rune_len(s + i, n - i), enc = len ? len : 3;
		if (o + enc > MAX) break;
		if (o + enc <= CUT) cut = o + enc;
		if (len)
			for (int k = 0; k < len; k++) out[o++] = s[i + k];
		else
			out[o++] = 0xef, out[o++] = 0xbf, out[o++] = 0xbd;
		i += len ? (uint64_t)len : 1;
	}
	if (i < n) { /* too long: the part that leaves room for the marker */
		o = cut;
		for (uint64_t k = 0; k < sizeof(marker) - 1; k++) out[o++] = (uint8_t)marker[k];
	}
	return o;
}

/* Appends to fd the VkDebugUtilsObjectName packet of one durable naming
 * record (vkgen_defer.h) at ts, as package perfetto writes it live. */
static void put_name(long fd, const struct vkgen_rec *r, const uint64_t *slots, uint64_t ts) {
	uint64_t device = slots[0], handle;
	int32_t type;
	const char *name;
	if (r->names == VKGEN_NAMES_UTILS) {
		const VkDebugUtilsObjectNameInfoEXT *info = (const void *)(uintptr_t)slots[1];
		if (!info) return;
		type = (int32_t)info->objectType, handle = info->objectHandle, name = info->pObjectName;
	} else {
		const VkDebugMarkerObjectNameInfoEXT *info = (const void *)(uintptr_t)slots[1];
		if (!info) return;
		type = vkgen_object_type_of_report((int32_t)info->objectType), handle = info->object, name = info->pObjectName;
	}
	if (type == 0 || handle == 0) return; /* what the name store refuses */
	uint8_t text[4096], on[4096 + 64], ev[4096 + 80], pkt[4096 + 112], out[4096 + 128];
	uint64_t n = name ? sanitize(name, text) : 0;
	uint8_t *o = field(on, 1, watch.pid); /* VkDebugUtilsObjectName */
	o = field(o, 2, device);
	o = field(o, 3, (uint64_t)(int64_t)type);
	o = field(o, 4, handle);
	o = bytes(o, 5, text, n);
	uint8_t *e = bytes(ev, 1, on, (uint64_t)(o - on)); /* VulkanApiEvent */
	uint8_t *t = field(pkt, 8, ts);                    /* TracePacket */
	t = field(t, 58, 6);                               /* timestamp_clock_id: BOOTTIME */
	t = field(t, 10, 1);                               /* trusted_packet_sequence_id: the replay's */
	t = bytes(t, 65, ev, (uint64_t)(e - ev));
	uint8_t *end = bytes(out, 1, pkt, (uint64_t)(t - pkt)); /* Trace.packet */
	put(fd, out, (uint64_t)(end - out));
}

/* How far file f's packets cover the naming records: the highest mark of
 * its views (perfetto/exitstate.go). The record whose hook was running when
 * the process died is past done, yet its name may be in f already. */
static uint64_t named(const struct xfile *f) {
	uint64_t m = 0;
	for (uint64_t i = 0; i < f->nseq; i++) {
		struct xview cur = view(&f->seqs[i].cur), pend = view(&f->seqs[i].pend);
		if (cur.mark > m) m = cur.mark;
		if (pend.mark > m) m = pend.mark;
	}
	return m;
}

/* Appends to every file the packets of the durable naming records the
 * drain had not run (layer/defer.go publishes how far it got in done) and
 * the file does not hold (named). A record whose writer died before
 * committing it ends the walk unless its size was written. */
static void put_names(void) {
	const uint8_t *buf = __atomic_load_n(&vkgen_ring.buf, __ATOMIC_ACQUIRE);
	if (!buf) return;
	uint64_t at = __atomic_load_n(&vkgen_ring.done, __ATOMIC_ACQUIRE);
	uint64_t head = __atomic_load_n(&vkgen_ring.head, __ATOMIC_ACQUIRE), now = 0;
	if (head - at > VKGEN_RING_BYTES) return;
	long fd[VKGEN_EXIT_SLOTS];
	uint64_t covered[VKGEN_EXIT_SLOTS]; /* the process is gone: both stay as read here */
	for (int i = 0; i < VKGEN_EXIT_SLOTS; i++) {
		const struct xfile *f = __atomic_load_n(&watch.table[i], __ATOMIC_ACQUIRE);
		fd[i] = f ? __atomic_load_n(&f->fd, __ATOMIC_ACQUIRE) : -1;
		covered[i] = fd[i] >= 0 ? named(f) : 0;
	}
	while (at < head) {
		const struct vkgen_rec *r = (const void *)(buf + (at & (VKGEN_RING_BYTES - 1)));
		uint32_t size = r->size, state = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
		if (!size || size % 8 || size > head - at) return; /* a padding record may be 8 bytes */
		if ((state == VKGEN_REC_READY || state == VKGEN_REC_HEAP) && size >= sizeof(*r) && r->names && r->nslots >= 2) {
			const uint64_t *slots = state == VKGEN_REC_HEAP ? (const void *)(uintptr_t)r->slot[0] : r->slot;
			uint64_t ts = r->ts;
			if (!ts) { /* recorded before any session: the time of the end */
				if (!now) {
					struct timespec t = {0, 0};
					sys(SYS_clock_gettime, CLOCK_BOOTTIME, (long)&t, 0, 0);
					now = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
				}
				ts = now;
			}
			for (int i = 0; i < VKGEN_EXIT_SLOTS; i++)
				if (fd[i] >= 0 && at + size > covered[i]) put_name(fd[i], r, slots, ts);
		}
		at += size;
	}
}

/* Starts with every signal blocked (inherited from vkgen_exit_watch). */
static int watcher(void *arg) {
	(void)arg;
	struct pollfd p = {watch.pidfd, POLLIN, 0};
	long r;
	while ((r = sys(SYS_ppoll, (long)&p, 1, 0, 0)) == -EINTR) {
	}
	/* Anything but "the process exited": it may still be running, so leave
	 * its files alone. (ppoll sleeps on the pidfd's file itself: the
	 * application closing that descriptor number does not wake it.) */
	if (r != 1 || !(p.revents & POLLIN)) return 0;
	for (int i = 0; i < VKGEN_EXIT_SLOTS; i++) {
		const struct xfile *f = __atomic_load_n(&watch.table[i], __ATOMIC_ACQUIRE);
		if (f) drain(f);
	}
	put_names(); /* last: what it reads was written by threads killed anywhere */
	return 0;
}
#endif

int vkgen_exit_watch(uintptr_t table) {
#ifdef WATCH_SUPPORTED
	enum { STACK = 64 << 10 };
	watch.table = (struct xfile **)table;
	watch.pid = (uint32_t)getpid();
	watch.pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (watch.pidfd < 0) return -1;
	void *stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED) return -1;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/* exit signal 0: the application never hears of the watcher */
	int pid = clone(watcher, (char *)stack + STACK, CLONE_VM | CLONE_FILES, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		munmap(stack, STACK);
		close(watch.pidfd);
		return -1;
	}
	return 0;
#else
	(void)table;
	return -1;
#endif
}
