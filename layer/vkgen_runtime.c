/* vkgen layer runtime; see vkgen_runtime.h. */
#include "vkgen_runtime.h"

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"

/* ---- dispatch-key maps ---- */

struct vkgen_map_tab {
	uint32_t cap;
	uint32_t used; /* high-water mark: readers scan [0, used) */
	struct {
		uintptr_t key; /* 0 = free */
		void *val;
	} e[];
};

static struct vkgen_map_tab *map_tab_new(uint32_t cap) {
	struct vkgen_map_tab *t = calloc(1, sizeof(*t) + cap * sizeof(t->e[0]));
	if (t) t->cap = cap;
	return t;
}

void *vkgen_map_get(struct vkgen_map *m, uintptr_t key) {
	struct vkgen_map_tab *t = __atomic_load_n(&m->tab, __ATOMIC_ACQUIRE);
	if (!t || !key) return NULL;
	uint32_t n = __atomic_load_n(&t->used, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n; i++) {
		if (__atomic_load_n(&t->e[i].key, __ATOMIC_ACQUIRE) == key) return t->e[i].val;
	}
	return NULL;
}

int vkgen_map_put(struct vkgen_map *m, uintptr_t key, void *val) {
	if (!key) return -1;
	pthread_mutex_lock(&m->mu);
	struct vkgen_map_tab *t = m->tab;
	uint32_t slot = UINT32_MAX;
	if (t) {
		for (uint32_t i = 0; i < t->used; i++) {
			if (t->e[i].key == key) { /* a reused handle whose destroy we never saw */
				t->e[i].val = val;
				pthread_mutex_unlock(&m->mu);
				return 0;
			}
			if (!t->e[i].key && slot == UINT32_MAX) slot = i;
		}
		if (slot == UINT32_MAX && t->used < t->cap) slot = t->used;
	}
	if (slot == UINT32_MAX) {
		uint32_t cap = t ? t->cap * 2 : 8;
		struct vkgen_map_tab *nt = map_tab_new(cap);
		if (!nt) {
			pthread_mutex_unlock(&m->mu);
			return -1;
		}
		if (t) {
			memcpy(nt->e, t->e, t->used * sizeof(t->e[0]));
			nt->used = t->used;
		}
		slot = nt->used;
		/* The old table stays allocated: lock-free readers may still scan it. */
		__atomic_store_n(&m->tab, nt, __ATOMIC_RELEASE);
		t = nt;
	}
	t->e[slot].val = val;
	__atomic_store_n(&t->e[slot].key, key, __ATOMIC_RELEASE);
	if (slot == t->used) __atomic_store_n(&t->used, slot + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&m->mu);
	return 0;
}

void *vkgen_map_del(struct vkgen_map *m, uintptr_t key) {
	void *val = NULL;
	pthread_mutex_lock(&m->mu);
	struct vkgen_map_tab *t = m->tab;
	for (uint32_t i = 0; t && i < t->used; i++) {
		if (t->e[i].key == key) {
			val = t->e[i].val;
			__atomic_store_n(&t->e[i].key, 0, __ATOMIC_RELEASE);
			break;
		}
	}
	pthread_mutex_unlock(&m->mu);
	return val;
}

/* ---- name cache ---- */

/* Takes the entry's write side, or returns 0 when another writer holds it
 * (skipping a store only costs a later miss). */
