/* Call stacks of the application's calls (vkgen_callstack.c): the return
 * addresses a deferred hook's record carries when its command creates an
 * object that holds memory (vkgen_cap_cmd.stack), and the loaded modules
 * that map them to files (ELF build ids, load addresses). Capture is on the
 * application's thread; everything else (module lookup, symbols, interning)
 * is Go's, off the hot path (layer/callstack.go). */
#ifndef VKGEN_CALLSTACK_H
#define VKGEN_CALLSTACK_H

#include <stdint.h>

/* The most frames a record carries (the depth setting's upper bound). */
#define VKGEN_STACK_MAX 64

/* Frames to capture per record of a stack-carrying command; 0: none (the
 * capture costs a load and a branch). Set by Go from the layer's setting. */
extern int vkgen_stack_depth;

/* Writes up to max return addresses of the calling thread's stack,
 * innermost first, skipping this library's own frames; returns how many. */
uint32_t vkgen_capture_stack(uint64_t *out, uint32_t max);

/* One loaded module: its runtime range [start, end) over its PT_LOAD
 * segments, the load bias (runtime = ELF vaddr + bias), its GNU build id and
 * path ("" for the main program). */
struct vkgen_module {
	uint64_t start, end, bias;
	uint32_t build_id_len;
	unsigned char build_id[32];
	char path[512];
};

/* Fills up to max modules and returns how many there are (more than max
 * when out was too small). */
uint32_t vkgen_modules(struct vkgen_module *out, uint32_t max);

/* A number that changes when modules are loaded or unloaded. */
uint64_t vkgen_modules_generation(void);

#endif
