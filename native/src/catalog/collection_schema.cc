#include "catalog/collection_schema.h"

#include <simdjson.h>

#include "util/json_writer.h"

namespace tessera {

void WriteSchemaMembers(JsonWriter& w, const CollectionSchema& schema) {
  w.Key("meta");
  w.StringMap(schema.meta);
  w.Key("vector_names");
  w.StringArray(schema.vector_names);
  w.Key("filter_index");
  {
    JsonWriter::Scope fields = w.Array();
    for (const FilterIndexField& f : schema.filter_index) {
      JsonWriter::Scope field = w.Object();
      w.Key("field");
      w.String(f.field);
      w.Key("tokens");
      w.Bool(f.tokens);
      w.Key("trigrams");
      w.Bool(f.trigrams);
    }
  }
  w.Key("fts");
  JsonWriter::Scope fields = w.Array();
  for (const FtsField& f : schema.fts) {
    JsonWriter::Scope field = w.Object();
    w.Key("field");
    w.String(f.field);
    w.Key("k1");
    w.Double(f.k1);
    w.Key("b");
    w.Double(f.b);
    w.Key("ascii_folding");
    w.Bool(f.ascii_folding);
    w.Key("max_token_len");
    w.UInt(f.max_token_len);
  }
}

CollectionSchema ReadSchemaMembers(simdjson::dom::element c) {
  CollectionSchema schema;
  for (auto [k, v] : c["meta"].get_object()) schema.meta[std::string(k)] = std::string(v.get_string().value());
  for (simdjson::dom::element n : c["vector_names"].get_array()) schema.vector_names.emplace_back(n.get_string().value());
  simdjson::dom::array declared;
  if (c["filter_index"].get(declared) == simdjson::SUCCESS)
    for (simdjson::dom::element f : declared)
      schema.filter_index.push_back({std::string(f["field"].get_string().value()), f["tokens"].get_bool(), f["trigrams"].get_bool()});
  simdjson::dom::array fts;
  if (c["fts"].get(fts) == simdjson::SUCCESS)
    for (simdjson::dom::element f : fts)
      schema.fts.push_back({std::string(f["field"].get_string().value()), f["k1"].get_double(), f["b"].get_double(),
                            f["ascii_folding"].get_bool(), uint32_t(f["max_token_len"].get_uint64().value())});
  return schema;
}

}  // namespace tessera
