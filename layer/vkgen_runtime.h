/*
 * vkgen layer runtime: the C half of every vkgen layer. It owns chain walking
 * (VK_LAYER_LINK_INFO), per-layer dispatch state keyed by the loader dispatch
 * key, the generic GetInstanceProcAddr/GetDeviceProcAddr/Negotiate logic, the
 * enumerate functions, the object-name dedupe cache and the SIGURG multiplexer.
 * Generated per-layer code (gen/layerstubs) includes this header; it compiles
 * against the system Vulkan headers, so nothing here may need newer types.
 */
#ifndef VKGEN_RUNTIME_H
#define VKGEN_RUNTIME_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <vulkan/vulkan.h>
#include <vulkan/vk_layer.h>

#include "vkgen_defer.h"
#include "vkgen_dispatch.gen.h"
#include "vkgen_fork.h"

#define VKGEN_EXPORT __attribute__((visibility("default")))

/* Loader dispatch key: the first pointer-sized word of a dispatchable handle. */
static inline uintptr_t vkgen_key(const void *dispatchable) {
	return dispatchable ? *(const uintptr_t *)dispatchable : 0;
}
static inline uintptr_t vkgen_key_of(uintptr_t handle) { return vkgen_key((const void *)handle); }

/* A map from dispatch key to state: lock-free lookup, mutex-protected
 * insert/remove. Entries are never moved, so a reader scanning the table sees
 * each live key exactly once; a grown table replaces the old one, which is
 * kept (growth is rare and bounded) because readers may still scan it. */
struct vkgen_map_tab;
struct vkgen_map {
	pthread_mutex_t mu;
	struct vkgen_map_tab *tab; /* atomic */
};
#define VKGEN_MAP_INIT {PTHREAD_MUTEX_INITIALIZER, 0}

void *vkgen_map_get(struct vkgen_map *m, uintptr_t key);
int vkgen_map_put(struct vkgen_map *m, uintptr_t key, void *val);
void *vkgen_map_del(struct vkgen_map *m, uintptr_t key);

/* Object-name dedupe cache: remembers, per (handle), the last name a layer's
 * Go hook saw, so re-applying an unchanged name skips the C->Go crossing. A
 * miss only costs one extra Go call, so eviction and clearing are always
 * safe. Per-entry seqlock: hits are lock-free. */
#define VKGEN_NAMECACHE_ENTRIES 1024
#define VKGEN_NAMECACHE_NAME 96
struct vkgen_namecache_entry {
	uint32_t seq; /* odd while written */
	int32_t type;
	uint64_t dev;
	uint64_t handle;
	uint32_t len;
	char name[VKGEN_NAMECACHE_NAME];
};
struct vkgen_namecache {
	struct vkgen_namecache_entry e[VKGEN_NAMECACHE_ENTRIES];
};
static inline struct vkgen_namecache_entry *vkgen_namecache_entry(struct vkgen_namecache *c, uint64_t handle) {
	uint64_t h = handle * 0x9E3779B97F4A7C15ull;
	return &c->e[(h >> 32) % VKGEN_NAMECACHE_ENTRIES];
}

/* Reports whether name is what the entry for (dev, type, handle) holds.
 * Inline: this is the hot path of re-applied names (lock-free seqlock read). */
static inline int vkgen_namecache_hit(struct vkgen_namecache *c, uint64_t dev, int32_t type, uint64_t handle,
                                      const char *name) {
	if (!c || !name) return 0;
	struct vkgen_namecache_entry *e = vkgen_namecache_entry(c, handle);
	uint32_t s1 = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
	if (s1 & 1) return 0;
	uint32_t len = e->len;
	int match = e->handle == handle && e->dev == dev && e->type == type && len < VKGEN_NAMECACHE_NAME &&
	            memcmp(e->name, name, len) == 0 && name[len] == 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return match && __atomic_load_n(&e->seq, __ATOMIC_RELAXED) == s1;
}
void vkgen_namecache_store(struct vkgen_namecache *c, uint64_t dev, int32_t type, uint64_t handle, const char *name);
void vkgen_namecache_forget(struct vkgen_namecache *c, uint64_t handle);
void vkgen_namecache_clear(struct vkgen_namecache *c);

struct vkgen_layer;
struct vkgen_call;