static int nc_begin(struct vkgen_namecache_entry *e, uint32_t *s) {
	*s = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
	if (*s & 1) return 0;
	if (!__atomic_compare_exchange_n(&e->seq, s, *s + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return 0;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return 1;
}

void vkgen_namecache_store(struct vkgen_namecache *c, uint64_t dev, int32_t type, uint64_t handle, const char *name) {
	if (!c) return;
	struct vkgen_namecache_entry *e = vkgen_namecache_entry(c, handle);
	uint32_t s;
	if (!nc_begin(e, &s)) return;
	size_t n = name ? strlen(name) : VKGEN_NAMECACHE_NAME;
	e->dev = dev;
	e->type = type;
	e->handle = handle;
	/* Names that do not fit are never cached: len >= capacity never hits. */
	e->len = n < VKGEN_NAMECACHE_NAME ? (uint32_t)n : VKGEN_NAMECACHE_NAME;
	if (n < VKGEN_NAMECACHE_NAME) memcpy(e->name, name, n);
	__atomic_store_n(&e->seq, s + 2, __ATOMIC_RELEASE);
}

void vkgen_namecache_forget(struct vkgen_namecache *c, uint64_t handle) {
	if (!c) return;
	struct vkgen_namecache_entry *e = vkgen_namecache_entry(c, handle);
	/* No write side: a reader of this entry meanwhile would be naming the
	 * handle while it is destroyed (invalid usage), a writer replacing the
	 * entry makes the store moot, and the driver reuses the handle only
	 * after the destroy returned, so later lookups see the entry invalid. */
	if (__atomic_load_n(&e->handle, __ATOMIC_RELAXED) == handle)
		__atomic_store_n(&e->len, VKGEN_NAMECACHE_NAME, __ATOMIC_RELEASE);
}

void vkgen_namecache_clear(struct vkgen_namecache *c) {
	if (!c) return;
	for (int i = 0; i < VKGEN_NAMECACHE_ENTRIES; i++) {
		struct vkgen_namecache_entry *e = &c->e[i];
		uint32_t s;
		while (!nc_begin(e, &s)) {
		}
		e->len = VKGEN_NAMECACHE_NAME;
		__atomic_store_n(&e->seq, s + 2, __ATOMIC_RELEASE);
	}
}

/* ---- one record per naming call ---- */

static __thread struct vkgen_naming naming VKGEN_TLS_IE; /* the call this thread records; object 0: none */

/* Both name infos hold the object's handle at the same place. */
_Static_assert(offsetof(VkDebugUtilsObjectNameInfoEXT, objectHandle) == offsetof(VkDebugMarkerObjectNameInfoEXT, object),
               "name infos differ");

int vkgen_naming_enter(const uint64_t *a, struct vkgen_naming *saved) {
	const VkDebugUtilsObjectNameInfoEXT *info = (const VkDebugUtilsObjectNameInfoEXT *)(uintptr_t)a[1];
	struct vkgen_naming n = {a[0], info ? info->objectHandle : 0};
	*saved = naming;
	if (n.object && n.device == naming.device && n.object == naming.object) return 0; /* recorded above */
	naming = n;
	return 1;
}

void vkgen_naming_leave(const struct vkgen_naming *saved) { naming = *saved; }

/* ---- one forget record per destroy call ---- */

struct vkgen_named vkgen_object_names_named;

static __thread struct vkgen_destroying destroying VKGEN_TLS_IE; /* the destroy call this thread records forgets of */

int vkgen_destroy_enter(const struct vkgen_layer *L, int32_t type, uint64_t dev, uint64_t object,
                        struct vkgen_destroying *saved) {
	if (!L->object_names) return 0;
	*saved = destroying;
	struct vkgen_destroying d = {dev, object, type, 0};
	d.above = destroying.type == type && destroying.device == dev && destroying.object == object;
	destroying = d;
	return 1;
}

void vkgen_destroy_leave(const struct vkgen_destroying *saved) { destroying = *saved; }

void vkgen_forget(struct vkgen_layer *L, uint64_t dev, int32_t type, uint64_t handle, int clear) {
	if (clear)
		vkgen_namecache_clear(L->names);
	else
		vkgen_namecache_forget(L->names, handle);
	if (L->object_names && destroying.above) return; /* recorded above */
	if (handle && L->forget && vkgen_named_maybe(L->named, handle)) {
		const uint64_t a[] = {dev, (uint64_t)(int64_t)type, handle};
		vkgen_defer(L->forget, a, 0);
	}
}

void vkgen_forget_images(struct vkgen_layer *L, uint64_t dev, uint64_t swapchain, int slot) {
	if (!swapchain || (!L->forget && !L->names)) return;
	VkDevice device = (VkDevice)(uintptr_t)dev;
	struct vkgen_device *d = vkgen_device_of(L, device);
	if (!d || (L->object_names && d->names_above)) return; /* the layer above named them, and forgets them */
	PFN_vkGetSwapchainImagesKHR get = (PFN_vkGetSwapchainImagesKHR)d->tab[slot];
	VkSwapchainKHR sc = (VkSwapchainKHR)swapchain;
	uint32_t n = 0;
	if (!get || get(device, sc, &n, NULL) != VK_SUCCESS || !n) return;
	VkImage few[16], *images = n <= 16 ? few : malloc(n * sizeof(VkImage));
	if (!images) return;
	VkResult r = get(device, sc, &n, images);
	for (uint32_t i = 0; (r == VK_SUCCESS || r == VK_INCOMPLETE) && i < n; i++)
		vkgen_forget(L, dev, VK_OBJECT_TYPE_IMAGE, (uint64_t)images[i], 0);
	if (images != few) free(images);
}

/* ---- per-call arena ---- */

struct vkgen_arena {
	struct vkgen_arena *next;
	max_align_t data[];
};

void *vkgen_arena_alloc(struct vkgen_call *call, size_t size) {
	struct vkgen_arena *a = calloc(1, sizeof(*a) + size);
	if (!a) return NULL;
	a->next = call->arena;
	call->arena = a;
	return a->data;
}

void vkgen_arena_free(struct vkgen_call *call) {
	for (struct vkgen_arena *a = call->arena, *next; a; a = next) {
		next = a->next;
		free(a);
	}
	call->arena = NULL;
}

/* ---- the debug-utils messenger of a layer claiming VK_EXT_debug_utils ---- */

static struct vkgen_map own_messengers = VKGEN_MAP_INIT;

VkResult vkgen_stub_messenger_create(struct vkgen_call *call, VkInstance instance,
                                                     const VkDebugUtilsMessengerCreateInfoEXT *pCreateInfo,
                                                     const VkAllocationCallbacks *pAllocator,
                                                     VkDebugUtilsMessengerEXT *pMessenger) {
	(void)call, (void)pCreateInfo, (void)pAllocator;
	if (!pMessenger) return VK_ERROR_INITIALIZATION_FAILED;
	VkInstance *m = malloc(sizeof(*m));
	if (!m) return VK_ERROR_OUT_OF_HOST_MEMORY;
	*m = instance;
	if (vkgen_map_put(&own_messengers, (uintptr_t)m, m) != 0) {
		free(m);
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}
	*pMessenger = (VkDebugUtilsMessengerEXT)(uintptr_t)m;
	return VK_SUCCESS;
}

/* An own messenger never reaches the chain below (which did not create it);
 * it is freed in the post hook, after the forget ran, so its address cannot
 * be handed out again while its name is still stored. */
VkResult vkgen_stub_messenger_destroy_pre(struct vkgen_call *call, VkInstance *instance,
                                                 VkDebugUtilsMessengerEXT *messenger,
                                                 const VkAllocationCallbacks **pAllocator) {
	(void)instance, (void)pAllocator;
	if (!*messenger) return VK_SUCCESS;
	call->user = vkgen_map_del(&own_messengers, (uintptr_t)*messenger);
	return call->user ? VK_INCOMPLETE /* any result but VK_SUCCESS skips the call down */ : VK_SUCCESS;
}

void vkgen_stub_messenger_destroy_post(struct vkgen_call *call, VkInstance instance,
                                              VkDebugUtilsMessengerEXT messenger, const VkAllocationCallbacks *pAllocator) {
	(void)instance, (void)messenger, (void)pAllocator;
	free(call->user);
}

/* ---- SIGURG multiplexer ----
 * The Go runtime takes SIGURG (async preemption) and does not forward it, so
 * a Go host application or another Go runtime loaded earlier would lose its
 * preemption signals. Capture the disposition from before Go initialised
 * (priority 101 runs before Go's own initialiser) and, once Go has installed
 * its handler, put a handler in front that calls Go's and then the old one. */

static struct sigaction urg_before_go, urg_go;
static int urg_before_go_ok;

__attribute__((constructor(101))) static void urg_capture(void) {
	urg_before_go_ok = sigaction(SIGURG, NULL, &urg_before_go) == 0;
}

static int urg_is_handler(const struct sigaction *a) {
	if (a->sa_flags & SA_SIGINFO) return a->sa_sigaction != NULL;
	return a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN;
}

static void urg_call(const struct sigaction *a, int sig, siginfo_t *info, void *ctx) {
	if (!urg_is_handler(a)) return;
	if (a->sa_flags & SA_SIGINFO)
		a->sa_sigaction(sig, info, ctx);
	else
		a->sa_handler(sig);
}

static void urg_mux(int sig, siginfo_t *info, void *ctx) {
	urg_call(&urg_go, sig, info, ctx);
	urg_call(&urg_before_go, sig, info, ctx);
}

static void urg_install(void) {
	struct sigaction cur;
	if (!urg_before_go_ok || !urg_is_handler(&urg_before_go)) return; /* nobody to chain to */
	if (sigaction(SIGURG, NULL, &cur) != 0) return;
	if ((cur.sa_flags & SA_SIGINFO) == (urg_before_go.sa_flags & SA_SIGINFO) &&
	    cur.sa_sigaction == urg_before_go.sa_sigaction)
		return; /* Go did not take SIGURG */
	urg_go = cur;
	struct sigaction mux;
	memset(&mux, 0, sizeof(mux));
	mux.sa_sigaction = urg_mux;
	mux.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	mux.sa_mask = cur.sa_mask;
	sigaction(SIGURG, &mux, NULL);
}

static pthread_once_t start_once = PTHREAD_ONCE_INIT;

static void runtime_start(void) {
	if (!vkgen_go_ok()) return; /* a forked child never enters Go */
	vkgenGoStart(); /* the first Go call waits until the Go runtime is up */
	urg_install();
}

/* ---- chain walking ---- */

static VkLayerInstanceCreateInfo *instance_chain(const VkInstanceCreateInfo *ci, VkLayerFunction fn) {
	for (const VkBaseInStructure *p = ci ? ci->pNext : NULL; p; p = p->pNext) {
		if (p->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
		    ((const VkLayerInstanceCreateInfo *)p)->function == fn)
			return (VkLayerInstanceCreateInfo *)p; /* the loader expects the link to be advanced in place */
	}
	return NULL;
}

static VkLayerDeviceCreateInfo *device_chain(const VkDeviceCreateInfo *ci, VkLayerFunction fn) {
	for (const VkBaseInStructure *p = ci ? ci->pNext : NULL; p; p = p->pNext) {
		if (p->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
		    ((const VkLayerDeviceCreateInfo *)p)->function == fn)
			return (VkLayerDeviceCreateInfo *)p;
	}
	return NULL;
}

VkResult vkgen_create_instance(struct vkgen_layer *L, const VkInstanceCreateInfo *ci,
                               const VkAllocationCallbacks *alloc, VkInstance *out) {
	VkLayerInstanceCreateInfo *link = instance_chain(ci, VK_LAYER_LINK_INFO);
	if (!link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");
	if (!create) return VK_ERROR_INITIALIZATION_FAILED;
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;

	struct vkgen_instance *inst = calloc(1, sizeof(*inst));
	if (!inst) return VK_ERROR_OUT_OF_HOST_MEMORY;
	VkResult res = create(ci, alloc, out);
	if (res != VK_SUCCESS) {
		free(inst);
		return res;
	}
	inst->layer = L;
	inst->handle = *out;
	inst->next_gipa = gipa;
	VkLayerInstanceCreateInfo *cb = instance_chain(ci, VK_LOADER_DATA_CALLBACK);
	if (cb) inst->set_loader_data = cb->u.pfnSetInstanceLoaderData;
	for (int i = 0; i < VKGEN_INSTANCE_SLOTS; i++) inst->tab[i] = gipa(*out, vkgen_instance_slot_names[i]);
	if (vkgen_map_put(&L->instances, vkgen_key(*out), inst) != 0) {
		PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)inst->tab[VKGEN_I_vkDestroyInstance];
		if (destroy) destroy(*out, alloc);
		free(inst);
		*out = VK_NULL_HANDLE;
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}
	return VK_SUCCESS;
}

void vkgen_destroy_instance(struct vkgen_layer *L, VkInstance instance, const VkAllocationCallbacks *alloc) {
	if (!instance) return;
	struct vkgen_instance *inst = vkgen_map_del(&L->instances, vkgen_key(instance));
	if (!inst) return;
	PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)inst->tab[VKGEN_I_vkDestroyInstance];
	if (destroy) destroy(instance, alloc);
	if (L->names) vkgen_namecache_clear(L->names);
	free(inst);
}

/* The next layer's vkGetDeviceProcAddr while a layer of this library that
 * records object names, or one below such a layer through this library's
 * layers only, creates a device on this thread (see names_above). */
static __thread PFN_vkGetDeviceProcAddr names_below VKGEN_TLS_IE;

VkResult vkgen_create_device(struct vkgen_layer *L, VkPhysicalDevice phys, const VkDeviceCreateInfo *ci,
                             const VkAllocationCallbacks *alloc, VkDevice *out) {
	VkLayerDeviceCreateInfo *link = device_chain(ci, VK_LAYER_LINK_INFO);
	if (!link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
	struct vkgen_instance *inst = vkgen_instance_of(L, phys); /* physical devices share the instance's key */
	if (!inst) return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(inst->handle, "vkCreateDevice");
	if (!create) return VK_ERROR_INITIALIZATION_FAILED;
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;

	struct vkgen_device *dev = calloc(1, sizeof(*dev));
	if (!dev) return VK_ERROR_OUT_OF_HOST_MEMORY;
	/* Tell the next layer, if it is one of ours, that names are recorded
	 * above it (by this layer, or above this one through our layers only);
	 * a foreign layer in between leaves names_below naming itself. */
	int above = names_below == L->gdpa;
	PFN_vkGetDeviceProcAddr outer = names_below;
	names_below = L->object_names || above ? gdpa : NULL;
	VkResult res = create(phys, ci, alloc, out);
	names_below = outer;
	if (res != VK_SUCCESS) {
		free(dev);
		return res;
	}
	dev->layer = L;
	dev->handle = *out;
	dev->physical = phys;
	dev->instance = inst;
	dev->next_gdpa = gdpa;
	dev->names_above = (uint8_t)above;
	VkLayerDeviceCreateInfo *cb = device_chain(ci, VK_LOADER_DATA_CALLBACK);
	if (cb) dev->set_loader_data = cb->u.pfnSetDeviceLoaderData;
	for (int i = 0; i < VKGEN_DEVICE_SLOTS; i++) dev->tab[i] = gdpa(*out, vkgen_device_slot_names[i]);
	if (vkgen_map_put(&L->devices, vkgen_key(*out), dev) != 0) {
		PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)dev->tab[VKGEN_D_vkDestroyDevice];
		if (destroy) destroy(*out, alloc);
		free(dev);
		*out = VK_NULL_HANDLE;
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	}
	return VK_SUCCESS;
}

void vkgen_destroy_device(struct vkgen_layer *L, VkDevice device, const VkAllocationCallbacks *alloc) {
	if (!device) return;
	struct vkgen_device *dev = vkgen_map_del(&L->devices, vkgen_key(device));
	if (!dev) return;
	struct vkgen_destroying saved;
	int entered = vkgen_destroy_enter(L, VK_OBJECT_TYPE_DEVICE, (uint64_t)(uintptr_t)device, (uint64_t)(uintptr_t)device, &saved);
	if (L->object_names && !dev->names_above && !destroying.above) { /* the device's names go with it, after the calls before */
		const uint64_t a[] = {(uint64_t)(uintptr_t)device, VK_OBJECT_TYPE_DEVICE, (uint64_t)(uintptr_t)device};
		vkgen_defer(L->forget, a, 0);
	}
	PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)dev->tab[VKGEN_D_vkDestroyDevice];
	if (destroy) destroy(device, alloc);
	if (entered) vkgen_destroy_leave(&saved);
	if (L->names) vkgen_namecache_clear(L->names);
	free(dev);
}

