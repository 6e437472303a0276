#include "support/env.hpp"

#include <cstdlib>
#include <limits>
#include <mutex>
#include <set>

#include "croq/error.hpp"
#include "support/log.hpp"

namespace croq::support {

std::optional<std::string> env_string(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

std::string lower_ascii(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::uint64_t parse_byte_count(std::string_view text, const std::string& what) {
  const std::string prefix = what + "=" + std::string(text) + ": ";
  auto malformed = [&]() -> Error {
    return Error(prefix + "expected a byte count such as 1048576, 512K, 64M or 2G");
  };
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::size_t pos = 0;
  std::uint64_t value = 0;
  bool too_large = false;
  for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos) {
    const std::uint64_t digit = static_cast<std::uint64_t>(text[pos] - '0');
    if (value > (kMax - digit) / 10) too_large = true;
    else value = value * 10 + digit;
  }
  if (pos == 0) throw malformed();  // no digits: "", "K", "-1", " 5"
  unsigned shift = 0;
  if (pos < text.size()) {
    switch (text[pos]) {
      case 'k': case 'K': shift = 10; break;
      case 'm': case 'M': shift = 20; break;
      case 'g': case 'G': shift = 30; break;
      case 't': case 'T': shift = 40; break;
      default: throw malformed();
    }
    if (++pos != text.size()) throw malformed();
  }
  if (too_large || value > (kMax >> shift))
    throw Error(prefix + "byte count too large (at most " + std::to_string(kMax) + ")");
  return value << shift;
}

std::optional<std::uint64_t> env_bytes(const char* name) {
  auto text = env_string(name);
  if (!text) return std::nullopt;
  return parse_byte_count(*text, name);
}

std::optional<std::chrono::milliseconds> env_milliseconds(const char* name, std::uint64_t max_ms) {
  auto text = env_string(name);
  if (!text) return std::nullopt;
  std::uint64_t value = 0;
  bool ok = text->size() <= 12 && text->find_first_not_of("0123456789") == std::string::npos;
  if (ok)
    for (char c : *text) value = value * 10 + static_cast<std::uint64_t>(c - '0');
  if (!ok || value > max_ms)
    throw Error(std::string(name) + "=" + *text + ": expected a number of milliseconds from 0 to " +
                std::to_string(max_ms));
  return std::chrono::milliseconds(value);
}

std::optional<bool> parse_flag(std::string_view text) {
  const std::string v = lower_ascii(text);
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  return std::nullopt;
}

bool env_flag(const char* name, bool fallback) {
  auto text = env_string(name);
  if (!text) return fallback;
  if (auto flag = parse_flag(*text)) return *flag;
  // Once per variable and value: several parts of the library read the same knob.
  static std::mutex mutex;
  static std::set<std::string> warned;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!warned.insert(std::string(name) + "=" + *text).second) return fallback;
  }
  log().warn("{}={} is not a yes/no value (1/true/yes/on or 0/false/no/off); using {}", name, *text,
             fallback ? "on" : "off");
  return fallback;
}

}  // namespace croq::support
