/* The ring of deferred hook records (vkgen_defer.c writes, layer/defer.go
 * reads). Offsets are virtual: head and tail only grow, a byte's place is
 * offset & (VKGEN_RING_BYTES - 1). A record never wraps: one that would is
 * preceded by a padding record up to the end. */
#ifndef VKGEN_RING_H
#define VKGEN_RING_H

#include <stdint.h>

#define VKGEN_RING_BYTES (8u << 20)

enum { VKGEN_REC_WRITING = 0, VKGEN_REC_READY = 1, VKGEN_REC_PAD = 2, VKGEN_REC_HEAP = 3 };

struct vkgen_rec {
	uint32_t size;  /* of the whole record, a multiple of 8 */
	uint32_t state; /* VKGEN_REC_*; 0 until committed */
	uint32_t id;    /* the deferred hook (vkgen_cap_cmd.id) */
	uint16_t nslots;
	uint8_t names;   /* vkgen_cap_cmd.names */
	uint8_t nframes; /* return addresses in the record's last 8 * nframes bytes (vkgen_callstack.h) */
	uint64_t ts;    /* CLOCK_BOOTTIME ns of the call, 0 unless timestamps are on */
	int64_t result; /* the call's result */
	uint64_t slot[]; /* one per parameter: its value, or the address of its copy
	                  * (VKGEN_REC_HEAP: slot[0] is the address of the slots) */
};

struct vkgen_ring {
	uint64_t head __attribute__((aligned(64))); /* producers: reserved up to */
	uint64_t tail __attribute__((aligned(64))); /* consumer: consumed up to */
	/* Consumer: every record before it has run, published after each one
	 * (tail only now and then); only the exit watcher reads it. */
	uint64_t done __attribute__((aligned(64)));
	uint32_t sleeping __attribute__((aligned(64))); /* the consumer waits in vkgen_ring_wait */
	unsigned char *buf;
	/* Producers that found the ring full sleep on room_seq until the
	 * consumer publishes a new tail (vkgen_ring_room) instead of spinning. */
	uint32_t room_seq __attribute__((aligned(64)));
	uint32_t room_waiters;
};

extern struct vkgen_ring vkgen_ring;

/* CLOCK_BOOTTIME in ns: records' times. */
uint64_t vkgen_now_ns(void);

int vkgen_ring_init(void);
void vkgen_ring_wait(int timeout_ms);
void vkgen_ring_kick(void);
/* Called by the consumer after publishing a tail while room_waiters is not
 * 0: wakes the producers waiting for room. */
void vkgen_ring_room(void);
uint64_t vkgen_defer_lost(void);

#endif
