#include "support/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

#include "support/env.hpp"

namespace croq::support {

spdlog::logger& log() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    // An application may have registered its own "croq" logger first.
    if (auto existing = spdlog::get("croq")) return existing;
    auto made = spdlog::stderr_color_mt("croq");
    made->set_pattern("[croq] [%l] %v");
    std::string level = env_string("CROQ_LOG_LEVEL").value_or("warn");
    made->set_level(spdlog::level::from_str(level));
    return made;
  }();
  return *logger;
}

}  // namespace croq::support
