#include "query/ranked_page.h"

#include "query/expand.h"

namespace tessera {

std::string PageJson(const QueryContext& ctx, const RankedPage& page, const SearchParams& p) {
  auto hits = [&](JsonWriter& w) {
    HitExtras extras{page.annotator ? page.annotator(ctx) : nullptr, ExpandPage(ctx, p.expand, page.ranked, p.offset, p.top_k, page.names)};
    WriteHits(w, page.ranked, p.offset, p.top_k, page.names, p.projection, extras);
  };
  if (p.plan && page.plan) return HitsAndPlanJson(hits, *page.plan);
  return JsonText(hits);
}

}  // namespace tessera
