// The contract every fuzz target holds a request-body parser to: an input either parses or is
// refused with Error(400). Any other status, any other exception, a crash or a sanitizer report is
// a bug; the first two abort here with the message so libFuzzer saves the input.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

#include "tessera/error.h"

namespace tessera::fuzz {

inline std::string_view Body(const uint8_t* data, size_t size) { return {reinterpret_cast<const char*>(data), size}; }

[[noreturn]] inline void BrokenContract(const char* what, const char* message) {
  std::fprintf(stderr, "fuzz contract broken: %s: %s\n", what, message);
  std::abort();
}

// Runs parse(); a refusal must be Error(400). what names the parser in the report.
template <typename Parse>
void ParsesOrRefuses(const char* what, Parse&& parse) {
  try {
    parse();
  } catch (const Error& e) {
    if (e.status() != Status::kBadRequest) BrokenContract(what, e.what());
  } catch (const std::exception& e) {
    BrokenContract(what, e.what());
  } catch (...) {
    BrokenContract(what, "a non-standard exception");
  }
}

}  // namespace tessera::fuzz
