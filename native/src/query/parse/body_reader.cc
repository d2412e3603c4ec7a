#include "query/parse/body_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <new>

#include "query/parse/bad_number.h"
#include "tessera/error.h"
#include "tessera/json_syntax.h"
#include "util/json_reader.h"

namespace tessera {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

void Bad(const std::string& m) { throw BadRequest(m); }

namespace {

// The 400 for a number the parser refused, naming where it stands; nothing when it cannot be found.
void RefuseBadNumber(std::string_view body) {
  std::optional<BadNumber> bad = FindBadNumber(body);
  if (!bad) return;
  switch (bad->kind) {
    case BadNumber::Kind::kIntegerTooBig: {
      bool value = bad->path.size() > 4 && bad->path.ends_with(".Int");
      Bad(bad->path + " is " + bad->token + ", out of range: integers must fit in signed 64 bits" +
          (value ? "; a Float holds larger numbers" : ""));
    }
    case BadNumber::Kind::kFloatOutOfRange: Bad(bad->path + " is " + bad->token + ": malformed or outside the 64-bit float range");
    case BadNumber::Kind::kNotANumber: Bad(bad->path + " is " + bad->token + ": NaN and Infinity have no JSON form; send a finite number");
  }
}

#if defined(__SANITIZE_ADDRESS__)
#define TESSERA_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TESSERA_ADDRESS_SANITIZER 1
#endif
#endif
#ifdef TESSERA_ADDRESS_SANITIZER
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif

// simdjson reads up to SIMDJSON_PADDING bytes past the end of its input, by design; what they hold
// does not change the result. When they lie in the body's last page (4 KiB, or within a larger
// page), they are mapped whatever they belong to, and the body is parsed where it is: a copy of a
// megabyte body out of memory cost as much as parsing it. An address sanitizer would report the
// read, so those builds always copy.
bool PaddingReadable(std::string_view body) {
  constexpr uintptr_t kPage = 4096;
  if (kAddressSanitizer || body.empty()) return false;
  uintptr_t last = reinterpret_cast<uintptr_t>(body.data()) + body.size() - 1;
  return last % kPage + simdjson::SIMDJSON_PADDING < kPage;
}

// How large a thread's parser buffers are (about 15 bytes per body byte). They grow by half again
// when a body outgrows them: bodies of a stream of upserts differ by a few bytes, and sized to each
// one exactly they were reallocated, and megabytes of fresh pages faulted in (several microseconds a
// page on a VM), every few batches. They shrink once kSmallRun bodies in a row have each needed under
// a quarter of them, so a thread that parsed one 64 MiB body does not keep ~1 GB for good, while a
// stream of similar bodies, or large bodies among small ones, keeps its buffers.
class ParserSizing {
 public:
  // The capacity to hold before parsing a body of len bytes; capacity itself when it stays.
  size_t For(size_t len, size_t capacity) {
    // Not a small body: a run of small ones ends here, and a body they cannot hold grows them.
    if (capacity <= kShrinkAbove || len >= capacity / 4) {
      small_run_ = 0;
      small_max_ = 0;
      return capacity == 0 || len > capacity ? std::max({len, kSmallest, capacity + capacity / 2}) : capacity;
    }
    small_max_ = std::max(small_max_, len);
    if (++small_run_ < kSmallRun) return capacity;
    size_t shrunk = std::max(kSmallest, small_max_ + small_max_ / 2);
    small_run_ = 0;
    small_max_ = 0;
    return shrunk;
  }

 private:
  static constexpr size_t kSmallest = 64 << 10;
  static constexpr size_t kShrinkAbove = 4 << 20;  // below it, buffers (~60 MB) are kept
  static constexpr uint32_t kSmallRun = 16;
  uint32_t small_run_ = 0;
  size_t small_max_ = 0;  // the largest body of the run
};

// The calling thread's parser, its document and a padded copy of the body when one is needed,
// sized by ParserSizing.
class ThreadParser {
 public:
  simdjson::simdjson_result<element> Parse(std::string_view body) {
    if (!PaddingReadable(body)) return Parse("", body, "");
    if (simdjson::error_code e = Reserve(body.size(), false)) return e;
    return parser_.parse_into_document(doc_, body.data(), body.size(), false);
  }

