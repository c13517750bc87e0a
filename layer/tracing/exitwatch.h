#ifndef VKGEN_EXITWATCH_H
#define VKGEN_EXITWATCH_H

#include <stdint.h>

/* perfetto.ExitSlots */
#define VKGEN_EXIT_SLOTS 8

/* Starts the exit watcher (exitwatch.c) over perfetto.ExitState(); 0 on
 * success, -1 where it cannot run (no pidfd, no clone, another CPU). */
int vkgen_exit_watch(uintptr_t table);

#endif
