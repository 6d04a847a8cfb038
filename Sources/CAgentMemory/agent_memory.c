// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE
#include "agent_memory.h"

#include <malloc.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

static void *wiping_malloc(int size) {
    return malloc(size > 0 ? (size_t)size : 1);
}

static void wiping_free(void *block) {
    if (block == NULL) return;
    explicit_bzero(block, malloc_usable_size(block));
    free(block);
}

// A block that grows is copied and the old one wiped: glibc's realloc would free it unwiped.
static void *wiping_realloc(void *block, int size) {
    if (block == NULL) return wiping_malloc(size);
    size_t held = malloc_usable_size(block);
    if (size > 0 && (size_t)size <= held) return block;
    void *moved = wiping_malloc(size);
    if (moved == NULL) return NULL;
    memcpy(moved, block, held);
    wiping_free(block);
    return moved;
}

static int wiping_size(void *block) {
    return block == NULL ? 0 : (int)malloc_usable_size(block);
}

static int wiping_roundup(int size) {
    return (size + 7) & ~7;
}

static int wiping_init(void *unused) {
    (void)unused;
    return SQLITE_OK;
}

static void wiping_shutdown(void *unused) {
    (void)unused;
}

static int installed = 0;

int jv_sqlite_wipe_on_free(void) {
    static const sqlite3_mem_methods methods = {
        wiping_malloc, wiping_free, wiping_realloc, wiping_size, wiping_roundup, wiping_init, wiping_shutdown, NULL,
    };
    int status = sqlite3_config(SQLITE_CONFIG_MALLOC, &methods);
    if (status == SQLITE_OK) installed = 1;
    return status;
}

int jv_sqlite_wipes_on_free(void) {
    return installed;
}

long jv_locked_bytes(void) {
    FILE *status = fopen("/proc/self/status", "re");
    if (status == NULL) return -1;
    char line[256];
    long kilobytes = -1;
    while (fgets(line, sizeof line, status) != NULL) {
        if (sscanf(line, "VmLck: %ld kB", &kilobytes) == 1) break;
    }
    fclose(status);
    return kilobytes < 0 ? -1 : kilobytes * 1024;
}

/// mlock of as much of [start, start + length) as the limit allows, halving what is asked until
/// the kernel takes it (a page at least).
static void lock_as_far_as_allowed(char *start, size_t length, size_t page) {
    while (length >= page) {
        if (mlock(start, length) == 0) return;
        length = (length / 2) & ~(page - 1);
    }
}

long jv_lock_memory(void) {
    // Not mlockall: it would also make every page of the program and its libraries resident
    // (hundreds of MiB), which hold nothing of the journal.
    FILE *maps = fopen("/proc/self/maps", "re");
    if (maps != NULL) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        char line[512];
        while (fgets(line, sizeof line, maps) != NULL) {
            unsigned long start, end;
            char permissions[5];
            if (sscanf(line, "%lx-%lx %4s", &start, &end, permissions) != 3) continue;
            // Writable private memory is where the process's data lives (the heap, anonymous
            // mappings, stacks); files mapped read-only hold nothing of the journal.
            if (permissions[1] != 'w' || permissions[3] != 'p' || strstr(line, "[vvar") != NULL || strstr(line, "[vsyscall]") != NULL) continue;
            madvise((void *)start, end - start, MADV_DONTDUMP);
            lock_as_far_as_allowed((char *)start, end - start, page);
        }
        fclose(maps);
    }
    return jv_locked_bytes();
}
