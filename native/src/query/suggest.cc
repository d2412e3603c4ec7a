#include "query/suggest.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

#include "analysis/analyzer.h"
#include "analysis/fuzzy.h"
#include "index/segment_filter.h"
#include "query/scan.h"
#include "query/text_corpus.h"
#include "util/json_writer.h"

namespace tessera {
namespace {

constexpr size_t kMaxCompletions = 256;
constexpr size_t kMaxFuzzyWordChars = 64;

// Typo budget by the final word's length in characters.
int EditBudget(size_t chars) {
  if (chars < 4 || chars > kMaxFuzzyWordChars) return 0;
  return chars < 8 ? 1 : 2;
}

// The documents of one collection that a completion's df counts: live ones passing the filter and
// holding every earlier term. Unconditioned when there is neither; dfs are memoized per term.
class DocCondition {
 public:
  DocCondition(const CollectionText& text, int field, std::vector<std::string> earlier, const Filter& filter)
      : text_(text), field_(field), earlier_(std::move(earlier)), filter_(filter) {}

  uint64_t DocFreq(const std::string& term, const CancelToken& cancel) {
    auto [it, fresh] = df_.try_emplace(term, 0);
    if (fresh) it->second = Count(term, cancel);
    return it->second;
  }

 private:
  uint64_t Count(std::string_view term, const CancelToken& cancel) {
    if (earlier_.empty() && filter_.empty()) return text_.DocFreq(field_, term);
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

  // Marks each chunk's allowed rows: the rarest earlier term's rows that hold the others too (or
  // every row with tokens when there are no earlier terms), live and passing the filter.
  void Resolve(const CancelToken& cancel) {
    allowed_.emplace();
    text_.ForEachChunk([&](const SegmentRef& ref, const TextChunk& chunk) {
      cancel.ThrowIfCancelled();
      const FieldPostings& fp = chunk.field(size_t(field_));
      std::vector<uint8_t> allowed(chunk.end() - chunk.begin(), 0);
      SegmentFilter filter(filter_, *ref.segment);
      auto admit = [&](uint32_t row) {
        if (text_.Visible(ref, row) && filter.Matches(row)) allowed[row - chunk.begin()] = 1;
      };
      if (earlier_.empty()) {
        for (uint32_t r = chunk.begin(); r < chunk.end(); ++r)
          if (fp.doc_len[r - chunk.begin()] > 0) admit(r);
      } else {
        std::vector<std::pair<uint32_t, uint32_t>> lists;  // postings range of each earlier term
        for (const std::string& term : earlier_) {
          int64_t t = fp.Find(term);
          if (t < 0) break;
          lists.emplace_back(fp.term_start[size_t(t)], fp.term_start[size_t(t) + 1]);
        }
        if (lists.size() == earlier_.size()) {
          std::sort(lists.begin(), lists.end(), [](auto a, auto b) { return a.second - a.first < b.second - b.first; });
          auto holds = [&](std::pair<uint32_t, uint32_t> l, uint32_t row) {
            return std::binary_search(fp.docs.begin() + l.first, fp.docs.begin() + l.second, row);
          };
          for (uint32_t i = lists[0].first; i < lists[0].second; ++i) {
            uint32_t row = fp.docs[i];
            if (std::all_of(lists.begin() + 1, lists.end(), [&](auto l) { return holds(l, row); })) admit(row);
          }
        }
      }
      allowed_->push_back(std::move(allowed));
    });
  }

  const CollectionText& text_;
  int field_;
  std::vector<std::string> earlier_;
  const Filter& filter_;
  std::optional<std::vector<std::vector<uint8_t>>> allowed_;  // per chunk, per row
  std::unordered_map<std::string, uint64_t> df_;
};

struct Completion {
  uint64_t df = 0;
  int distance = 0;
};

// One collection in scope that has the field.
struct Source {
  CollectionText text;
  int field;
  std::string folded;                     // the final word as the field folds it
  std::optional<DocCondition> condition;  // refers to text, so built once the source has its place
};

// Adds the source's completions into out: its surface words starting with prefix that match
// accepts (it returns their edit distance, or -1 to reject), with df > 0.
template <typename Match>
void Collect(Source& s, std::string_view prefix, const CancelToken& cancel, std::map<std::string, Completion>& out, Match&& match) {
  std::map<std::string, std::pair<std::string, int>, std::less<>> words;  // surface -> (term, distance)
  size_t seen = 0;
  s.text.ForEachSurface(s.field, prefix, [&](std::string_view surface, std::string_view term) {
    if (++seen % kRowsPerCancelCheck == 0) cancel.ThrowIfCancelled();
    if (words.count(surface)) return;
    int d = match(surface);
    if (d >= 0) words.emplace(surface, std::make_pair(std::string(term), d));
  });
  for (const auto& [surface, word] : words) {
    uint64_t df = s.condition->DocFreq(word.first, cancel);
    if (df == 0) continue;
    auto [it, fresh] = out.try_emplace(surface, Completion{0, word.second});
    it->second.df += df;
    it->second.distance = std::min(it->second.distance, word.second);
  }
}

}  // namespace

// Completions come from a field's surface words, each counted by the documents (filtered, and
// holding the earlier words) that carry its stem.
std::string Suggest(const QueryContext& ctx, const SuggestParams& p) {
  std::map<std::string, Completion> completions;
  std::vector<WordSpan> words = SplitWords(p.prefix);
  // A prefix ending in a separator has no word being typed; limit 0 asks for nothing.
  if (p.limit > 0 && !words.empty() && words.back().end == p.prefix.size()) {
    std::string_view final_word = std::string_view(p.prefix).substr(words.back().begin);
    std::vector<std::unique_ptr<Source>> sources;
    for (const CollectionState* c : ResolveScope(ctx.snap, p.scope)) {
      CollectionText text(*c, ctx.snap.version);
      int field = text.FieldIndex(p.field);
      if (field < 0) continue;
      Analyzer analyzer(text.field(field));
      std::set<std::string> earlier;
      for (const AnalyzedToken& t : analyzer.Analyze(std::string_view(p.prefix).substr(0, words.back().begin))) earlier.insert(t.term);
      sources.push_back(std::make_unique<Source>(Source{text, field, analyzer.Fold(final_word), std::nullopt}));
      sources.back()->condition.emplace(sources.back()->text, field, std::vector<std::string>(earlier.begin(), earlier.end()), p.filter);
    }
    for (auto& s : sources) Collect(*s, s->folded, ctx.cancel, completions, [](std::string_view) { return 0; });
    int budget = p.fuzzy ? EditBudget(CountChars(final_word)) : 0;
    if (completions.empty() && budget > 0) {
      for (auto& s : sources) {
        FuzzyMatcher matcher(s->folded, budget);
        Collect(*s, "", ctx.cancel, completions, [&](std::string_view surface) {
          int d = matcher.PrefixDistance(surface);
          return d <= budget ? d : -1;
        });
      }
    }
  }
  std::vector<std::pair<std::string, Completion>> ranked(completions.begin(), completions.end());
  // The exact leg's distances are all 0, so this is df desc, term asc; the fuzzy leg's nearest first.
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    if (a.second.distance != b.second.distance) return a.second.distance < b.second.distance;
    if (a.second.df != b.second.df) return a.second.df > b.second.df;
    return a.first < b.first;
  });
  size_t matched = ranked.size();
  ranked.resize(std::min({ranked.size(), kMaxCompletions, size_t(p.limit)}));
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("suggestions");
  w.BeginArray();
  for (const auto& [term, completion] : ranked) {
    JsonWriter::Scope suggestion = w.Object();
    w.Member("term", term);
    w.Member("df", completion.df);
  }
  w.EndArray();
  w.Member("matched", matched);
  w.EndObject();
  return out;
}

}  // namespace tessera
