// A field's name as errors spell it ("records[3].attrs.color"), put together only when an error is
// raised: reading a large body names thousands of fields and refuses none of them.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace tessera {

// It points into what it was made from (a string, a parent name), so it lives no longer than a
// call's arguments or the locals of a scope inside theirs.
class FieldName {
 public:
  FieldName(const std::string& name) : text_(name) {}
  FieldName(const char* name) : text_(name) {}
  // parent.member
  FieldName(const FieldName& parent, std::string_view member) : parent_(&parent), text_(member) {}
  // parent[index]
  FieldName(const FieldName& parent, size_t index) : parent_(&parent), index_(index), indexed_(true) {}

  std::string str() const {
    std::string out = parent_ == nullptr ? std::string() : parent_->str();
    if (indexed_) return out + "[" + std::to_string(index_) + "]";
    if (parent_ != nullptr) out += '.';
    return out.append(text_);
  }

 private:
  const FieldName* parent_ = nullptr;
  std::string_view text_;
  size_t index_ = 0;
  bool indexed_ = false;
};

inline std::string operator+(const FieldName& name, std::string_view more) { return name.str().append(more); }

}  // namespace tessera