/* Handles ever named through a layer with a forget hook: a 65536-bit filter
 * with no false negatives, so destroying an object that was never named (the
 * common case) does not enter Go. Bits are never cleared; a false positive
 * costs one Go call that finds nothing to forget. */
#define VKGEN_NAMED_BITS 65536
struct vkgen_named {
	uint64_t bits[VKGEN_NAMED_BITS / 64];
};
static inline uint32_t vkgen_named_bit(uint64_t handle) {
	return (uint32_t)((handle * 0x9E3779B97F4A7C15ull) >> 48);
}
static inline void vkgen_named_mark(struct vkgen_named *n, uint64_t handle) {
	uint32_t b = vkgen_named_bit(handle);
	uint64_t m = 1ull << (b & 63);
	/* Plain load first: re-naming must not pay for an atomic read-modify-write. */
	if (!(__atomic_load_n(&n->bits[b >> 6], __ATOMIC_RELAXED) & m)) __atomic_fetch_or(&n->bits[b >> 6], m, __ATOMIC_RELAXED);
}
static inline int vkgen_named_maybe(const struct vkgen_named *n, uint64_t handle) {
	uint32_t b = vkgen_named_bit(handle);
	return (__atomic_load_n(&n->bits[b >> 6], __ATOMIC_RELAXED) >> (b & 63)) & 1;
}

/* Per-instance state of one layer. tab holds the next layer's pointers for
 * every instance-level command (NULL where the chain below lacks it). */
struct vkgen_instance {
	const struct vkgen_layer *layer;
	VkInstance handle;
	PFN_vkGetInstanceProcAddr next_gipa;
	PFN_vkSetInstanceLoaderData set_loader_data;
	void *user; /* for layer-owned C code */
	PFN_vkVoidFunction tab[VKGEN_INSTANCE_SLOTS];
};

/* Per-device state of one layer. */
struct vkgen_device {
	const struct vkgen_layer *layer;
	VkDevice handle;
	VkPhysicalDevice physical;
	struct vkgen_instance *instance;
	PFN_vkGetDeviceProcAddr next_gdpa;
	PFN_vkSetDeviceLoaderData set_loader_data; /* for layers that create dispatchable objects */
	void *user;
	/* A layer of this library above this one in the device's chain records
	 * object names (object_names), with only this library's layers in
	 * between: this layer hands out the next layer's naming commands and
	 * records no name of its own, so each naming call is recorded once. */
	uint8_t names_above;
	PFN_vkVoidFunction tab[VKGEN_DEVICE_SLOTS];
};

/* What a layer answers for one command name (indexed by vkgen_names order). */
struct vkgen_intercept {
	PFN_vkVoidFunction fn; /* own trampoline, NULL when not intercepted */
	uint8_t claimed;       /* of an extension this layer implements: hand out even when the chain below lacks it */
};

struct vkgen_layer {
	const char *name;
	const char *description;
	uint32_t spec_version;
	uint32_t implementation_version;
	const VkExtensionProperties *instance_extensions;
	uint32_t instance_extension_count;
	const VkExtensionProperties *device_extensions;
	uint32_t device_extension_count;
	const struct vkgen_intercept *intercepts; /* VKGEN_NAMES entries */
	PFN_vkGetInstanceProcAddr gipa;
	PFN_vkGetDeviceProcAddr gdpa;
	struct vkgen_namecache *names; /* NULL unless the layer dedupes names */
	/* Trampolines of every destroy command (VKGEN_NAMES entries, from the
	 * framework's VKGEN_FORGET_ENTRIES), consulted for commands the layer does
	 * not intercept itself; NULL unless the layer has a name cache or a forget hook. */
	const struct vkgen_intercept *forgets;
	/* The layer's forget hook (its Go function forgetNamed), deferred: recorded
	 * before the call down of every destroy/free command, once per ended
	 * non-null handle that may have been named through the layer, as
	 * (device: the VkDevice of device-level commands or 0, object type,
	 * handle). NULL unless the layer has one. */
	const struct vkgen_cap_cmd *forget;
	struct vkgen_named *named; /* with forget: what the naming trampolines marked */
	/* The framework records the layer's object names into the shared store
	 * (spec object_names): its naming trampolines record the calls (once per
	 * device chain, see names_above) and forget is the framework's. */
	uint8_t object_names;
	/* "vkgen_<sym>_NegotiateLoaderLayerInterfaceVersion": how another copy
	 * of the library finds this layer (vkgen_copies.c). */
	const char *negotiate_symbol;
	struct vkgen_map instances;
	struct vkgen_map devices;
};

