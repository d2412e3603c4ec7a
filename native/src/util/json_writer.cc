#include "util/json_writer.h"

#include <charconv>
#include <cmath>

#include "tessera/error.h"

namespace tessera {

void JsonWriter::Open(char c) {
  BeforeValue();
  if (depth_ == kMaxDepth) throw Internal("JSON output nested too deeply");
  ++depth_;
  nonempty_ &= ~(uint64_t(1) << (depth_ - 1));
  out_->push_back(c);
}

void JsonWriter::Close(char c) {
  --depth_;
  out_->push_back(c);
}

void JsonWriter::Key(std::string_view key) {
  BeforeValue();
  Escaped(key);
  out_->push_back(':');
  after_key_ = true;
}

void JsonWriter::String(std::string_view s) {
  BeforeValue();
  Escaped(s);
}

void JsonWriter::Escaped(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  out_->push_back('"');
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out_->append(s.data() + start, i - start);
    start = i + 1;
    switch (c) {
      case '"': out_->append("\\\""); break;
      case '\\': out_->append("\\\\"); break;
      case '\n': out_->append("\\n"); break;
      case '\r': out_->append("\\r"); break;
      case '\t': out_->append("\\t"); break;
      default: {
        char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        out_->append(esc, 6);
      }
    }
  }
  out_->append(s.data() + start, s.size() - start);
  out_->push_back('"');
}

void JsonWriter::Int(int64_t v) {
  BeforeValue();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out_->append(buf, r.ptr);
}

void JsonWriter::UInt(uint64_t v) {
  BeforeValue();
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out_->append(buf, r.ptr);
}

void JsonWriter::Bool(bool v) {
  BeforeValue();
  out_->append(v ? "true" : "false");
}

void JsonWriter::Null() {
  BeforeValue();
  out_->append("null");
}

void JsonWriter::Double(double v) {
  BeforeValue();
  if (!std::isfinite(v)) {  // unreachable for parsed input; keeps the output valid JSON
    out_->append("null");
    return;
  }
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string_view text(buf, size_t(r.ptr - buf));
  out_->append(text);
  if (text.find_first_of(".eE") == std::string_view::npos) out_->append(".0");
}

void JsonWriter::Float(float v) {
  BeforeValue();
  if (!std::isfinite(v)) {
    out_->append("null");
    return;
  }
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out_->append(buf, r.ptr);
}

}  // namespace tessera
