/* The forked-child mark; see vkgen_fork.h. */
#include <pthread.h>

#include "vkgen_fork.h"

int vkgen_forked;

static void mark_forked(void) { __atomic_store_n(&vkgen_forked, 1, __ATOMIC_RELAXED); }

/* A constructor, so the handler exists before anything can fork with the
 * library loaded; pthread_atfork only fails without memory, and then forked
 * children are unprotected exactly as without this file. */
__attribute__((constructor)) static void watch_fork(void) { (void)pthread_atfork(NULL, NULL, mark_forked); }
