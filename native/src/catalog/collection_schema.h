// Everything a collection declares about itself, in the one type the manifest, the writer's
// state and every snapshot share. A new per-collection setting is a member here, its line in the
// manifest's Members(CollectionSchema) (manifest.cc), and the op and route that set it.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/fts_field.h"
#include "index/filter_index_field.h"

namespace tessera {

struct CollectionSchema {
  std::map<std::string, std::string> meta;  // free-form, replaced wholesale
  std::vector<std::string> vector_names;    // declared named vectors
  std::vector<FilterIndexField> filter_index;
  std::vector<FtsField> fts;  // the full-text schema
};

using CollectionSchemaPtr = std::shared_ptr<const CollectionSchema>;

}  // namespace tessera
