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
#include <unistd.h>

#include "exitwatch.h"

struct xview {
	uint64_t ptr, len, gen;
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
	for (uint64_t i = 0; i < f->nseq; i++) {
		struct xview pend = view(&f->seqs[i].pend), cur = view(&f->seqs[i].cur);
		if (pend.len) {
			uint64_t n = whole((const uint8_t *)pend.ptr, pend.len), done = 0;
			if (writing == i + 1 && (uint64_t)size > off) done = (uint64_t)size - off;
			if (done < n) put(fd, (const uint8_t *)pend.ptr + done, n - done);
		}
		if (cur.len && !(pend.len && pend.gen == cur.gen))
			put(fd, (const uint8_t *)cur.ptr, whole((const uint8_t *)cur.ptr, cur.len));
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
	return 0;
}
#endif

int vkgen_exit_watch(uintptr_t table) {
#ifdef WATCH_SUPPORTED
	enum { STACK = 64 << 10 };
	watch.table = (struct xfile **)table;
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