/* ---- proc addr ---- */

/* What L answers for name index i: its own trampoline, else a destroy
 * trampoline of the framework, else NULL. */
static const struct vkgen_intercept *intercept(const struct vkgen_layer *L, int i) {
	if (i < 0) return NULL;
	if (!L->intercepts[i].fn && L->forgets) return &L->forgets[i];
	return &L->intercepts[i];
}

PFN_vkVoidFunction vkgen_gipa(struct vkgen_layer *L, VkInstance instance, const char *name) {
	if (!name) return NULL;
	int i = vkgen_lookup(name);
	const struct vkgen_intercept *ic = intercept(L, i);
	/* Global commands and vkGetInstanceProcAddr itself are answered for any
	 * instance (loader interface rules). With no instance, every command this
	 * layer intercepts is answered too, as the Khronos validation layer does:
	 * MangoHud and vkBasalt look up vkCreateDevice (and others) through the
	 * next layer with a NULL instance, and a NULL answer breaks their chain.
	 * The trampolines find the instance from the dispatchable handle they are
	 * called with, and fall back when nothing below implements a command. */
	if (ic && ic->fn && (!instance || vkgen_names[i].level == VKGEN_LEVEL_GLOBAL || i == VKGEN_N_vkGetInstanceProcAddr))
		return ic->fn;
	if (!instance) return NULL;
	struct vkgen_instance *inst = vkgen_instance_of(L, instance);
	if (!inst) return NULL;
	if (ic && ic->fn && ic->claimed) return ic->fn;
	PFN_vkVoidFunction down = inst->next_gipa(instance, name);
	/* Never hand out an interceptor for a command nothing below implements. */
	if (ic && ic->fn) return down ? ic->fn : NULL;
	return down;
}