  // head + body + tail, copied.
  simdjson::simdjson_result<element> Parse(std::string_view head, std::string_view body, std::string_view tail) {
    size_t len = head.size() + body.size() + tail.size();
    if (simdjson::error_code e = Reserve(len, true)) return e;
    char* text = copy_.get();
    std::memcpy(text, head.data(), head.size());
    std::memcpy(text + head.size(), body.data(), body.size());
    std::memcpy(text + head.size() + body.size(), tail.data(), tail.size());
    std::memset(text + len, 0, simdjson::SIMDJSON_PADDING);
    return parser_.parse_into_document(doc_, text, len, false);
  }

  size_t capacity() const { return capacity_; }

 private:
  // Room for a body of len bytes, and a padded copy of it when copy is set.
  simdjson::error_code Reserve(size_t len, bool copy) {
    if (len > parser_.max_capacity()) return simdjson::CAPACITY;
    size_t capacity = std::min(sizing_.For(len, capacity_), parser_.max_capacity());
    if (capacity != capacity_) {
      capacity_ = 0;
      copy_capacity_ = 0;
      copy_.reset();
      if (simdjson::error_code e = parser_.allocate(capacity)) return e;
      if (simdjson::error_code e = doc_.allocate(capacity)) return e;
      capacity_ = capacity;
    }
    if (copy && (copy_ == nullptr || len > copy_capacity_)) {
      copy_.reset(new (std::nothrow) char[capacity_ + simdjson::SIMDJSON_PADDING]);
      if (copy_ == nullptr) return simdjson::MEMALLOC;
      copy_capacity_ = capacity_;
    }
    return simdjson::SUCCESS;
  }

