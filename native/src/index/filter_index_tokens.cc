#include "index/filter_index_tokens.h"

#include "analysis/text_match.h"

namespace tessera {
namespace {

// 64-bit FNV-1a of the token's ASCII-folded bytes. Tokens that collide share a list, which only
// widens the candidates the filter verifies.
uint64_t TokenKey(std::string_view token) {
  uint64_t h = 14695981039346656037ull;
  for (char c : token) h = (h ^ uint8_t(AsciiLower(c))) * 1099511628211ull;
  return h;
}

std::vector<uint64_t> TokenKeys(const std::vector<std::string>& tokens) {
  std::vector<uint64_t> keys;
  for (const std::string& t : tokens) keys.push_back(TokenKey(t));
  return keys;
}

}  // namespace

void TokenIndex::Builder::Add(std::string_view text, uint32_t row) {
  TokenIterator it(text);
  std::string_view token;
  while (it.Next(&token)) postings_.Add(TokenKey(token), row);
}

std::optional<std::vector<uint32_t>> TokenIndex::AllTokens(const std::vector<std::string>& tokens) const {
  return postings_.FindAll(TokenKeys(tokens));
}

std::vector<uint32_t> TokenIndex::AnyToken(const std::vector<std::string>& tokens, uint32_t segment_rows) const {
  return postings_.FindAny(TokenKeys(tokens), segment_rows);
}

}  // namespace tessera