/* One intercepted call, passed to its hooks: user is shared by the pre and
 * post hook; arena holds what the hooks allocated for the call down
 * (vkgen_arena_alloc), freed when the trampoline returns. */
struct vkgen_arena;
struct vkgen_call {
	struct vkgen_layer *layer;
	void *user;
	struct vkgen_arena *arena;
};

/* Zeroed memory that lives until the call's trampoline returns; NULL when out
 * of memory. */
void *vkgen_arena_alloc(struct vkgen_call *call, size_t size);
void vkgen_arena_free(struct vkgen_call *call);

/* The framework's own hooks for the debug-utils messenger of a layer that
 * claims VK_EXT_debug_utils: with nothing below implementing it, creating one
 * returns a handle of the layer's own (a small allocation, non-null and
 * unique while alive), and destroying it frees that without a call down. */
VkResult vkgen_stub_messenger_create(struct vkgen_call *call, VkInstance instance,
                                                     const VkDebugUtilsMessengerCreateInfoEXT *pCreateInfo,
                                                     const VkAllocationCallbacks *pAllocator,
                                                     VkDebugUtilsMessengerEXT *pMessenger);
VkResult vkgen_stub_messenger_destroy_pre(struct vkgen_call *call, VkInstance *instance,
                                                 VkDebugUtilsMessengerEXT *messenger,
                                                 const VkAllocationCallbacks **pAllocator);
void vkgen_stub_messenger_destroy_post(struct vkgen_call *call, VkInstance instance,
                                              VkDebugUtilsMessengerEXT messenger, const VkAllocationCallbacks *pAllocator);

/* A naming call (vkSetDebugUtilsObjectNameEXT, vkDebugMarkerSetObjectNameEXT)
 * that a layer declaring object_names records, while it goes down: a layer
 * of this library further down the same call (through a foreign layer, or
 * one implementing the command) records nothing for the same object, so a
 * name set once is recorded once per process; below a layer that wraps
 * handles the device and object differ and are recorded too (the layers
 * there see those handles). */
struct vkgen_naming {
	uint64_t device, object;
};
/* a: the call's arguments as integers (device, name info). Returns whether
 * to record it; *saved is what vkgen_naming_leave restores after the call
 * down. */
int vkgen_naming_enter(const uint64_t *a, struct vkgen_naming *saved);
void vkgen_naming_leave(const struct vkgen_naming *saved);

/* A destroy call whose forget records a layer declaring object_names makes
 * while it goes down: a layer of this library further down the same call
 * (through a foreign layer, or directly) makes none for it, so an ended
 * name is forgotten once per process. The call is known by the ended
 * object (type, device, handle; for a command ending an array, the array's
 * address): ending one object twice at once is invalid usage. The layers
 * declaring object_names share one filter of named handles
 * (vkgen_object_names_named), so the uppermost decides as the lower ones
 * would have. */
struct vkgen_destroying {
	uint64_t device, object;
	int32_t type;
	uint8_t above; /* an upper layer records this call's forgets */
};
extern struct vkgen_named vkgen_object_names_named;
/* Enters a destroy call of the object (type, dev, object) for L: returns 1,
 * with *saved what vkgen_destroy_leave restores after the call down, when L
 * declares object_names; 0 otherwise (nothing to leave). */
int vkgen_destroy_enter(const struct vkgen_layer *L, int32_t type, uint64_t dev, uint64_t object,
                        struct vkgen_destroying *saved);
void vkgen_destroy_leave(const struct vkgen_destroying *saved);

/* One ended handle: drops it from the name cache (clear: the whole cache, for
 * pools whose children die with them) and calls the layer's forget hook
 * (for a layer declaring object_names, unless an upper layer does in this
 * call: vkgen_destroy_enter). */
void vkgen_forget(struct vkgen_layer *L, uint64_t dev, int32_t type, uint64_t handle, int clear);

/* The images of a swapchain (dev, swapchain) end with it, with no call of
 * their own: before vkDestroySwapchainKHR goes down they are asked of the
 * next layer (slot: its vkGetSwapchainImagesKHR) and each is forgotten as
 * vkgen_forget does, so a later image with a recycled handle starts unnamed. */
