#include "catalog/snapshot.h"

#include "tessera/error.h"

namespace tessera {

const CollectionState* Snapshot::Resolve(const std::string& name) const {
  auto alias = aliases.find(name);
  auto it = collections.find(alias == aliases.end() ? name : alias->second);
  if (it == collections.end()) return nullptr;
  RequireResident({it->second.get()});
  return it->second.get();
}

void Snapshot::RequireResident(const std::vector<const CollectionState*>& scope) {
  std::vector<std::string> missing;
  for (const CollectionState* c : scope)
    if (!c->resident) missing.push_back(c->name);
  if (!missing.empty()) throw NotResidentError(std::move(missing));
}

}  // namespace tessera
