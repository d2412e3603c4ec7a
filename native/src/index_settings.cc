// The ANN and quantization settings in one place: their names, kinds, ranges and the kind each knob
// applies to (kSettings), read from text and resolved against what a store recorded. The command
// line, the library and the store header all come through here, so every range is written once;
// the CLI's help reads it back through DescribeIndexSettings.
#include <algorithm>
#include <charconv>
#include <type_traits>

#include "tessera/error.h"
#include "tessera/options.h"

namespace tessera {
namespace {

// The kinds as settings spell them ("none" first, then the enum's order) and as /stats does.
constexpr const char* kAnnChoices[] = {"none", "hnsw", "ivf"};
constexpr const char* kAnnShown[] = {"Hnsw", "Ivf"};
constexpr const char* kQuantizationChoices[] = {"none", "int8", "binary"};
constexpr const char* kQuantizationShown[] = {"Int8", "Binary"};
// QuantizationConfig's default rescore is Int8's; a Binary first pass is coarser, so it keeps more.
constexpr uint32_t kBinaryRescore = 16;

// Where a setting belongs: a kind itself, or the resolved kind a knob applies to.
enum class Scope { kAnnKind, kQuantizationKind, kHnsw, kIvf, kAnn, kQuantization };

struct Setting {
  const char* name;
  std::optional<std::string> IndexSettings::*text;
  Scope scope;
  uint64_t min = 0, max = 0;
  // A knob's value in a resolved config it applies to; null for the kinds.
  uint64_t (*get)(const IndexConfig&) = nullptr;
  void (*set)(IndexConfig&, uint64_t) = nullptr;
};

template <auto Member>
constexpr Setting AnnKnob(const char* name, std::optional<std::string> IndexSettings::*text, Scope scope, uint64_t min, uint64_t max) {
  using T = std::remove_reference_t<decltype(std::declval<AnnConfig&>().*Member)>;
  return {name,
          text,
          scope,
          min,
          max,
          [](const IndexConfig& c) { return uint64_t((*c.ann).*Member); },
          [](IndexConfig& c, uint64_t v) { (*c.ann).*Member = T(v); }};
}

// Ranges: wide enough for any sane index, narrow enough that a typo (an extra zero or two) is caught
// and that every value fits its field and a JSON number exactly (seed: 2^53 - 1).
constexpr Setting kSettings[] = {
    {"ann", &IndexSettings::ann, Scope::kAnnKind},
    AnnKnob<&AnnConfig::m>("m", &IndexSettings::m, Scope::kHnsw, 2, 128),
    AnnKnob<&AnnConfig::ef_construction>("ef_construction", &IndexSettings::ef_construction, Scope::kHnsw, 1, 10000),
    AnnKnob<&AnnConfig::ef_search>("ef_search", &IndexSettings::ef_search, Scope::kHnsw, 1, 10000),
    AnnKnob<&AnnConfig::n_lists>("n_lists", &IndexSettings::n_lists, Scope::kIvf, 0, 65536),
    AnnKnob<&AnnConfig::n_probe>("n_probe", &IndexSettings::n_probe, Scope::kIvf, 1, 65536),
    AnnKnob<&AnnConfig::overscan>("overscan", &IndexSettings::overscan, Scope::kAnn, 1, 100),
    AnnKnob<&AnnConfig::seed>("seed", &IndexSettings::seed, Scope::kAnn, 0, (uint64_t(1) << 53) - 1),
    {"quantization", &IndexSettings::quantization, Scope::kQuantizationKind},
    {"rescore", &IndexSettings::rescore, Scope::kQuantization, 1, 1000,
     [](const IndexConfig& c) { return uint64_t(c.quantization->rescore); },
     [](IndexConfig& c, uint64_t v) { c.quantization->rescore = uint32_t(v); }},
};

bool Applies(Scope scope, const IndexConfig& c) {
  switch (scope) {
    case Scope::kHnsw: return c.ann && c.ann->kind == AnnKind::kHnsw;
    case Scope::kIvf: return c.ann && c.ann->kind == AnnKind::kIvf;
    case Scope::kAnn: return c.ann.has_value();
    case Scope::kQuantization: return c.quantization.has_value();
    default: return false;
  }
}

const char* Needs(Scope scope) {
  switch (scope) {
    case Scope::kHnsw: return "ann hnsw";
    case Scope::kIvf: return "ann ivf";
    case Scope::kAnn: return "ann hnsw or ivf";
    case Scope::kQuantization: return "quantization int8 or binary";
    default: return "";
  }
}

bool IsQuantization(Scope scope) { return scope == Scope::kQuantizationKind || scope == Scope::kQuantization; }

// A value as the caller gave it, on one line and of bounded length, for a message.
std::string Quoted(const std::string& text) {
  constexpr size_t kShown = 40;
  std::string shown = text.size() > kShown ? text.substr(0, kShown) + "..." : text;
  std::replace_if(
      shown.begin(), shown.end(), [](char ch) { return (unsigned char)ch < 0x20; }, '?');
  return "\"" + shown + "\"";
}

// "none, hnsw or ivf" for a message; "none|hnsw|ivf" for help.
template <size_t N>
std::string ChoiceList(const char* const (&choices)[N], const char* separator, const char* last_separator) {
  std::string out;
  for (size_t i = 0; i < N; ++i) out += (i == 0 ? "" : i + 1 == N ? last_separator : separator) + std::string(choices[i]);
  return out;
}

// nullopt for "none".
template <typename Kind, size_t N>
std::optional<Kind> ParseKind(const char* setting, const char* const (&choices)[N], const std::string& text) {
  for (size_t i = 0; i < N; ++i)
    if (text == choices[i]) return i == 0 ? std::nullopt : std::optional<Kind>(Kind(i - 1));
  throw SettingError(setting, "must be " + ChoiceList(choices, ", ", " or ") + ", got " + Quoted(text));
}

uint64_t ParseValue(const Setting& s, const std::string& text) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  if (!digits || std::from_chars(text.data(), end, v).ec != std::errc() || v < s.min || v > s.max)
    throw SettingError(s.name,
                       "must be an integer from " + std::to_string(s.min) + " to " + std::to_string(s.max) + ", got " + Quoted(text));
  return v;
}

// One kind (ann or quantization) resolved: requested, else recorded, else none; `now` says where it
// came from, for a message about a knob that does not apply to it.
template <typename Kind>
struct KindChoice {
  std::optional<Kind> kind;
  bool from_record = false;  // the recorded kind stands, so the recorded knobs do too
  std::string now;
};

template <typename Kind, size_t N>
KindChoice<Kind> ChooseKind(const char* setting, const char* const (&choices)[N], const std::optional<std::string>& requested,
                            const std::optional<std::string>& based, bool new_store) {
  std::optional<Kind> was = based ? ParseKind<Kind>(setting, choices, *based) : std::nullopt;
  if (!requested) {
    std::string kind = based ? *based : "none";
    std::string now =
        new_store ? std::string(setting) + " is " + kind + " by default" : "the store records " + std::string(setting) + " " + kind;
    return {was, true, now};
  }
  std::optional<Kind> kind = ParseKind<Kind>(setting, choices, *requested);
  return {kind, kind == was, std::string(setting) + " is " + *requested};
}

// A knob set where its kind is not: the caller asked for something that would silently do nothing.
[[noreturn]] void NotApplying(const Setting& s, const std::string& text, const std::string& now) {
  throw SettingError(s.name, "is set to " + Quoted(text) + ", but it applies only with " + Needs(s.scope) + " (" + now + ")");
}

// HNSW links each node to m neighbours chosen from ef_construction candidates; fewer candidates than
// links is a misconfiguration, named by the setting the caller gave.
void CheckEfConstruction(const IndexConfig& c, const IndexSettings& requested) {
  if (!c.ann || c.ann->kind != AnnKind::kHnsw || c.ann->ef_construction >= c.ann->m) return;
  if (requested.ef_construction || !requested.m)
    throw SettingError("ef_construction",
                       "must be at least m (" + std::to_string(c.ann->m) + "), got " + Quoted(std::to_string(c.ann->ef_construction)));
  throw SettingError("m", "must be at most ef_construction (" + std::to_string(c.ann->ef_construction) + "), got " + Quoted(*requested.m));
}

std::vector<std::pair<const char*, uint64_t>> Knobs(const IndexConfig& c, bool quantization) {
  std::vector<std::pair<const char*, uint64_t>> out;
  for (const Setting& s : kSettings)
    if (s.get && IsQuantization(s.scope) == quantization && Applies(s.scope, c)) out.emplace_back(s.name, s.get(c));
  return out;
}

}  // namespace

