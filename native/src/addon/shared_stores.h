// SharedStores: one open core store handed from the JS thread that opened it to other JS threads of
// the process (the server's HTTP worker threads), by number: a worker's wrapper holds the same
// core store, and reads and writes through its own environment's completion queue.
#pragma once
#include <cstdint>
#include <memory>

#include "tessera/store.h"

namespace tessera_addon {

// Registers store and returns the number another thread adopts it by; the store stays adoptable
// until Forget(store) (its close).
uint32_t ShareStore(std::shared_ptr<tessera::Store> store);

// The store shared as `handle`, or null when it was never shared or is closed.
std::shared_ptr<tessera::Store> AdoptStore(uint32_t handle);

// Ends every share of store: a closed store is adopted by no one.
void ForgetStore(const tessera::Store* store);

}  // namespace tessera_addon
