#include "query/parse/write_parser.h"

#include <algorithm>
#include <optional>

#include "query/parse/body_reader.h"
#include "tessera/error.h"
#include "util/json_reader.h"
#include "util/thread_pool.h"
#include "util/value.h"

namespace tessera {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

void ReadValue(AttrEncoder& enc, std::string_view key, element e, const FieldName& field) {
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

namespace {

// Appends the records of a parsed upsert body to op.
void ReadRecords(const RequestBody& parsed, uint32_t dim, Metric metric, ReservedKeys reserved, UpsertOp& op) {
  bool seen = false;
  AttrEncoder encoder;  // one for every record: it keeps its buffers
  for (auto [key, value] : parsed.Object()) {
    if (key != "records") UnknownField(key, " in the upsert body", "records");
    seen = true;
    auto records = ExpectArray(value, "records");
    op.records.reserve(op.records.size() + records.size());
    op.floats.reserve(op.floats.size() + records.size() * dim);
    const FieldName records_name("records");
    size_t i = 0;
    for (element r : records) {
      const FieldName where(records_name, i++);
      RecordInput rec;
      bool has_id = false;
      for (auto [k, v] : ExpectObject(r, where)) {
        if (k == "id") {
          rec.id = JsonString(v, FieldName(where, "id"));
          if (rec.id.empty()) Bad(where + ".id must not be empty");
          has_id = true;
        } else if (k == "vector") {
          if (v.type() == element_type::NULL_VALUE) continue;
          rec.vector_offset = int64_t(ReadVector(v, FieldName(where, "vector"), dim, metric, &op.floats));
        } else if (k == "vectors") {
          const FieldName vectors(where, "vectors");
          for (auto [name, vec] : ExpectObject(v, vectors)) {
            std::string n(name);
            if (n == "default") Bad(vectors + ": the name 'default' is reserved for the record's main vector; send it as 'vector'");
            for (const NamedVectorInput& seen_nv : rec.named)
              if (seen_nv.name == n) Bad(vectors + " names '" + n + "' twice");
            rec.named.push_back({n, ReadVector(vec, FieldName(vectors, n), dim, metric, &op.floats)});
          }
        } else if (k == "attrs") {
          const FieldName attrs(where, "attrs");
          for (auto [ak, av] : ExpectObject(v, attrs)) {
            if (reserved == ReservedKeys::kDrop && IsReserved(ak)) continue;
            if (ak.size() > 0xFFFF) Bad(attrs + " has a key longer than 65535 bytes");
            ReadValue(encoder, ak, av, FieldName(attrs, ak));
          }
          rec.attrs = encoder.Finish();
        } else {
          UnknownField(k, " in " + where.str(), "id, vector, vectors, attrs");
        }
      }
      if (!has_id) Bad(where + " has no id; every record needs a string id");
      op.records.push_back(std::move(rec));
    }
  }
  if (!seen) Bad("the upsert body needs a records array: {\"records\": [{\"id\": ..., \"vector\": [...]}]}");
}

// A large body is cut into parts parsed on several threads (kUpsertPartBytes): parsing is most of an
// upsert's time, and while one batch is written at a time, the other cores have nothing to do.
constexpr std::string_view kHead = "{\"records\":[";
constexpr std::string_view kTail = "]}";

bool JsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Whether body reads `token` from at on, with whitespace allowed before each of its characters;
// at moves past it.
bool Reads(std::string_view body, size_t& at, std::string_view token) {
  for (char want : token) {
    while (at < body.size() && JsonSpace(body[at])) ++at;
    if (at == body.size() || body[at] != want) return false;
    ++at;
  }
  return true;
}

// The same backwards, from before at (token spelled backwards); at moves before it.
bool ReadsBack(std::string_view body, size_t& at, std::string_view token) {
  for (char want : token) {
    while (at > 0 && JsonSpace(body[at - 1])) --at;
    if (at == 0 || body[at - 1] != want) return false;
    --at;
  }
  return true;
}

// The comma of the joint `},{"id":` (whitespace allowed between) whose "id" stands at at, if it is
// one. In valid JSON a joint cannot lie in a string: its quote would end one, and `id":` cannot
// follow a string. So it closes an object of an array and opens the next.
std::optional<size_t> JointComma(std::string_view body, size_t at) {
  size_t ahead = at + 4, back = at;
  if (!Reads(body, ahead, ":") || !ReadsBack(body, back, "{") || !ReadsBack(body, back, ",")) return std::nullopt;
  size_t comma = back;
  if (!ReadsBack(body, back, "}")) return std::nullopt;
  return comma;
}

// Part p of a body cut at cuts, framed as a body of its own. Parts that are all valid make a valid
// body holding the same records in the same order: each part's parse stops inside a records array
// after a record, and the next resumes there before one.
UpsertOp ReadPart(std::string_view body, const std::vector<size_t>& cuts, size_t p, uint32_t dim, Metric metric, ReservedKeys reserved) {
  bool first = p == 0, last = p == cuts.size();
  size_t from = first ? 0 : cuts[p - 1] + 1;
  size_t to = last ? body.size() : cuts[p];
  UpsertOp op;
  ReadRecords(RequestBody(first ? "" : kHead, body.substr(from, to - from), last ? "" : kTail), dim, metric, reserved, op);
  return op;
}

// Appends part's records and their vectors to op.
void Append(UpsertOp& op, UpsertOp&& part) {
  size_t shift = op.floats.size();
  op.floats.insert(op.floats.end(), part.floats.begin(), part.floats.end());
  for (RecordInput& rec : part.records) {
    if (rec.vector_offset >= 0) rec.vector_offset += int64_t(shift);
    for (NamedVectorInput& nv : rec.named) nv.offset += shift;
    op.records.push_back(std::move(rec));
  }
}

}  // namespace

std::vector<size_t> UpsertCuts(std::string_view body, size_t parts, size_t part_bytes) {
  std::vector<size_t> cuts;
  parts = std::min(parts, body.size() / part_bytes);
  size_t at = 0, end = body.size();
  if (parts < 2 || !Reads(body, at, kHead) || !ReadsBack(body, end, "}]")) return cuts;  // kTail, read backwards
  for (size_t p = 1; p < parts; ++p) {
    std::optional<size_t> comma;
    for (at = std::max(at, body.size() * p / parts); !comma; ++at) {
      at = body.find("\"id\"", at);
      if (at == std::string_view::npos || at >= end) return cuts;
      comma = JointComma(body, at);
    }
    cuts.push_back(*comma);
  }
  return cuts;
}

UpsertOp ReadUpsertInParts(std::string_view body, const std::vector<size_t>& cuts, uint32_t dim, Metric metric, ReservedKeys reserved,
                           ThreadPool& pool) {
  std::vector<UpsertOp> parts(cuts.size() + 1);
  pool.ParallelFor(parts.size(), [&](size_t p) { parts[p] = ReadPart(body, cuts, p, dim, metric, reserved); });
  size_t records = 0, floats = 0;
  for (const UpsertOp& part : parts) records += part.records.size(), floats += part.floats.size();
  UpsertOp op = std::move(parts[0]);
  op.records.reserve(records);
  op.floats.reserve(floats);
  for (size_t p = 1; p < parts.size(); ++p) Append(op, std::move(parts[p]));
  return op;
}

UpsertOp ParseUpsert(std::string_view body, const std::string& collection, uint32_t dim, Metric metric, ReservedKeys reserved,
                     ThreadPool* pool) {
  UpsertOp op;
  bool read = false;
  if (std::vector<size_t> cuts = pool == nullptr ? std::vector<size_t>{} : UpsertCuts(body, kUpsertPartsPerThread * pool->size());
      !cuts.empty()) {
    try {
      op = ReadUpsertInParts(body, cuts, dim, metric, reserved, *pool);
      read = true;
    } catch (const Error&) {
      // read whole below, for the error a whole body gets
    }
  }
  if (!read) ReadRecords(RequestBody(body), dim, metric, reserved, op);
  op.collection = collection;
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
