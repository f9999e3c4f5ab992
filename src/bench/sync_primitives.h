// Synchronisation (the paper's Table 5): mutexes, plain and with each POSIX protocol
// (PTHREAD_PRIO_INHERIT is a PI futex in the kernel; PTHREAD_PRIO_PROTECT changes the
// holder's priority on every lock, a system call each time), and semaphores, unnamed and
// named, within a thread and waking a higher-ranked waiter in another thread or process.
#pragma once

#include <vector>

#include "bench/primitive.h"

namespace rtagent::bench {

/// sync.mutex.trylock, sync.mutex.lock_unlock.<none|inherit|protect>,
/// sync.mutex.handoff.<none|inherit|protect>, sync.sem.<unnamed|named>.<trywait|post_wait>,
/// sync.sem.<unnamed|named>.wake.<thread|process>.
std::vector<Primitive> SyncTests();

}  // namespace rtagent::bench
