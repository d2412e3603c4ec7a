#include "catalog/manifest.h"

#include <simdjson.h>

#include "storage/file_names.h"
#include "storage/store_header.h"
#include "tessera/error.h"
#include "util/file_util.h"
#include "util/json_writer.h"

namespace tessera {

void WriteManifest(const std::string& dir, const Manifest& m) {
  std::string out;
  JsonWriter w(&out);
  {
    JsonWriter::Scope manifest = w.Object();
    w.Key("format");
    w.UInt(kFormatVersion);
    w.Key("commit_version");
    w.UInt(m.commit_version);
    w.Key("next_segment_id");
    w.UInt(m.next_segment_id);
    w.Key("aliases");
    w.StringMap(m.aliases);
    w.Key("collections");
    JsonWriter::Scope collections = w.Array();
    for (const ManifestCollection& c : m.collections) {
      JsonWriter::Scope collection = w.Object();
      w.Key("name");
      w.String(c.name);
      WriteSchemaMembers(w, c.schema);
      w.Key("segments");
      JsonWriter::Scope segments = w.Array();
      for (const ManifestSegment& s : c.segments) {
        JsonWriter::Scope segment = w.Object();
        w.Key("id");
        w.UInt(s.id);
        w.Key("rows");
        w.UInt(s.rows);
        w.Key("deletions");
        w.String(s.deletions);
      }
    }
  }
  out.push_back('\n');
  WriteFileAtomic(ManifestPath(dir), out);
}

std::optional<Manifest> ReadManifest(const std::string& dir) {
  std::string path = ManifestPath(dir);
  if (!FileExists(path)) return std::nullopt;
  simdjson::padded_string text(ReadWholeFile(path));
  simdjson::dom::parser parser;
  try {
    simdjson::dom::element root = parser.parse(text);
    Manifest m;
    m.commit_version = root["commit_version"].get_uint64();
    m.next_segment_id = root["next_segment_id"].get_uint64();
    for (auto [name, target] : root["aliases"].get_object()) m.aliases[std::string(name)] = std::string(target.get_string().value());
    for (simdjson::dom::element c : root["collections"].get_array()) {
      ManifestCollection mc;
      mc.name = std::string(c["name"].get_string().value());
      mc.schema = ReadSchemaMembers(c);
      for (simdjson::dom::element s : c["segments"].get_array()) {
        ManifestSegment ms;
        ms.id = s["id"].get_uint64();
        ms.rows = uint32_t(s["rows"].get_uint64().value());
        ms.deletions = std::string(s["deletions"].get_string().value());
        mc.segments.push_back(ms);
      }
      m.collections.push_back(std::move(mc));
    }
    return m;
  } catch (const simdjson::simdjson_error& e) {
    throw Internal("corrupt " + path + ": " + e.what());
  }
}

}  // namespace tessera
