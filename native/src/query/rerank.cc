#include "query/rerank.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "query/ranking.h"
#include "storage/field_reader.h"
#include "tessera/error.h"
#include "util/value.h"

namespace tessera {
namespace {

const std::string kNoQuery;

// The candidates a rerank re-scores: (offset + top_k) x overscan, at most kMaxRankDepth.
uint32_t WindowDepth(const SearchParams& p) {
  return uint32_t(std::min<uint64_t>(kMaxRankDepth, (uint64_t(p.offset) + p.top_k) * p.rerank->overscan));
}

class CandidateWindow final : public RerankWindow {
 public:
  CandidateWindow(SnapshotPtr snap, const QueryEnvironment& env, RankedPage page, SearchParams p)
      : snap_(std::move(snap)), env_(env), page_(std::move(page)), params_(std::move(p)) {
    if (!params_.rerank) return;
    FieldReader field(params_.rerank->text_attr);
    texts_.reserve(page_.ranked.size());
    for (const Candidate& c : page_.ranked) {
      ValueView v;
      bool readable = field.Find(*c.segment, c.row, &v) && v.tag == ValueTag::kStr && !v.s.empty();
      texts_.push_back(readable ? std::optional<std::string>(std::string(v.s)) : std::nullopt);
    }
  }

  bool reranks() const override { return params_.rerank.has_value(); }
  const std::string& query() const override { return params_.rerank ? params_.rerank->query : kNoQuery; }
  const std::vector<std::optional<std::string>>& texts() const override { return texts_; }

  std::string Finish(const std::vector<double>& scores, const CancelToken& cancel) override {
    QueryContext ctx{*snap_, env_.metric, *env_.pool, cancel, env_.ann, env_.quantization};
    size_t readable = size_t(std::count_if(texts_.begin(), texts_.end(), [](const auto& t) { return t.has_value(); }));
    if (scores.size() != readable)
      throw BadRequest("rerank: " + std::to_string(scores.size()) + " scores for " + std::to_string(readable) + " candidate texts");
    if (!params_.rerank) return PageJson(ctx, page_, params_);
    // The scored candidates by their new score, then the ones without a text in their rank.
    std::vector<Candidate> scored, unscored;
    for (size_t i = 0, next = 0; i < page_.ranked.size(); ++i) {
      if (!texts_[i]) {
        unscored.push_back(page_.ranked[i]);
        continue;
      }
      double score = scores[next++];
      if (!std::isfinite(score)) throw BadRequest("rerank: a score is not a finite number");
      Candidate c = page_.ranked[i];
      c.score = float(score);
      scored.push_back(c);
    }
    std::sort(scored.begin(), scored.end(), RanksBefore);
    scored.insert(scored.end(), unscored.begin(), unscored.end());
    page_.ranked = params_.limit_per ? CapPerValue(std::move(scored), *params_.limit_per) : std::move(scored);
    return PageJson(ctx, page_, params_);
  }

 private:
  SnapshotPtr snap_;  // keeps the candidates' segments readable
  QueryEnvironment env_;
  RankedPage page_;
  SearchParams params_;
  std::vector<std::optional<std::string>> texts_;
};

}  // namespace

SearchParams WindowParams(const SearchParams& p) {
  if (!p.rerank) return p;
  if (p.rerank->query.empty()) throw BadRequest("rerank.query is required here: the text the cross-encoder reads against each candidate");
  SearchParams window = p;
  window.offset = 0;
  window.top_k = WindowDepth(p);
  window.limit_per.reset();
  window.expand.reset();
  window.rerank.reset();
  return window;
}

std::unique_ptr<RerankWindow> MakeRerankWindow(SnapshotPtr snap, const QueryEnvironment& env, RankedPage page, SearchParams p) {
  // Diversity ranks at least its own window: the model scores the window only.
  if (p.rerank && page.ranked.size() > WindowDepth(p)) page.ranked.resize(WindowDepth(p));
  return std::make_unique<CandidateWindow>(std::move(snap), env, std::move(page), std::move(p));
}

}  // namespace tessera
