// POST /suggest: completions of the final word of a phrase from a field's surface words, each
// counted by the documents (filtered, and holding the earlier words) that carry its stem.
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <unordered_set>

#include "tessera/fuzzy.h"
#include "tessera/json_writer.h"
#include "tessera/scan.h"
#include "tessera/text_analyzer.h"
#include "tessera/text_search.h"
#include "text_corpus.h"

namespace tessera {
namespace {

constexpr size_t kMaxCompletions = 256;
constexpr size_t kMaxFuzzyWordChars = 64;

// Typo budget by the final word's length in characters.
int EditBudget(size_t chars) {
  if (chars < 4 || chars > kMaxFuzzyWordChars) return 0;
  return chars < 8 ? 1 : 2;
}

// Live documents of one collection that a completion's df may count: those passing the filter
// and holding every earlier term. Unconditioned (nullopt per chunk) when there is neither.
class DocCondition {
 public:
  DocCondition(const CollectionText& text, int field, std::vector<std::string> earlier, const Filter& filter)
      : text_(text), field_(field), earlier_(std::move(earlier)), filter_(filter) {}

  bool unconditioned() const { return earlier_.empty() && filter_.empty(); }

  // df of term over the allowed documents.
  uint64_t DocFreq(std::string_view term, const CancelToken& cancel) {
    if (unconditioned()) return text_.DocFreq(field_, term);
    if (!allowed_) Resolve(cancel);
    uint64_t df = 0;
    size_t chunk_index = 0;
    text_.ForEachChunk([&](const SegmentRef&, const TextChunk& chunk) {
      const std::vector<uint8_t>& allowed = (*allowed_)[chunk_index++];
      const FieldPostings& fp = chunk.field(size_t(field_));
      int64_t t = fp.Find(term);
      if (t < 0) return;
      for (uint32_t i = fp.term_start[size_t(t)]; i < fp.term_start[size_t(t) + 1]; ++i) df += allowed[fp.docs[i] - chunk.begin()];
    });
    return df;
  }

 private:
  bool Holds(const FieldPostings& fp, std::string_view term, uint32_t row) const {
    int64_t t = fp.Find(term);
    if (t < 0) return false;
    auto first = fp.docs.begin() + fp.term_start[size_t(t)], last = fp.docs.begin() + fp.term_start[size_t(t) + 1];
    return std::binary_search(first, last, row);
  }

  void Resolve(const CancelToken& cancel) {
    allowed_.emplace();
    text_.ForEachChunk([&](const SegmentRef& ref, const TextChunk& chunk) {
      cancel.ThrowIfCancelled();
      const FieldPostings& fp = chunk.field(size_t(field_));
      std::vector<uint8_t> allowed(chunk.end() - chunk.begin(), 0);
      for (uint32_t r = chunk.begin(); r < chunk.end(); ++r) {
        if (fp.doc_len[r - chunk.begin()] == 0 || !text_.Visible(ref, r)) continue;
        bool ok = std::all_of(earlier_.begin(), earlier_.end(), [&](const std::string& t) { return Holds(fp, t, r); });
        allowed[r - chunk.begin()] = ok && (filter_.empty() || filter_.Matches(ref.segment->row_attrs(r)));
      }
      allowed_->push_back(std::move(allowed));
    });
  }

  const CollectionText& text_;
  int field_;
  std::vector<std::string> earlier_;
  const Filter& filter_;
  std::optional<std::vector<std::vector<uint8_t>>> allowed_;  // per chunk, per row
};

struct Completion {
  uint64_t df = 0;
  int distance = 0;
};

}  // namespace

std::string Suggest(const QueryContext& ctx, const SuggestParams& p) {
  std::map<std::string, Completion> exact, fuzzy;
  std::vector<WordSpan> words = SplitWords(p.prefix);
  bool completes = p.limit > 0 && !words.empty() && words.back().end == p.prefix.size();
  if (completes) {
    std::string_view final_word = std::string_view(p.prefix).substr(words.back().begin);
    int budget = p.fuzzy ? EditBudget(CountChars(final_word)) : 0;
    struct Source {
      CollectionText text;
      int field;
      std::string folded;
      std::optional<DocCondition> condition;  // refers to text, so built once the source has its place
    };
    std::vector<std::unique_ptr<Source>> sources;
    for (const CollectionState* c : ResolveScope(ctx.snap, p.scope)) {
      CollectionText text(*c, ctx.snap.version);
      int field = text.FieldIndex(p.field);
      if (field < 0) continue;
      Analyzer analyzer(text.field(field));
      std::vector<std::string> earlier;
      for (const AnalyzedToken& t : analyzer.Analyze(std::string_view(p.prefix).substr(0, words.back().begin)))
        if (std::find(earlier.begin(), earlier.end(), t.term) == earlier.end()) earlier.push_back(t.term);
      sources.push_back(std::make_unique<Source>(Source{text, field, analyzer.Fold(final_word), std::nullopt}));
      sources.back()->condition.emplace(sources.back()->text, field, std::move(earlier), p.filter);
    }
    for (auto& s : sources)
      for (const auto& [surface, term] : s->text.Surfaces(s->field, s->folded))
        exact[surface].df += s->condition->DocFreq(term, ctx.cancel);
    std::erase_if(exact, [](const auto& e) { return e.second.df == 0; });
    if (exact.empty() && budget > 0) {
      for (auto& s : sources) {
        FuzzyMatcher matcher(s->folded, budget);
        for (const auto& [surface, term] : s->text.Surfaces(s->field, "")) {
          int d = matcher.PrefixDistance(surface);
          if (d > budget) continue;
          uint64_t df = s->condition->DocFreq(term, ctx.cancel);
          if (df == 0) continue;
          Completion& c = fuzzy[surface];
          c.df += df;
          c.distance = d;
        }
      }
    }
  }
  const bool fuzzy_leg = exact.empty();
  std::vector<std::pair<std::string, Completion>> ranked(fuzzy_leg ? fuzzy.begin() : exact.begin(), fuzzy_leg ? fuzzy.end() : exact.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    if (a.second.distance != b.second.distance) return a.second.distance < b.second.distance;
    if (a.second.df != b.second.df) return a.second.df > b.second.df;
    return a.first < b.first;
  });
  size_t matched = ranked.size();
  ranked.resize(std::min({ranked.size(), kMaxCompletions, size_t(p.limit)}));
  std::string out;
  JsonWriter w(&out);
  w.Raw("{\"suggestions\":[");
  for (size_t i = 0; i < ranked.size(); ++i) {
    if (i) w.Char(',');
    w.Raw("{\"term\":");
    w.String(ranked[i].first);
    w.Raw(",\"df\":");
    w.UInt(ranked[i].second.df);
    w.Char('}');
  }
  w.Raw("],\"matched\":");
  w.UInt(matched);
  w.Char('}');
  return out;
}

}  // namespace tessera
