#include "target/target.hpp"

#include "croq/error.hpp"

namespace croq::target {

Target parse_target(const std::string& arch) {
  Target t;
  t.arch = arch;
  std::size_t prefix = 0;
  if (arch.rfind("sm_", 0) == 0) prefix = 3;
  else if (arch.rfind("compute_", 0) == 0) prefix = 8, t.is_virtual = true;
  std::string number = prefix ? arch.substr(prefix) : std::string();
  t.suffix = 0;
  if (!number.empty() && (number.back() == 'a' || number.back() == 'f')) {
    t.suffix = number.back();
    number.pop_back();
  }
  bool well_formed = !number.empty() && number.size() <= 4 && number.find_first_not_of("0123456789") == std::string::npos;
  if (!well_formed)
    throw CompileError({Diagnostic{Severity::error,
                                   "malformed architecture `" + arch +
                                       "`: expected sm_XY, sm_XYa, compute_XY or compute_XYa (for example sm_90a)",
                                   0, 0, 1, ""}},
                       "", "<options>");
  t.sm = std::stoi(number);
  return t;
}

std::string arch_for_compute_capability(int major, int minor) {
  std::string arch = "sm_" + std::to_string(major * 10 + minor);
  if (major == 9 && minor == 0) arch += "a";
  return arch;
}

}  // namespace croq::target
