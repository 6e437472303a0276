// Small text helpers for messages.
#pragma once

#include <cstdint>
#include <string>

namespace croq::support {

// "1,048,576": counts in messages.
inline std::string group_digits(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

}  // namespace croq::support
