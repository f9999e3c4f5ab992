// Reading a number out of a verdict or explain JSON document. nlohmann's get<int>() on a JSON
// float is a plain cast, undefined when the value does not fit (the verdict fuzzer found
// 4.4e69 read as an unsigned int): an integer field must hold a JSON integer in the type's
// range, else it is refused as a mistyped field.
#pragma once

#include <limits>
#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace rtagent {

/// `v` as T; for an integer T only a JSON integer that fits, otherwise a json::type_error the
/// readers already turn into "field mistyped" errors.
template <typename T, typename Json>
T JsonGet(const Json& v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    auto refuse = [&](const std::string& why) {
      return nlohmann::json::type_error::create(302, why, &v);
    };
    if (v.is_number_unsigned()) {
      const auto u = v.template get<unsigned long long>();
      if (u > static_cast<unsigned long long>(std::numeric_limits<T>::max())) throw refuse("integer out of range");
      return static_cast<T>(u);
    }
    if (v.is_number_integer()) {
      const auto i = v.template get<long long>();
      if (i < static_cast<long long>(std::numeric_limits<T>::min()) ||
          (i > 0 && static_cast<unsigned long long>(i) > static_cast<unsigned long long>(std::numeric_limits<T>::max()))) {
        throw refuse("integer out of range");
      }
      return static_cast<T>(i);
    }
    throw refuse(std::string("type must be an integer, but is ") + v.type_name());
  } else {
    return v.template get<T>();
  }
}

}  // namespace rtagent