IndexBase NewStoreIndexBase(bool in_memory, uint32_t dimension) {
  IndexBase base{{}, true};
  if (!in_memory && dimension > 0) {
    base.settings.ann = kAnnChoices[size_t(AnnKind::kHnsw) + 1];
    base.settings.quantization = kQuantizationChoices[size_t(QuantizationKind::kInt8) + 1];
  }
  return base;
}

IndexConfig ResolveIndexConfig(const IndexSettings& requested, const IndexBase& base, Metric metric) {
  const IndexSettings& recorded = base.settings;
  auto ann = ChooseKind<AnnKind>("ann", kAnnChoices, requested.ann, recorded.ann, base.new_store);
  auto quantization =
      ChooseKind<QuantizationKind>("quantization", kQuantizationChoices, requested.quantization, recorded.quantization, base.new_store);
  IndexConfig c;
  if (ann.kind) c.ann = AnnConfig{.kind = *ann.kind};
  if (quantization.kind) {
    bool binary = *quantization.kind == QuantizationKind::kBinary;
    c.quantization = QuantizationConfig{.kind = *quantization.kind, .rescore = binary ? kBinaryRescore : QuantizationConfig{}.rescore};
    // Binary codes keep only the signs of a vector's components, which ranks by angle alone.
    if (binary && metric != Metric::kCosine)
      throw SettingError("quantization", "binary needs the Cosine metric, but this store's metric is " + std::string(MetricName(metric)) +
                                             "; use int8 or none");
  }
  for (const Setting& s : kSettings) {
    if (!s.set) continue;
    bool quantized = IsQuantization(s.scope);
    if (const std::optional<std::string>& text = requested.*s.text) {
      uint64_t v = ParseValue(s, *text);
      if (!Applies(s.scope, c)) NotApplying(s, *text, quantized ? quantization.now : ann.now);
      s.set(c, v);
    } else if (const std::optional<std::string>& kept = recorded.*s.text;
               kept && Applies(s.scope, c) && (quantized ? quantization.from_record : ann.from_record)) {
      s.set(c, ParseValue(s, *kept));
    }
  }
  CheckEfConstruction(c, requested);
  return c;
}