void vkgen_forget_images(struct vkgen_layer *L, uint64_t dev, uint64_t swapchain, int slot);

/* The name-cache keys of the two naming commands (spec name_cache), used by
 * the framework's trampolines. Debug-marker object types are tagged so they
 * never equal a VkObjectType. */
static inline int vkgen_names_hit_SetDebugUtilsObjectNameEXT(struct vkgen_layer *L, VkDevice device,
                                                             const VkDebugUtilsObjectNameInfoEXT *info) {
	return info && vkgen_namecache_hit(L->names, (uint64_t)vkgen_key(device), (int32_t)info->objectType,
	                                   info->objectHandle, info->pObjectName);
}
static inline void vkgen_names_store_SetDebugUtilsObjectNameEXT(struct vkgen_layer *L, VkDevice device,
                                                                const VkDebugUtilsObjectNameInfoEXT *info) {
	if (info)
		vkgen_namecache_store(L->names, (uint64_t)vkgen_key(device), (int32_t)info->objectType, info->objectHandle,
		                      info->pObjectName);
}
static inline int vkgen_names_hit_DebugMarkerSetObjectNameEXT(struct vkgen_layer *L, VkDevice device,
                                                              const VkDebugMarkerObjectNameInfoEXT *info) {
	return info && vkgen_namecache_hit(L->names, (uint64_t)vkgen_key(device),
	                                   (int32_t)(0x40000000u | (uint32_t)info->objectType), info->object,
	                                   info->pObjectName);
}
static inline void vkgen_names_store_DebugMarkerSetObjectNameEXT(struct vkgen_layer *L, VkDevice device,
                                                                 const VkDebugMarkerObjectNameInfoEXT *info) {
	if (info)
		vkgen_namecache_store(L->names, (uint64_t)vkgen_key(device),
		                      (int32_t)(0x40000000u | (uint32_t)info->objectType), info->object, info->pObjectName);
}

static inline void vkgen_names_mark_SetDebugUtilsObjectNameEXT(struct vkgen_layer *L, VkDevice device,
                                                               const VkDebugUtilsObjectNameInfoEXT *info) {
	(void)device;
	if (info) vkgen_named_mark(L->named, info->objectHandle);
}
static inline void vkgen_names_mark_DebugMarkerSetObjectNameEXT(struct vkgen_layer *L, VkDevice device,
                                                                const VkDebugMarkerObjectNameInfoEXT *info) {
	(void)device;
	if (info) vkgen_named_mark(L->named, info->object);
}

static inline struct vkgen_instance *vkgen_instance_of(struct vkgen_layer *L, const void *dispatchable) {
	return (struct vkgen_instance *)vkgen_map_get(&L->instances, vkgen_key(dispatchable));
}
static inline struct vkgen_device *vkgen_device_of(struct vkgen_layer *L, const void *dispatchable) {
	return (struct vkgen_device *)vkgen_map_get(&L->devices, vkgen_key(dispatchable));
}

/* Typed access to the next layer's function, for layer-owned C code:
 * VKGEN_NEXT_DEVICE(dev, vkCreateBuffer)(dev->handle, ...). NULL when absent. */
#define VKGEN_NEXT_INSTANCE(inst, cmd) ((PFN_##cmd)(inst)->tab[VKGEN_I_##cmd])
#define VKGEN_NEXT_DEVICE(dev, cmd) ((PFN_##cmd)(dev)->tab[VKGEN_D_##cmd])

/* What every layer is: its state and its three exported entry points (the
 * functions its manifest names). A layer's generated header expands
 * VKGEN_DECLARE_LAYER(sym); its generated table VKGEN_DEFINE_LAYER(sym,
 * fields of struct vkgen_layer...) after its intercepts table, whose first
 * entries are VKGEN_EXPORT_ENTRIES(sym). */
#define VKGEN_DECLARE_LAYER(sym)                                                                                    \
	extern struct vkgen_layer vkgen_##sym##_layer;                                                                   \
	VKGEN_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkgen_##sym##_GetInstanceProcAddr(VkInstance instance,      \
	                                                                                         const char *pName);       \
	VKGEN_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkgen_##sym##_GetDeviceProcAddr(VkDevice device,            \
	                                                                                       const char *pName);         \
	VKGEN_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkgen_##sym##_NegotiateLoaderLayerInterfaceVersion(                   \
	    VkNegotiateLayerInterface *pVersionStruct);

