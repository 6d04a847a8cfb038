// SPDX-License-Identifier: Apache-2.0
#ifndef JOURNALVAULT_AGENT_MEMORY_H
#define JOURNALVAULT_AGENT_MEMORY_H

#include <stddef.h>

/// Makes SQLite allocate through malloc but overwrite every block with zeros before it goes
/// back to malloc (freed, or moved by a reallocation), its whole usable size
/// (malloc_usable_size): text SQLite held (an index's tokens, a page it read) does not stay in
/// freed heap memory. Must come before SQLite's first use in the process
/// (sqlite3_config(SQLITE_CONFIG_MALLOC)). Returns 0, or SQLite's error code (SQLITE_MISUSE
/// when SQLite was already in use).
int jv_sqlite_wipe_on_free(void);

/// Whether SQLite in this process allocates through jv_sqlite_wipe_on_free's allocator (1) or not (0).
int jv_sqlite_wipes_on_free(void);

/// Locks this process's data in RAM as far as RLIMIT_MEMLOCK allows, and excludes it from core
/// dumps (MADV_DONTDUMP): every writable private mapping (heap, anonymous memory, thread
/// stacks) one by one, in address order, each as far as the limit still allows; the program's
/// and libraries' read-only pages are left alone. Memory mapped later is not locked until the
/// next call. Returns the bytes locked now (the kernel's VmLck), or -1 when it cannot be read.
long jv_lock_memory(void);

/// The bytes of this process's memory locked in RAM (VmLck of /proc/self/status), or -1.
long jv_locked_bytes(void);

#endif
