// POST /suggest: completions of the final word of a phrase from a full-text field's vocabulary.
#pragma once
#include <string>

#include "query/context.h"
#include "query/text_params.h"

namespace tessera {

// JSON bytes: {"suggestions": [{"term", "df"}, ...], "matched": n}.
std::string Suggest(const QueryContext& ctx, const SuggestParams& params);

}  // namespace tessera
