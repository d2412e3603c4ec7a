// Where a JSON text first breaks the grammar, for the 400 a malformed body answers. simdjson says
// only that a document is malformed (TAPE_ERROR); this walks the text again, once a parse failed,
// to name the byte, its line and column, and what the grammar expected there.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace tessera {

struct JsonSyntaxError {
  size_t offset;  // bytes from the start of the text
  size_t line;    // 1-based
  size_t column;  // 1-based, in bytes
  std::string expected;
  std::string found;  // the byte there, quoted, or "the end of the body"
};

// The first place `text` is not RFC 8259 JSON; nullopt when its grammar holds (a parse can still
// fail on its numbers' range, its UTF-8 or its depth, which the parser names itself).
std::optional<JsonSyntaxError> FindJsonSyntaxError(std::string_view text);

// "malformed JSON at byte 12 (line 2, column 5): expected ',' or '}', found ']'".
std::string Describe(const JsonSyntaxError& e);

}  // namespace tessera
