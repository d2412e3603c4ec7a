// Where a request body's unusable number is. simdjson refuses a body with an integer past 64 bits,
// a float past the double range or a NaN without saying where; this finds the first such token
// and the field path it stands at (records[3].vector[7]), so the 400 can name the field.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace tessera {

struct BadNumber {
  enum class Kind { kIntegerTooBig, kFloatOutOfRange, kNotANumber };
  Kind kind;
  std::string path;   // "records[3].vector[7]"; "the body" at the top level
  std::string token;  // as written, cut to 40 characters
};

// The first number token in text that is out of range, malformed, or NaN/Infinity; nullopt when
// there is none (or the text goes wrong some other way first).
std::optional<BadNumber> FindBadNumber(std::string_view text);

}  // namespace tessera
