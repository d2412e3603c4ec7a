#include "catalog/snapshot.h"

namespace tessera {

const CollectionState* Snapshot::Resolve(const std::string& name) const {
  auto alias = aliases.find(name);
  auto it = collections.find(alias == aliases.end() ? name : alias->second);
  return it == collections.end() ? nullptr : it->second.get();
}

}  // namespace tessera