#define VKGEN_EXPORT_ENTRIES(sym)                                                                                   \
	[VKGEN_N_vkGetInstanceProcAddr] = {(PFN_vkVoidFunction)vkgen_##sym##_GetInstanceProcAddr, 1},                   \
	[VKGEN_N_vkGetDeviceProcAddr] = {(PFN_vkVoidFunction)vkgen_##sym##_GetDeviceProcAddr, 1},

#define VKGEN_DEFINE_LAYER(sym, ...)                                                                                \
	struct vkgen_layer vkgen_##sym##_layer = {__VA_ARGS__,                                                           \
	                                          .gipa = vkgen_##sym##_GetInstanceProcAddr,                            \
	                                          .gdpa = vkgen_##sym##_GetDeviceProcAddr,                              \
	                                          .negotiate_symbol = "vkgen_" #sym "_NegotiateLoaderLayerInterfaceVersion", \
	                                          .instances = VKGEN_MAP_INIT,                                          \
	                                          .devices = VKGEN_MAP_INIT};                                           \
	VKGEN_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkgen_##sym##_GetInstanceProcAddr(VkInstance instance,      \
	                                                                                         const char *pName) {      \
		return vkgen_gipa(&vkgen_##sym##_layer, instance, pName);                                                    \
	}                                                                                                               \
	VKGEN_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkgen_##sym##_GetDeviceProcAddr(VkDevice device,            \
	                                                                                       const char *pName) {        \
		return vkgen_gdpa(&vkgen_##sym##_layer, device, pName);                                                      \
	}                                                                                                               \
	VKGEN_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkgen_##sym##_NegotiateLoaderLayerInterfaceVersion(                   \
	    VkNegotiateLayerInterface *pVersionStruct) {                                                                \
		return vkgen_negotiate(&vkgen_##sym##_layer, pVersionStruct);                                                \
	}

/* Chain walking and lifetime; the generated trampolines of vkCreateInstance,
 * vkDestroyInstance, vkCreateDevice and vkDestroyDevice call these between the
 * layer's hooks. */
VkResult vkgen_create_instance(struct vkgen_layer *L, const VkInstanceCreateInfo *ci,
                               const VkAllocationCallbacks *alloc, VkInstance *out);
void vkgen_destroy_instance(struct vkgen_layer *L, VkInstance instance, const VkAllocationCallbacks *alloc);
VkResult vkgen_create_device(struct vkgen_layer *L, VkPhysicalDevice phys, const VkDeviceCreateInfo *ci,
                             const VkAllocationCallbacks *alloc, VkDevice *out);
void vkgen_destroy_device(struct vkgen_layer *L, VkDevice device, const VkAllocationCallbacks *alloc);

/* Loader entry points, wrapped by each layer's exported symbols. */
PFN_vkVoidFunction vkgen_gipa(struct vkgen_layer *L, VkInstance instance, const char *name);
PFN_vkVoidFunction vkgen_gdpa(struct vkgen_layer *L, VkDevice device, const char *name);
VkResult vkgen_negotiate(struct vkgen_layer *L, VkNegotiateLayerInterface *v);
/* With another copy of the library serving the process (vkgen_copies.c),
 * negotiates L through that copy's same layer and sets *handed; otherwise
 * this copy serves from now on. */
VkResult vkgen_negotiate_copy(struct vkgen_layer *L, VkNegotiateLayerInterface *v, int *handed);

/* Enumerate functions with the two-call idiom. */
VkResult vkgen_enumerate_instance_layers(struct vkgen_layer *L, uint32_t *count, VkLayerProperties *props);
VkResult vkgen_enumerate_instance_extensions(struct vkgen_layer *L, const char *layer, uint32_t *count,
                                             VkExtensionProperties *props);
VkResult vkgen_enumerate_device_layers(struct vkgen_layer *L, VkPhysicalDevice phys, uint32_t *count,
                                       VkLayerProperties *props);
VkResult vkgen_enumerate_device_extensions(struct vkgen_layer *L, VkPhysicalDevice phys, const char *layer,
                                           uint32_t *count, VkExtensionProperties *props);

/* Copies n items of size sz into out following the two-call idiom. */
VkResult vkgen_fill(const void *items, uint32_t n, size_t sz, uint32_t *count, void *out);

#endif
