#include "query/parse/write_parser.h"

#include "query/parse/body_reader.h"
#include "util/json_reader.h"
#include "util/value.h"

namespace tessera {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

void ReadValue(AttrEncoder& enc, std::string_view key, element e, const std::string& field) {
  JsonValue v = ReadJsonValue(e, field);
  switch (v.tag) {
    case ValueTag::kStr: enc.AddStr(key, v.s); break;
    case ValueTag::kInt: enc.AddInt(key, v.i); break;
    case ValueTag::kDateTime: enc.AddDateTime(key, v.i); break;
    case ValueTag::kBool: enc.AddBool(key, v.i != 0); break;
    case ValueTag::kFloat: enc.AddFloat(key, v.f); break;
    case ValueTag::kList: enc.AddList(key, v.list); break;
    case ValueTag::kNull: enc.AddNull(key); break;
  }
}

// Reserved keys are the store's own; callers cannot forge them.
bool IsReserved(std::string_view key) { return key.substr(0, 4) == "svc."; }

}  // namespace

UpsertOp ParseUpsert(std::string_view body, const std::string& collection, uint32_t dim, Metric metric, ReservedKeys reserved) {
  RequestBody parsed(body);
  UpsertOp op;
  op.collection = collection;
  bool seen = false;
  for (auto [key, value] : parsed.Object()) {
    if (key != "records") UnknownField(key, " in the upsert body", "records");
    seen = true;
    auto records = ExpectArray(value, "records");
    op.records.reserve(records.size());
    op.floats.reserve(records.size() * dim);
    size_t i = 0;
    for (element r : records) {
      std::string where = "records[" + std::to_string(i++) + "]";
      RecordInput rec;
      bool has_id = false;
      for (auto [k, v] : ExpectObject(r, where)) {
        if (k == "id") {
          rec.id = JsonString(v, where + ".id");
          if (rec.id.empty()) Bad(where + ".id must not be empty");
          has_id = true;
        } else if (k == "vector") {
          if (v.type() == element_type::NULL_VALUE) continue;
          rec.vector_offset = int64_t(ReadVector(v, where + ".vector", dim, metric, &op.floats));
        } else if (k == "vectors") {
          for (auto [name, vec] : ExpectObject(v, where + ".vectors")) {
            std::string n(name);
            if (n == "default") Bad(where + ".vectors: the name 'default' is reserved for the record's main vector; send it as 'vector'");
            for (const NamedVectorInput& seen_nv : rec.named)
              if (seen_nv.name == n) Bad(where + ".vectors names '" + n + "' twice");
            rec.named.push_back({n, ReadVector(vec, where + ".vectors." + n, dim, metric, &op.floats)});
          }
        } else if (k == "attrs") {
          AttrEncoder enc;
          for (auto [ak, av] : ExpectObject(v, where + ".attrs")) {
            if (reserved == ReservedKeys::kDrop && IsReserved(ak)) continue;
            if (ak.size() > 0xFFFF) Bad(where + ".attrs has a key longer than 65535 bytes");
            ReadValue(enc, ak, av, where + ".attrs." + std::string(ak));
          }
          rec.attrs = enc.Finish();
        } else {
          UnknownField(k, " in " + where, "id, vector, vectors, attrs");
        }
      }
      if (!has_id) Bad(where + " has no id; every record needs a string id");
      op.records.push_back(std::move(rec));
    }
  }
  if (!seen) Bad("the upsert body needs a records array: {\"records\": [{\"id\": ..., \"vector\": [...]}]}");
  return op;
}

DeleteRequest ParseDelete(std::string_view body) {
  RequestBody parsed(body);
  DeleteRequest req;
  bool seen = false;
  for (auto [key, value] : parsed.Object()) {
    if (key == "ids") {
      req.ids = ExpectStrings(value, "ids");
      seen = true;
    } else if (key == "filter") {
      if (value.type() == element_type::NULL_VALUE) continue;  // absent: ids decide
      req.filter = Filter::Compile(value, "filter");
      seen = true;
    } else {
      UnknownField(key, " in the delete body", "ids, filter");
    }
  }
  if (!seen) Bad("the delete body needs ids or a filter: {\"ids\": [\"a\", \"b\"]} or {\"filter\": [...]}");
  return req;
}

ReinforceRequest ParseReinforce(std::string_view body) {
  RequestBody parsed(body);
  ReinforceRequest req;
  bool has_ids = false, has_now = false;
  for (auto [key, value] : parsed.Object()) {
    if (key == "ids") {
      req.ids = ExpectStrings(value, "ids");
      has_ids = true;
    } else if (key == "now") {
      req.now = ExpectInt64(value, "now");
      has_now = true;
    } else if (key == "extend_ttl_ms") {
      if (value.type() == element_type::NULL_VALUE) continue;
      int64_t ms = ExpectInt64(value, "extend_ttl_ms");
      if (ms < 0) Bad("extend_ttl_ms must not be negative");
      req.extend_ttl_ms = ms;
    } else {
      UnknownField(key, " in the reinforce body", "ids, now, extend_ttl_ms");
    }
  }
  if (!has_ids || !has_now) Bad("the reinforce body needs ids and now (epoch ms): {\"ids\": [\"a\"], \"now\": 1700000000000}");
  return req;
}

CompactRequest ParseCompact(std::string_view body) {
  CompactRequest req;
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) return req;
  RequestBody parsed(body);
  for (auto [key, value] : parsed.Object()) {
    if (key == "expired")
      req.expired = ExpectBool(value, "expired");
    else
      UnknownField(key, " in the compact body", "expired");
  }
  return req;
}

}  // namespace tessera
