// A ranked read reranked by a model the core does not run (feature rerank), in two phases: the
// core ranks the candidate window ((offset + top_k) x rerank.overscan deep) and reads each
// candidate's text; the caller has the model score those texts; the core orders the window by the
// scores, applies limit_per, cuts the page and writes the hits. No ranking happens outside it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tessera/cancel.h"

namespace tessera {

class RerankWindow {
 public:
  virtual ~RerankWindow() = default;
  // False when the body asked for no rerank (rerank: null, or the word only inside a value): no
  // texts, and Finish({}) answers the plain read.
  virtual bool reranks() const = 0;
  // The text the model reads each candidate against: rerank.query, or the route's own text.
  virtual const std::string& query() const = 0;
  // Each candidate's text (its rerank.text_attr, a non-empty Str), best first; nullopt: none, so
  // the model does not score it and it follows the scored ones in its rank.
  virtual const std::vector<std::optional<std::string>>& texts() const = 0;
  // scores: the model's, one per candidate with a text, in order. The hits' JSON bytes (with
  // {hits, plan} when the request asked for the plan). Error(400) for a wrong count of scores or a
  // score that is not a finite number.
  virtual std::string Finish(const std::vector<double>& scores, const CancelToken& cancel) = 0;
};

}  // namespace tessera
