/* One serving copy of the layer library per process; see vkgen_runtime.h.
 *
 * A process can load two copies of a library built with this framework:
 * the Debian package's implicit layer switched on beside a build folder's
 * explicit one, say. Each copy has its own Go runtime and its own trace, so
 * the second copy's trace file clashes with the first's and its events are
 * lost. Instead, the first copy to negotiate a layer serves; a later copy
 * that finds a serving copy implementing the same layer hands the loader
 * that copy's entry points, says so once, and otherwise stays idle. */
#define _GNU_SOURCE
#include "vkgen_runtime.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"

static int serving;

/* Whether this copy serves (has negotiated a layer itself); what other
 * copies look for. */
VKGEN_EXPORT int vkgen_library_serving(void) { return __atomic_load_n(&serving, __ATOMIC_ACQUIRE); }

/* A later copy tells the serving one what it handed over (msg), so that
 * the serving copy's trace says so. */
VKGEN_EXPORT void vkgen_library_note(const char *msg) {
	if (msg && vkgen_go_ok()) vkgenLibraryNote((char *)msg);
}

#define MAX_OBJECTS 512

struct objects {
	int n;
	char *names[MAX_OBJECTS];
};

/* Collects the loaded objects' paths; dlopen is called after the walk, not
 * under dl_iterate_phdr's lock. */
static int collect(struct dl_phdr_info *info, size_t size, void *arg) {
	(void)size;
	struct objects *o = arg;
	if (info->dlpi_name && info->dlpi_name[0] && o->n < MAX_OBJECTS) {
		char *s = strdup(info->dlpi_name);
		if (s) o->names[o->n++] = s;
	}
	return 0;
}

/* serving_copy returns the negotiate entry of L's layer in another copy of
 * the library that serves this process, with that copy's note function and
 * path; NULL when there is none (or it lacks the layer). */
static PFN_vkNegotiateLoaderLayerInterfaceVersion serving_copy(const struct vkgen_layer *L,
                                                               void (**note)(const char *), char *path,
                                                               size_t pathlen) {
	Dl_info self_info;
	if (!dladdr((void *)vkgen_library_serving, &self_info) || !self_info.dli_fname) return NULL;
	void *self = dlopen(self_info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	struct objects o = {0};
	dl_iterate_phdr(collect, &o);
	PFN_vkNegotiateLoaderLayerInterfaceVersion found = NULL;
	for (int i = 0; i < o.n; i++) {
		void *h = found ? NULL : dlopen(o.names[i], RTLD_LAZY | RTLD_NOLOAD);
		if (h && h != self) {
			int (*is_serving)(void) = (int (*)(void))dlsym(h, "vkgen_library_serving");
			if (is_serving && is_serving()) {
				found = (PFN_vkNegotiateLoaderLayerInterfaceVersion)dlsym(h, L->negotiate_symbol);
				*note = (void (*)(const char *))dlsym(h, "vkgen_library_note");
				snprintf(path, pathlen, "%s", o.names[i]);
			}
		}
		if (h) dlclose(h); /* only drops the reference NOLOAD took */
		free(o.names[i]);
	}
	if (self) dlclose(self);
	return found;
}

VkResult vkgen_negotiate_copy(struct vkgen_layer *L, VkNegotiateLayerInterface *v, int *handed) {
	*handed = 0;
	if (vkgen_library_serving()) return VK_SUCCESS;
	void (*note)(const char *) = NULL;
	char other[PATH_MAX] = "";
	PFN_vkNegotiateLoaderLayerInterfaceVersion next = serving_copy(L, &note, other, sizeof other);
	if (!next) {
		__atomic_store_n(&serving, 1, __ATOMIC_RELEASE);
		return VK_SUCCESS;
	}
	*handed = 1;
	Dl_info self;
	char msg[2 * PATH_MAX + 256];
	snprintf(msg, sizeof msg,
	         "%s: a second copy of the vkgen layer library is loaded (%s); the first (%s) serves the layer and this copy only forwards to it",
	         L->name, dladdr((void *)vkgen_library_serving, &self) && self.dli_fname ? self.dli_fname : "?", other);
	if (note) note(msg); /* reported there once, on stderr and in its trace */
	else fprintf(stderr, "vkgen: %s\n", msg);
	return next(v);
}
