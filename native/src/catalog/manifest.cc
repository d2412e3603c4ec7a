#include "catalog/manifest.h"

#include "storage/file_names.h"
#include "storage/store_header.h"
#include "tessera/error.h"
#include "util/file_util.h"
#include "util/json_fields.h"

namespace tessera {

// The manifest's JSON: each record's members in order, one line each, for writing and reading
// alike. A collection's schema is spelled inside its object; manifests from before filter indexes
// and full text have neither declaration.
template <typename A, typename F>
void Members(A& a, F& f) {
  if constexpr (FieldsOf<F, FilterIndexField>) {
    a("field", f.field, "tokens", f.tokens, "trigrams", f.trigrams);
  } else if constexpr (FieldsOf<F, FtsField>) {
    a("field", f.field, "k1", f.k1, "b", f.b, "ascii_folding", f.ascii_folding, "max_token_len", f.max_token_len);
  } else if constexpr (FieldsOf<F, CollectionSchema>) {
    a("meta", f.meta, "vector_names", f.vector_names);
    a.Optional("filter_index", f.filter_index, "fts", f.fts);
  } else if constexpr (FieldsOf<F, ManifestSegment>) {
    a("id", f.id, "rows", f.rows, "deletions", f.deletions);
  } else if constexpr (FieldsOf<F, ManifestCollection>) {
    a("name", f.name);
    Members(a, f.schema);
    a("segments", f.segments);
  } else {
    static_assert(FieldsOf<F, Manifest>, "every manifest record type needs its members here");
    a("commit_version", f.commit_version, "next_segment_id", f.next_segment_id, "aliases", f.aliases, "collections", f.collections);
    a.Optional("valid_from", f.valid_from);
  }
}

void WriteManifest(const std::string& dir, const Manifest& m) { WriteFileAtomic(ManifestPath(dir), ManifestText(m)); }

std::string ManifestText(const Manifest& m) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Member("format", kFormatVersion);
  JsonFieldWriter fields(w);
  Members(fields, m);
  w.EndObject();
  out.push_back('\n');
  return out;
}

std::optional<Manifest> ReadManifest(const std::string& dir) {
  std::string path = ManifestPath(dir);
  if (!FileExists(path)) return std::nullopt;
  return ReadManifestFile(path);
}

Manifest ReadManifestFile(const std::string& path) {
  simdjson::padded_string text(ReadWholeFile(path));
  simdjson::dom::parser parser;
  try {
    JsonFieldReader fields(parser.parse(text).get_object().value());
    Manifest m;
    Members(fields, m);
    return m;
  } catch (const simdjson::simdjson_error& e) {
    throw Internal("corrupt " + path + ": " + e.what());
  }
}

}  // namespace tessera
