#include "catalog/snapshot.h"

#include "tessera/error.h"
#include "util/clock.h"

namespace tessera {

const CollectionState* Snapshot::Find(const std::string& name) const {
  auto alias = aliases.find(name);
  auto it = collections.find(alias == aliases.end() ? name : alias->second);
  return it == collections.end() ? nullptr : it->second.get();
}

const CollectionState* Snapshot::Resolve(const std::string& name) const {
  const CollectionState* c = Find(name);
  if (c != nullptr) Reading({c});
  return c;
}

void Snapshot::Reading(const std::vector<const CollectionState*>& scope) {
  std::vector<std::string> missing;
  for (const CollectionState* c : scope)
    if (!c->resident) missing.push_back(c->name);
  if (!missing.empty()) throw NotResidentError(std::move(missing));
  int64_t now = NowMicros();
  for (const CollectionState* c : scope) c->last_used_us->store(now, std::memory_order_relaxed);
}

}  // namespace tessera
