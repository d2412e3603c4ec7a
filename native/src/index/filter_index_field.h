// One field of a collection's filter-index declaration: which structures to build for it.
#pragma once
#include <string>

namespace tessera {

struct FilterIndexField {
  std::string field;
  bool tokens = true;    // serves the three token predicates
  bool trigrams = true;  // serves Fuzzy and Regex
};

}  // namespace tessera