  ParserSizing sizing_;
  simdjson::dom::parser parser_;
  simdjson::dom::document doc_;
  std::unique_ptr<char[]> copy_;
  size_t capacity_ = 0;       // of the parser and its document
  size_t copy_capacity_ = 0;  // of copy_ (0 until a body needs one)
};

}  // namespace

namespace {
thread_local ThreadParser thread_parser;
}  // namespace

size_t ThreadParserCapacity() { return thread_parser.capacity(); }

RequestBody::RequestBody(std::string_view body) { Check(thread_parser.Parse(body), body); }

RequestBody::RequestBody(std::string_view head, std::string_view body, std::string_view tail) {
  Check(thread_parser.Parse(head, body, tail), body);
}

void RequestBody::Check(simdjson::simdjson_result<element> result, std::string_view body) {
  if (result.error() == simdjson::BIGINT_ERROR || result.error() == simdjson::NUMBER_ERROR || result.error() == simdjson::TAPE_ERROR ||
      result.error() == simdjson::INCORRECT_TYPE)
    RefuseBadNumber(body);
  switch (result.error()) {
    case simdjson::SUCCESS: break;
    case simdjson::EMPTY: Bad("request body is empty; send a JSON object");
    case simdjson::BIGINT_ERROR: Bad("a number is out of range: integers must fit in signed 64 bits (use Float for larger)");
    case simdjson::NUMBER_ERROR: Bad("a number is malformed or outside the 64-bit float range");
    case simdjson::UTF8_ERROR: Bad("the body is not valid UTF-8");
    case simdjson::DEPTH_ERROR: Bad("the JSON is nested too deeply");
    case simdjson::MEMALLOC: throw Error(Status::kInsufficientStorage, "out of memory parsing the request body; nothing was done");
    default:
      if (body.empty()) Bad("request body is empty; send a JSON object");
      if (std::optional<JsonSyntaxError> where = FindJsonSyntaxError(body)) Bad(Describe(*where));
      Bad(std::string("malformed JSON: ") + simdjson::error_message(result.error()));
  }
  root_ = result.value();
}

object ExpectObject(element e, const FieldName& field) {
  if (e.type() != element_type::OBJECT) Bad(field + " must be an object, got " + JsonTypeName(e.type()));
  return e.get_object().value();
}

simdjson::dom::array ExpectArray(element e, const FieldName& field) {
  if (e.type() != element_type::ARRAY) Bad(field + " must be an array, got " + JsonTypeName(e.type()));
  return e.get_array().value();
}

double ExpectNumber(element e, const FieldName& field) {
  switch (e.type()) {
    case element_type::INT64: return double(e.get_int64().value());
    case element_type::UINT64: return double(e.get_uint64().value());
    case element_type::DOUBLE: return e.get_double().value();
    default: Bad(field + " must be a number, got " + JsonTypeName(e.type()));
  }
}

bool ExpectBool(element e, const FieldName& field) {
  if (e.type() != element_type::BOOL) Bad(field + " must be true or false, got " + JsonTypeName(e.type()));
  return e.get_bool().value();
}

uint32_t ExpectCount(element e, const FieldName& field, uint32_t max) {
  if (e.type() == element_type::DOUBLE) {
    double d = e.get_double().value();
    if (d != std::floor(d)) Bad(field + " must be a whole number, got " + std::to_string(d));
  }
  if (e.type() == element_type::INT64 && e.get_int64().value() < 0) Bad(field + " must not be negative");
  double v = ExpectNumber(e, field);
  if (v < 0) Bad(field + " must not be negative");
  if (v > max) Bad(field + " must be at most " + std::to_string(max));
  return uint32_t(v);
}

int64_t ExpectInt64(element e, const FieldName& field) {
  if (e.type() != element_type::INT64) Bad(field + " must be a whole number of at most 19 digits");
  return e.get_int64().value();
}

std::vector<std::string> ExpectStrings(element e, const FieldName& field) {
  std::vector<std::string> out;
  size_t i = 0;
  for (element item : ExpectArray(e, field)) out.push_back(JsonString(item, FieldName(field, i++)));
  return out;
}

void UnknownField(std::string_view key, const std::string& where, const char* allowed) {
  Bad("unknown field '" + std::string(key) + "'" + where + "; allowed: " + allowed);
}

namespace {

void CheckLength(size_t n, const FieldName& field, uint32_t dim) {
  if (dim == 0) Bad(field + ": this store has dimension 0 (keyword-only) and holds no vectors");
  if (n != dim) Bad(field + " has length " + std::to_string(n) + " but the store dimension is " + std::to_string(dim));
}

// Squared lengths up to a quarter of the largest float keep every score finite in 32-bit floats:
// |a - b|^2 <= 2 (|a|^2 + |b|^2) and |a . b| <= |a| |b|. Cosine normalizes, so any length will do.
constexpr double kMaxSquaredLength = double(std::numeric_limits<float>::max()) / 4;

std::string Short(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", x);
  return text;
}

// Unit length under Cosine (norm: the sum of squares), which a zero vector cannot have; under the
// other metrics a length whose scores would overflow is refused.
void FinishVector(Metric metric, float* v, uint32_t dim, double norm, const FieldName& field) {
  if (metric != Metric::kCosine) {
    if (norm > kMaxSquaredLength)
      Bad(field + " is too long: its squared length " + Short(norm) + " would overflow 32-bit float scores (at most " +
          Short(kMaxSquaredLength) + "); scale the vectors down");
    return;
  }
  if (norm == 0) Bad(field + " has zero length; the Cosine metric needs a non-zero vector");
  float inv = float(1.0 / std::sqrt(norm));
  for (uint32_t k = 0; k < dim; ++k) v[k] *= inv;
}

}  // namespace

std::vector<float> CheckedVector(std::vector<float> v, const FieldName& field, uint32_t dim, Metric metric) {
  CheckLength(v.size(), field, dim);
  double norm = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) Bad(field + "[" + std::to_string(i) + "] must be a finite number, got " + std::to_string(v[i]));
    norm += double(v[i]) * v[i];
  }
  FinishVector(metric, v.data(), dim, norm, field);
  return v;
}

size_t ReadVector(element e, const FieldName& field, uint32_t dim, Metric metric, std::vector<float>* floats) {
  auto arr = ExpectArray(e, field);
  CheckLength(arr.size(), field, dim);
  size_t offset = floats->size();
  floats->resize(offset + dim);
  float* out = floats->data() + offset;
  size_t i = 0;
  double norm = 0;
  for (element x : arr) {
    double v;
    switch (x.type()) {
      case element_type::DOUBLE: v = x.get_double().value(); break;
      case element_type::INT64: v = double(x.get_int64().value()); break;
      case element_type::UINT64: v = double(x.get_uint64().value()); break;
      default: floats->resize(offset); Bad(field + "[" + std::to_string(i) + "] must be a number, got " + JsonTypeName(x.type()));
    }
    float f = float(v);
    if (!std::isfinite(f)) {
      floats->resize(offset);
      Bad(field + "[" + std::to_string(i) + "] is outside the 32-bit float range");
    }
    out[i++] = f;
    norm += double(f) * f;
  }
  FinishVector(metric, out, dim, norm, field);
  return offset;
}

double ExpectFinite(element e, const FieldName& field) {
  double v = ExpectNumber(e, field);
  if (!std::isfinite(v)) Bad(field + " must be a finite number");
  return v;
}

}  // namespace tessera
