#include "SluiceSanitizer.h"

// The standard library's Mutex hands the lock over through atomics and futex calls inside the
// (uninstrumented) runtime, which Thread Sanitizer cannot see: without these annotations it reports
// every access guarded by such a lock as a race.

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SLUICE_TSAN 1
#endif
#endif
#if !defined(SLUICE_TSAN) && defined(__SANITIZE_THREAD__)
#define SLUICE_TSAN 1
#endif

#ifdef SLUICE_TSAN
void __tsan_acquire(void *address);
void __tsan_release(void *address);

bool sluice_tsan_active(void) { return true; }
void sluice_tsan_acquire(void *address) { __tsan_acquire(address); }
void sluice_tsan_release(void *address) { __tsan_release(address); }
#else
bool sluice_tsan_active(void) { return false; }
void sluice_tsan_acquire(void *address) { (void)address; }
void sluice_tsan_release(void *address) { (void)address; }
#endif

static _Thread_local char sluice_thread_marker;

uintptr_t sluice_current_thread_id(void) { return (uintptr_t)&sluice_thread_marker; }
