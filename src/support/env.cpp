#include "support/env.hpp"

#include <cctype>
#include <cstdlib>

#include "croq/error.hpp"

namespace croq::support {

std::optional<std::string> env_string(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

std::optional<std::uint64_t> env_bytes(const char* name) {
  auto text = env_string(name);
  if (!text) return std::nullopt;
  std::size_t pos = 0;
  std::uint64_t value = 0;
  while (pos < text->size() && std::isdigit(static_cast<unsigned char>((*text)[pos]))) {
    value = value * 10 + static_cast<std::uint64_t>((*text)[pos] - '0');
    ++pos;
  }
  std::uint64_t scale = 1;
  if (pos < text->size()) {
    switch (std::toupper(static_cast<unsigned char>((*text)[pos]))) {
      case 'K': scale = 1ull << 10; break;
      case 'M': scale = 1ull << 20; break;
      case 'G': scale = 1ull << 30; break;
      default: scale = 0;
    }
    ++pos;
  }
  if (pos == 0 || pos != text->size() || scale == 0)
    throw Error(std::string(name) + "=" + *text +
                ": expected a byte count such as 1048576, 512K, 64M or 2G");
  return value * scale;
}

}  // namespace croq::support
