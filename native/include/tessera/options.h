// How a store is opened, and the fixed facts a store is opened with: its distance metric and the
// role this process plays for it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera {

enum class Metric { kCosine, kEuclidean, kDotProduct };

const char* MetricName(Metric m);
// Throws Error(400) naming the three metrics when name is none of them.
Metric ParseMetric(std::string_view name);

// Writer: holds the writer lock. Reader: another process holds it, or the store was opened
// read-only. InMemory: no files at all.
enum class Role { kWriter, kReader, kInMemory };

const char* RoleName(Role role);

// The approximate index built per sealed segment (spec "Store statistics": the knobs and their
// defaults). A query walks with ef = max(ef_search, overscan x (offset + top_k)).
enum class AnnKind { kHnsw, kIvf };
struct AnnConfig {
  AnnKind kind = AnnKind::kHnsw;
  uint32_t m = 16;
  uint32_t ef_construction = 200;
  uint32_t ef_search = 64;
  uint32_t n_lists = 0;  // 0: chosen from the segment's rows
  uint32_t n_probe = 8;
  uint32_t overscan = 4;
  uint64_t seed = 0;
  bool operator==(const AnnConfig&) const = default;
};

// The quantized first pass; the best (offset + top_k) x rescore candidates are rescored exactly.
// Binary needs the Cosine metric.
enum class QuantizationKind { kInt8, kBinary };
struct QuantizationConfig {
  QuantizationKind kind = QuantizationKind::kInt8;
  uint32_t rescore = 4;  // 16 is Binary's default
  bool operator==(const QuantizationConfig&) const = default;
};

// The index configuration as one value: nullopt members are off (exact search, no quantized pass).
struct IndexConfig {
  std::optional<AnnConfig> ann;
  std::optional<QuantizationConfig> quantization;
  bool operator==(const IndexConfig&) const = default;
};

// The ANN and quantization settings as an opener (or a store header) spelled them, before any
// validation: text, so the command line, the library and the header reach one parser and one set of
// messages. Every setting is optional, and unset is not the default: an unset knob falls back to
// what the store recorded, then to the spec's default. `ann` is none | hnsw | ivf, `quantization`
// none | int8 | binary, the rest decimal integers. index_settings.cc holds the names and ranges.
struct IndexSettings {
  std::optional<std::string> ann, m, ef_construction, ef_search, n_lists, n_probe, overscan, seed;
  std::optional<std::string> quantization, rescore;
  bool operator==(const IndexSettings&) const = default;
};

// What a store's index settings start from: its header's record, or a new store's defaults.
struct IndexBase {
  IndexSettings settings;
  bool new_store = false;  // settings are the defaults, not a record (for messages)
};

// A new store on disk with vectors gets HNSW with Int8 codes and exact rescoring; an in-memory
// store (it never seals a segment, so never builds an index) and a keyword-only one get none.
IndexBase NewStoreIndexBase(bool in_memory, uint32_t dimension);

// Resolves requested over base for a store of `metric`. A requested knob always wins; a recorded
// (or default) knob is used while its kind stays the base's (switching kinds starts from the
// defaults); a kind the base leaves unset is none (a header older than default indexes recorded
// only what was on). Throws SettingError (400) for a value out of range, an unknown kind, a knob
// that does not apply to the resolved kind, ef_construction below m, or Binary with a metric other
// than Cosine. Recorded settings are trusted (ReadHeader checks them).
IndexConfig ResolveIndexConfig(const IndexSettings& requested, const IndexBase& base, Metric metric);
// The settings that resolve to `config` with nothing requested: each kind ("none" when off) and
// the knobs that apply.
IndexSettings RecordedSettings(const IndexConfig& config);

// The settings by their spec names ("ef_construction"), in the spec's order: the ones set.
std::vector<std::pair<const char*, std::string>> IndexSettingTexts(const IndexSettings& settings);
// Sets the setting called `name`; false when no setting has that name.
bool SetIndexSetting(IndexSettings& settings, std::string_view name, std::string text);

// One setting for a front end's help: its spec name, its kinds ("none|hnsw|ivf") or its integer
// range, the kind it needs ("ann hnsw"; empty for the kinds themselves) and its default (for the
// kinds: a new store's on disk).
struct IndexSettingInfo {
  std::string name;
  std::string choices;  // empty for an integer
  uint64_t min = 0, max = 0;
  std::string needs;
  std::string default_text;
};
std::vector<IndexSettingInfo> DescribeIndexSettings();

// /stats spellings: Hnsw, Ivf, Int8, Binary; and the knobs that apply to a resolved kind, in the
// spec's order, as (spec name, value).
const char* KindName(AnnKind kind);
const char* KindName(QuantizationKind kind);
std::vector<std::pair<const char*, uint64_t>> KnobValues(const AnnConfig& ann);
std::vector<std::pair<const char*, uint64_t>> KnobValues(const QuantizationConfig& quantization);

struct StoreOptions {
  std::string path;
  bool in_memory = false;
  std::optional<uint32_t> dimension;
  std::optional<Metric> metric;
  size_t query_threads = 0;  // 0 = number of CPUs
  bool mmap = true;
  bool read_only = false;
  // A writer keeps the files its last this many commit versions need readable (0: no history).
  uint64_t history_versions = 0;
  // Serve this past version, read-only and without the writer lock (a pinned instance).
  std::optional<uint64_t> at_version;
  IndexSettings index;  // what the opener asked for; Store::ann() and quantization() are the outcome
  // The spec's max_vector_bytes: a write that would take the store's vector bytes (every row's
  // vector slot and every named-vector column, live or superseded) past it is refused with 507.
  // Unset: no limit. Sealed vectors are file-backed (mmap'd), so a store larger than memory is
  // legitimate; an opener that must bound memory (in memory, or without mmap) sets it.
  std::optional<uint64_t> max_vector_bytes;
  // With quantization and mmap: the sealed segments' f32 rows stay mapped, rescored in place, while
  // they total at most this many bytes; past it a rescore reads each row it needs from its file
  // (pread, about a microsecond from the page cache) and the maps are let go of, so the resident
  // set holds the codes, graphs and ids but not the rows. Walks without codes read the rows
  // themselves and always map them.
  uint64_t mapped_vector_bytes = uint64_t(256) << 20;
  // A store on disk that holds only some collections' files (cluster mode's bounded cache): the
  // manifest's other collections are listed but their segments are not opened, and a read (or a
  // writer's upsert or delete) touching one fails with NotResidentError. A writer's open fails so
  // too when the log changed rows of collections not named here. Unset: every collection. A
  // reader's Store::SetResident changes it; a writer's Store::Hold and Store::Release.
  std::optional<std::vector<std::string>> resident;
};

}  // namespace tessera
