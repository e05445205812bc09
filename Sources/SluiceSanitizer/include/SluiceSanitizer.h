#ifndef SLUICE_SANITIZER_H
#define SLUICE_SANITIZER_H

#include <stdbool.h>

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

#endif
