/*
 * Deferred hooks: the application's thread does not enter Go for them. The
 * trampoline copies what the hook will read (the parameters, the structures
 * they point to, pNext chains, strings and arrays with their registry
 * lengths) into a record of one ring shared by every layer of the library,
 * and a Go goroutine drains the ring in order (layer/defer.go), calling the
 * hooks with pointers into the copies. What is copied is described by
 * tables generated from the registry (struct vkgen_cap_*), so the copying
 * code is written once.
 */
#ifndef VKGEN_DEFER_H
#define VKGEN_DEFER_H

#include <stdint.h>

/* The library's TLS is static already (Go's runtime needs it so): the
 * initial-exec model reads the hot per-thread variables without a call to
 * __tls_get_addr. */
#define VKGEN_TLS_IE __attribute__((tls_model("initial-exec")))

/* Whether a trace session runs: records carry timestamps. */
extern int vkgen_defer_timestamps;

/* How one pointer member of a structure (or one parameter) is copied. */
enum vkgen_cap_kind {
	VKGEN_CAP_VALUE,  /* parameter only: the value itself */
	VKGEN_CAP_NULL,   /* not copied: NULL in the copy (pAllocator, pointers the registry gives no length) */
	VKGEN_CAP_STRUCT, /* count structures of type `type` */
	VKGEN_CAP_BYTES,  /* count elements of elem_size bytes (scalars, handles) */
	VKGEN_CAP_STRING, /* a NUL-terminated string */
	VKGEN_CAP_CHAIN,  /* a pNext chain: each structure by its sType (vkgen_cap_stype) */
};

struct vkgen_cap_type;

/* One pointer member at offset (or one parameter). The element count is 1,
 * or the unsigned integer of count_size bytes at count_offset of the same
 * structure (count_param: the parameter index) when count_size is non-zero. */
struct vkgen_cap_ptr {
	uint32_t offset;
	uint8_t kind;
	uint8_t count_size;
	int16_t count_param;
	uint32_t count_offset;
	uint32_t elem_size;
	const struct vkgen_cap_type *type;
};

struct vkgen_cap_type {
	uint32_t size;
	uint32_t nptrs;
	const struct vkgen_cap_ptr *ptrs;
};

/* A deferred hook: its record id and its parameters. The generated
 * description leaves id 0; layer.RegisterDeferred (the Go glue, at load)
 * assigns it, so ids are scoped to the process and no layer's generated
 * files depend on another's hooks. Records of an unregistered id run
 * nothing. With a query (the hook's //vkgen:query), the last parameter is
 * not the call's: query fills query_size bytes from the call's parameters
 * when the call is recorded (a next-layer command of the layer's, e.g. the
 * memory requirements of the buffer being bound). */
struct vkgen_cap_cmd {
	uint32_t id;
	uint32_t nparams;
	const struct vkgen_cap_ptr *params;
	void (*query)(const uint64_t *args, void *out);
	uint32_t query_size;
	uint32_t names; /* VKGEN_NAMES_*: a durable naming record (//vkgen:durable) */
	/* The command creates an object that holds memory and its layer asked
	 * for call stacks: the record carries the caller's (vkgen_stack_depth
	 * frames at most). */
	uint32_t stack;
};

/* What a durable naming record holds: the device, then the name info, a
 * VkDebugUtilsObjectNameInfoEXT or a VkDebugMarkerObjectNameInfoEXT. The
 * exit watcher (layer/tracing/exitwatch.c) writes the ones still pending
 * when the process dies into the trace files. */
enum { VKGEN_NAMES_NONE = 0, VKGEN_NAMES_UTILS = 1, VKGEN_NAMES_MARKER = 2 };

/* The framework's own deferred hooks (generated, vkgen_capture.gen.c): the two
 * naming commands, durable, and forgetting an ended object's name, all
 * recorded into the shared name store (layer/naming) for the layers that
 * declare object_names. */
extern struct vkgen_cap_cmd vkgen_cap_names_SetDebugUtilsObjectNameEXT;
extern struct vkgen_cap_cmd vkgen_cap_names_DebugMarkerSetObjectNameEXT;
extern struct vkgen_cap_cmd vkgen_cap_names_forget;

/* VkDebugReportObjectTypeEXT -> VkObjectType, 0 when unmapped (generated,
 * vkgen_capture.gen.c). */
int32_t vkgen_object_type_of_report(int32_t t);

/* The generated table of every structure a pNext chain may carry into a
 * deferred hook, by sType value; NULL for others (the chain is cut there). */
const struct vkgen_cap_type *vkgen_cap_stype(int32_t stype);

/* Copies one call into the ring: args are the parameters as integers
 * (pointers and handles widened), result the call's result (0 for void and
 * before the call). Never enters Go; a no-op in a forked child. */
void vkgen_defer(const struct vkgen_cap_cmd *cmd, const uint64_t *args, int64_t result);

#endif
