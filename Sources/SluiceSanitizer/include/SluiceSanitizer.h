#ifndef SLUICE_SANITIZER_H
#define SLUICE_SANITIZER_H

#include <stdbool.h>
#include <stdint.h>

/// Whether this build runs under Thread Sanitizer (`swift build --sanitize=thread`). This file's
/// C twin is compiled with the sanitizer's flags when it is on, so it knows; Swift code cannot ask
/// the compiler directly.
bool sluice_tsan_active(void);

/// Tells Thread Sanitizer that the lock at `address` was taken: what the previous holder did
/// before `sluice_tsan_release` happens before what follows. No-op without the sanitizer.
void sluice_tsan_acquire(void *address);

/// Tells Thread Sanitizer that the lock at `address` is about to be released. No-op without the
/// sanitizer.
void sluice_tsan_release(void *address);

/// An identifier of the calling thread, unique among the threads alive (the address of a
/// thread-local byte; never 0). Swift has no thread-local storage of its own: this lets SluiceCore
/// tell a re-entrant call on the same thread from a concurrent one on another thread.
uintptr_t sluice_current_thread_id(void);

#endif
