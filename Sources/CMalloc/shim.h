#if defined(__linux__)
#include <malloc.h>

// The allocator's figures under a name of their own: `mallinfo2` names both a struct and a function, and Swift
// sees the struct's initializer first.
static inline struct mallinfo2 depot_mallinfo(void) { return mallinfo2(); }
#endif
