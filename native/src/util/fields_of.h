// A struct's fields described once serve both directions of a codec: the writer sees a const
// struct, the reader a mutable one. FieldsOf<F, T> matches both.
#pragma once
#include <type_traits>

namespace tessera {

template <typename F, typename T>
concept FieldsOf = std::is_same_v<std::remove_const_t<F>, T>;

}  // namespace tessera
