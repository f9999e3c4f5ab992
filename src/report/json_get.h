// Reading a number out of a verdict or explain JSON document. nlohmann's get<int>() on a JSON
// float is a plain cast, undefined when the value does not fit (the verdict fuzzer found
// 4.4e69 read as an unsigned int): an integer field must hold a JSON integer in the type's
// range, else it is refused as a mistyped field.
#pragma once

#include <cstdint>
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

/// A time written in µs as a JSON number (integer or not), as whole ns (+0.5 ns, then toward 0);
/// a value whose ns do not fit an int64_t is refused like a mistyped field, never cast.
template <typename Json>
int64_t JsonUsToNs(const Json& v) {
  const double us = JsonGet<double>(v);
  const double ns = us * 1000.0 + 0.5;
  // 2^63 as a double; anything at or past it (or not a number) has no int64_t.
  constexpr double kLimit = 9223372036854775808.0;
  if (!(ns > -kLimit && ns < kLimit)) throw nlohmann::json::type_error::create(302, "time out of range", &v);
  return static_cast<int64_t>(ns);
}

}  // namespace rtagent
