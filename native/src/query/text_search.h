// BM25 full-text search over declared fields, and its fusion with vector search. The formula and
// every rule the spec leaves open are in docs/full-text.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "query/context.h"
#include "query/ranked_page.h"
#include "query/text_params.h"
#include "query/text_prepare.h"

namespace tessera {

// A text query's scope and clauses prepared against one snapshot (analysis, prefix expansion,
// idf): everything before the postings are read, and how many postings that will be.
struct PreparedText {
  std::vector<const CollectionState*> scope;
  std::vector<PreparedCollection> prepared;  // parallel to scope
  uint64_t postings = 0;                     // the document frequencies of every prepared term
};
PreparedText PrepareText(const Snapshot& snap, const TextQuery& q, const std::vector<std::string>& scope);

// /text-search with its text prepared beforehand (Store::Prepare does so where the request arrives
// when that is cheap, to tell whether the whole search is).
struct PreparedTextSearch {
  TextSearchParams params;
  PreparedText text;
};

// The rankings before their pages are cut (a rerank's window). The snapshot the text was prepared
// against must be ctx's.
RankedPage RankTextPage(const QueryContext& ctx, const PreparedTextSearch& search);
RankedPage RankHybridPage(const QueryContext& ctx, const HybridParams& params);

// Each returns JSON bytes: the hit array. The snapshot the text was prepared against must be ctx's.
std::string TextSearch(const QueryContext& ctx, const TextSearchParams& params);
std::string RunTextSearch(const QueryContext& ctx, const PreparedTextSearch& search);
std::string HybridSearch(const QueryContext& ctx, const HybridParams& params);

}  // namespace tessera