PFN_vkVoidFunction vkgen_gdpa(struct vkgen_layer *L, VkDevice device, const char *name) {
	if (!device || !name) return NULL;
	struct vkgen_device *dev = vkgen_device_of(L, device);
	if (!dev) return NULL;
	int i = vkgen_lookup(name);
	const struct vkgen_intercept *ic = intercept(L, i);
	if (ic && ic->fn && vkgen_names[i].level == VKGEN_LEVEL_DEVICE) {
		PFN_vkVoidFunction down = dev->next_gdpa(device, name);
		/* A layer above records the names (a claimed command with nothing
		 * below stays ours: the layer implements it). */
		if (down && L->object_names && dev->names_above && (i == VKGEN_N_vkSetDebugUtilsObjectNameEXT || i == VKGEN_N_vkDebugMarkerSetObjectNameEXT))
			return down;
		return down || ic->claimed ? ic->fn : NULL;
	}
	return dev->next_gdpa(device, name);
}

VkResult vkgen_negotiate(struct vkgen_layer *L, VkNegotiateLayerInterface *v) {
	if (!v || v->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT || v->loaderLayerInterfaceVersion < 2)
		return VK_ERROR_INITIALIZATION_FAILED;
	int handed;
	VkResult res = vkgen_negotiate_copy(L, v, &handed);
	if (handed) return res;
	pthread_once(&start_once, runtime_start);
	v->loaderLayerInterfaceVersion = 2;
	v->pfnGetInstanceProcAddr = L->gipa;
	v->pfnGetDeviceProcAddr = L->gdpa;
	v->pfnGetPhysicalDeviceProcAddr = NULL;
	return VK_SUCCESS;
}

