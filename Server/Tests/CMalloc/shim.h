// glibc's allocator statistics (mallinfo2), for the tests that check what a process holds.
#if defined(__linux__)
#include <malloc.h>
#endif