IndexSettings RecordedSettings(const IndexConfig& c) {
  IndexSettings out;
  out.ann = kAnnChoices[c.ann ? size_t(c.ann->kind) + 1 : 0];
  out.quantization = kQuantizationChoices[c.quantization ? size_t(c.quantization->kind) + 1 : 0];
  for (const Setting& s : kSettings)
    if (s.get && Applies(s.scope, c)) out.*s.text = std::to_string(s.get(c));
  return out;
}

std::vector<std::pair<const char*, std::string>> IndexSettingTexts(const IndexSettings& settings) {
  std::vector<std::pair<const char*, std::string>> out;
  for (const Setting& s : kSettings)
    if (const std::optional<std::string>& text = settings.*s.text) out.emplace_back(s.name, *text);
  return out;
}

bool SetIndexSetting(IndexSettings& settings, std::string_view name, std::string text) {
  for (const Setting& s : kSettings) {
    if (name != s.name) continue;
    settings.*s.text = std::move(text);
    return true;
  }
  return false;
}

std::vector<IndexSettingInfo> DescribeIndexSettings() {
  // Defaults are read off configs of each kind, so they are the structs' own.
  IndexConfig hnsw{AnnConfig{.kind = AnnKind::kHnsw}, QuantizationConfig{}};
  IndexConfig ivf{AnnConfig{.kind = AnnKind::kIvf}, std::nullopt};
  std::vector<IndexSettingInfo> out;
  for (const Setting& s : kSettings) {
    IndexSettingInfo info{s.name, "", s.min, s.max, Needs(s.scope), ""};
    if (s.scope == Scope::kAnnKind || s.scope == Scope::kQuantizationKind) {
      bool ann = s.scope == Scope::kAnnKind;
      info.choices = ann ? ChoiceList(kAnnChoices, "|", "|") : ChoiceList(kQuantizationChoices, "|", "|");
      info.default_text = *(NewStoreIndexBase(false, 1).settings.*s.text);
    } else if (s.scope == Scope::kQuantization) {
      info.default_text = std::to_string(s.get(hnsw)) + " with int8, " + std::to_string(kBinaryRescore) + " with binary";
    } else {
      info.default_text = std::to_string(s.get(s.scope == Scope::kIvf ? ivf : hnsw));
    }
    out.push_back(std::move(info));
  }
  return out;
}

const char* KindName(AnnKind kind) { return kAnnShown[size_t(kind)]; }
const char* KindName(QuantizationKind kind) { return kQuantizationShown[size_t(kind)]; }

std::vector<std::pair<const char*, uint64_t>> KnobValues(const AnnConfig& ann) { return Knobs(IndexConfig{ann, std::nullopt}, false); }
std::vector<std::pair<const char*, uint64_t>> KnobValues(const QuantizationConfig& q) { return Knobs(IndexConfig{std::nullopt, q}, true); }

}  // namespace tessera
