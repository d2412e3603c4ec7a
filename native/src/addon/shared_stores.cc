#include "shared_stores.h"

#include <mutex>
#include <unordered_map>

namespace tessera_addon {

namespace {

struct Registry {
  std::mutex mu;
  uint32_t next = 1;
  std::unordered_map<uint32_t, std::shared_ptr<tessera::Store>> shared;
};

// Never destroyed: a worker thread may adopt or forget while the process exits.
Registry& registry() {
  static auto* r = new Registry();
  return *r;
}

}  // namespace

uint32_t ShareStore(std::shared_ptr<tessera::Store> store) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  uint32_t handle = r.next++;
  r.shared.emplace(handle, std::move(store));
  return handle;
}

std::shared_ptr<tessera::Store> AdoptStore(uint32_t handle) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.shared.find(handle);
  return it == r.shared.end() ? nullptr : it->second;
}

void ForgetStore(const tessera::Store* store) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::erase_if(r.shared, [store](const auto& entry) { return entry.second.get() == store; });
}

}  // namespace tessera_addon
