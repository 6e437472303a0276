// The library's one spdlog logger, named "croq"; level from CROQ_LOG_LEVEL
// (trace, debug, info, warn, error, off; default warn).
#pragma once

#include <spdlog/spdlog.h>

namespace croq::support {

spdlog::logger& log();

}  // namespace croq::support