/* ---- enumeration ---- */

VkResult vkgen_fill(const void *items, uint32_t n, size_t sz, uint32_t *count, void *out) {
	if (!count) return VK_ERROR_INITIALIZATION_FAILED;
	if (!out) {
		*count = n;
		return VK_SUCCESS;
	}
	uint32_t k = *count < n ? *count : n;
	if (k) memcpy(out, items, k * sz);
	*count = k;
	return k < n ? VK_INCOMPLETE : VK_SUCCESS;
}

static void layer_props(const struct vkgen_layer *L, VkLayerProperties *p) {
	memset(p, 0, sizeof(*p));
	snprintf(p->layerName, sizeof(p->layerName), "%s", L->name);
	snprintf(p->description, sizeof(p->description), "%s", L->description);
	p->specVersion = L->spec_version;
	p->implementationVersion = L->implementation_version;
}

VkResult vkgen_enumerate_instance_layers(struct vkgen_layer *L, uint32_t *count, VkLayerProperties *props) {
	VkLayerProperties p;
	layer_props(L, &p);
	return vkgen_fill(&p, 1, sizeof(p), count, props);
}

VkResult vkgen_enumerate_instance_extensions(struct vkgen_layer *L, const char *layer, uint32_t *count,
                                             VkExtensionProperties *props) {
	/* Global commands have no chain below a layer: only our own list exists. */
	if (!layer || strcmp(layer, L->name) != 0) return VK_ERROR_LAYER_NOT_PRESENT;
	return vkgen_fill(L->instance_extensions, L->instance_extension_count, sizeof(*props), count, props);
}

VkResult vkgen_enumerate_device_layers(struct vkgen_layer *L, VkPhysicalDevice phys, uint32_t *count,
                                       VkLayerProperties *props) {
	(void)phys;
	return vkgen_enumerate_instance_layers(L, count, props);
}

VkResult vkgen_enumerate_device_extensions(struct vkgen_layer *L, VkPhysicalDevice phys, const char *layer,
                                           uint32_t *count, VkExtensionProperties *props) {
	if (layer && strcmp(layer, L->name) == 0)
		return vkgen_fill(L->device_extensions, L->device_extension_count, sizeof(*props), count, props);
	struct vkgen_instance *inst = vkgen_instance_of(L, phys);
	PFN_vkEnumerateDeviceExtensionProperties next =
	    inst ? VKGEN_NEXT_INSTANCE(inst, vkEnumerateDeviceExtensionProperties) : NULL;
	if (!next) return VK_ERROR_INITIALIZATION_FAILED;
	return next(phys, layer, count, props);
}
