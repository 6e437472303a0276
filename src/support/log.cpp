#include "support/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

#include "support/env.hpp"

namespace croq::support {

std::optional<spdlog::level::level_enum> parse_log_level(std::string_view text) {
  // Not spdlog::level::from_str: it maps every unknown name to `off`, which
  // silently hid all warnings behind a typo.
  const std::string v = lower_ascii(text);
  if (v == "trace") return spdlog::level::trace;
  if (v == "debug") return spdlog::level::debug;
  if (v == "info") return spdlog::level::info;
  if (v == "warn" || v == "warning") return spdlog::level::warn;
  if (v == "error" || v == "err") return spdlog::level::err;
  if (v == "critical") return spdlog::level::critical;
  if (v == "off") return spdlog::level::off;
  return std::nullopt;
}

spdlog::logger& log() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    // An application may have registered its own "croq" logger first.
    if (auto existing = spdlog::get("croq")) return existing;
    auto made = spdlog::stderr_color_mt("croq");
    made->set_pattern("[croq] [%l] %v");
    const auto text = env_string("CROQ_LOG_LEVEL");
    // CROQ_EXPLAIN's lines are info: asking for them makes info the default.
    // (Not env_flag: its warning about a bad value would log from here.)
    const auto explain = env_string("CROQ_EXPLAIN");
    const auto fallback = explain && parse_flag(*explain).value_or(false) ? spdlog::level::info : spdlog::level::warn;
    const auto level = text ? parse_log_level(*text) : fallback;
    made->set_level(level.value_or(spdlog::level::warn));
    if (!level)
      made->warn("CROQ_LOG_LEVEL={} is not a level (trace, debug, info, warn, error, critical, off); using warn",
                 *text);
    return made;
  }();
  return *logger;
}

}  // namespace croq::support
