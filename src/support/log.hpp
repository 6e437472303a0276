// The library's one spdlog logger, named "croq"; level from CROQ_LOG_LEVEL
// (trace, debug, info, warn, error, critical, off in any case; default warn,
// or info with CROQ_EXPLAIN=1, whose lines are info).
#pragma once

#include <optional>
#include <string_view>

#include <spdlog/spdlog.h>

namespace croq::support {

spdlog::logger& log();

// The level a CROQ_LOG_LEVEL value names (any case; "warning" and "err"
// too), or nullopt when it names none.
std::optional<spdlog::level::level_enum> parse_log_level(std::string_view text);

}  // namespace croq::support
