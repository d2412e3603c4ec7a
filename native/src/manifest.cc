#include "tessera/manifest.h"

#include <simdjson.h>

#include "tessera/error.h"
#include "tessera/file_util.h"
#include "tessera/json_writer.h"

namespace tessera {
namespace {

std::string HeaderPath(const std::string& dir) { return dir + "/HEADER"; }
std::string ManifestPath(const std::string& dir) { return dir + "/MANIFEST"; }

[[noreturn]] void Corrupt(const std::string& file, const char* why) {
  throw Internal("corrupt " + file + ": " + why);
}

std::map<std::string, std::string> ReadStringMap(simdjson::dom::element e) {
  std::map<std::string, std::string> out;
  simdjson::dom::object object = e.get_object();
  for (auto field : object) out[std::string(field.key)] = std::string(field.value.get_string().value());
  return out;
}

}  // namespace

// HEADER is plain text so an operator can read what a directory holds.
void WriteHeader(const std::string& dir, const StoreHeader& h) {
  std::string text = "tessera-store\nformat " + std::to_string(h.format) + "\ndimension " +
                     std::to_string(h.dimension) + "\nmetric " + MetricName(h.metric) + "\n";
  WriteFileAtomic(HeaderPath(dir), text);
}

std::optional<StoreHeader> ReadHeader(const std::string& dir) {
  if (!FileExists(HeaderPath(dir))) return std::nullopt;
  std::string text = ReadWholeFile(HeaderPath(dir));
  StoreHeader h;
  char metric[32] = {0};
  unsigned format = 0, dimension = 0;
  if (std::sscanf(text.c_str(), "tessera-store\nformat %u\ndimension %u\nmetric %31s", &format, &dimension, metric) != 3)
    Corrupt(HeaderPath(dir), "unreadable header");
  if (format != kFormatVersion)
    throw Internal("store format " + std::to_string(format) + " is not supported by this build (format " +
                   std::to_string(kFormatVersion) + ")");
  auto m = ParseMetric(metric);
  if (!m) Corrupt(HeaderPath(dir), "unknown metric");
  h.format = format;
  h.dimension = dimension;
  h.metric = *m;
  return h;
}

void WriteManifest(const std::string& dir, const Manifest& m) {
  std::string out;
  JsonWriter w(&out);
  w.Raw("{\"format\":");
  w.UInt(kFormatVersion);
  w.Raw(",\"commit_version\":");
  w.UInt(m.commit_version);
  w.Raw(",\"next_segment_id\":");
  w.UInt(m.next_segment_id);
  w.Raw(",\"aliases\":");
  w.StringMap(m.aliases);
  w.Raw(",\"collections\":[");
  for (size_t i = 0; i < m.collections.size(); ++i) {
    const ManifestCollection& c = m.collections[i];
    if (i) w.Char(',');
    w.Raw("{\"name\":");
    w.String(c.name);
    w.Raw(",\"meta\":");
    w.StringMap(c.meta);
    w.Raw(",\"vector_names\":");
    w.StringArray(c.vector_names);
    w.Raw(",\"filter_index\":[");
    for (size_t j = 0; j < c.filter_index.size(); ++j) {
      if (j) w.Char(',');
      w.Raw("{\"field\":");
      w.String(c.filter_index[j].field);
      w.Raw(",\"tokens\":");
      w.Bool(c.filter_index[j].tokens);
      w.Raw(",\"trigrams\":");
      w.Bool(c.filter_index[j].trigrams);
      w.Char('}');
    }
    w.Raw("],\"fts\":[");
    for (size_t j = 0; j < c.fts.size(); ++j) {
      const FtsField& f = c.fts[j];
      if (j) w.Char(',');
      w.Raw("{\"field\":");
      w.String(f.field);
      w.Raw(",\"k1\":");
      w.Double(f.k1);
      w.Raw(",\"b\":");
      w.Double(f.b);
      w.Raw(",\"ascii_folding\":");
      w.Bool(f.ascii_folding);
      w.Raw(",\"max_token_len\":");
      w.UInt(f.max_token_len);
      w.Char('}');
    }
    w.Raw("],\"segments\":[");
    for (size_t j = 0; j < c.segments.size(); ++j) {
      if (j) w.Char(',');
      w.Raw("{\"id\":");
      w.UInt(c.segments[j].id);
      w.Raw(",\"rows\":");
      w.UInt(c.segments[j].rows);
      w.Raw(",\"deletions\":");
      w.String(c.segments[j].deletions);
      w.Char('}');
    }
    w.Raw("]}");
  }
  w.Raw("]}\n");
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
    m.aliases = ReadStringMap(root["aliases"]);
    for (simdjson::dom::element c : root["collections"].get_array()) {
      ManifestCollection mc;
      mc.name = std::string(c["name"].get_string().value());
      mc.meta = ReadStringMap(c["meta"]);
      for (simdjson::dom::element n : c["vector_names"].get_array()) mc.vector_names.emplace_back(n.get_string().value());
      // Manifests written before filter indexes existed have no declaration.
      simdjson::dom::array declared;
      if (c["filter_index"].get(declared) == simdjson::SUCCESS)
        for (simdjson::dom::element f : declared)
          mc.filter_index.push_back({std::string(f["field"].get_string().value()), f["tokens"].get_bool(), f["trigrams"].get_bool()});
      simdjson::dom::array fts;
      if (c["fts"].get(fts) == simdjson::SUCCESS)
        for (simdjson::dom::element f : fts)
          mc.fts.push_back({std::string(f["field"].get_string().value()), f["k1"].get_double(), f["b"].get_double(),
                            f["ascii_folding"].get_bool(), uint32_t(f["max_token_len"].get_uint64().value())});
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
    Corrupt(path, e.what());
  }
}

}  // namespace tessera
