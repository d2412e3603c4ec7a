// The token index of one field: rows by token, tokenized exactly as the token predicates tokenize
// (text_match.h). Serves ContainsAllTokens, ContainsTokenSequence and ContainsAnyToken.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "index/filter_index_postings.h"

namespace tessera {

class TokenIndex {
 public:
  class Builder {
   public:
    void Add(std::string_view text, uint32_t row);  // rows ascending
    TokenIndex Finish(uint32_t /*segment_rows*/) { return TokenIndex(postings_.Finish()); }

   private:
    PostingIndex::Builder postings_;
  };

  // Rows holding every token (across a List's elements, so a superset of rows where one element
  // holds them all); nullopt for no tokens, which the predicate treats as no condition.
  std::optional<std::vector<uint32_t>> AllTokens(const std::vector<std::string>& tokens) const;
  // Rows holding any token; none for no tokens, which ContainsAnyToken never matches.
  std::vector<uint32_t> AnyToken(const std::vector<std::string>& tokens, uint32_t segment_rows) const;
  size_t bytes() const { return postings_.bytes(); }
  bool mapped() const { return postings_.mapped(); }

  TokenIndex() = default;  // empty, for a BlockReader to fill
  template <typename A, typename Self>
  static void Layout(A& a, Self& t) {
    a(t.postings_);
  }

 private:
  explicit TokenIndex(PostingIndex postings) : postings_(std::move(postings)) {}
  PostingIndex postings_;
};

}  // namespace tessera
