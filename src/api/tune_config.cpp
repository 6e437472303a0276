// Tuning configurations, their report, and TuneError.
#include <charconv>
#include <cstdio>
#include <set>

#include "croq/tune.hpp"

namespace croq {
namespace {

// Doubles in their shortest round-trip form, always with a '.' or an
// exponent, so 2 (an integer) and 2.0 read differently.
std::string define_value_text(const DefineValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, std::get<double>(v));
  std::string text(buf, ec == std::errc() ? end : buf);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

}  // namespace

std::string TuneConfig::str() const {
  if (defines.empty()) return "(source defaults)";
  std::string out;
  for (const auto& [name, value] : defines) out += (out.empty() ? "" : " ") + name + "=" + define_value_text(value);
  return out;
}

std::vector<TuneConfig> cross_product(const std::vector<std::pair<std::string, std::vector<DefineValue>>>& axes) {
  std::set<std::string> names;
  for (const auto& [name, values] : axes) {
    if (values.empty()) throw ArgumentError("croq::cross_product: `" + name + "` has no values");
    if (!names.insert(name).second) throw ArgumentError("croq::cross_product: `" + name + "` is given twice");
  }
  // The count first, overflow-checked, so a runaway product is an error before any allocation.
  std::size_t count = 1;
  for (const auto& [name, values] : axes) {
    if (values.size() > kMaxTuneConfigurations || count > kMaxTuneConfigurations / values.size()) {
      std::string sizes;
      for (const auto& axis : axes) sizes += (sizes.empty() ? "" : " x ") + std::to_string(axis.second.size());
      throw ArgumentError("croq::cross_product: " + sizes + " values make more than " +
                          std::to_string(kMaxTuneConfigurations) + " configurations, the limit; tune fewer names or values");
    }
    count *= values.size();
  }
  std::vector<TuneConfig> configs(1);
  configs.reserve(count);
  for (const auto& [name, values] : axes) {
    std::vector<TuneConfig> next;
    for (const TuneConfig& c : configs)
      for (const DefineValue& v : values) {
        next.push_back(c);
        next.back().defines[name] = v;
      }
    configs = std::move(next);
  }
  return configs;
}

const char* status_name(TuneTrial::Status status) {
  switch (status) {
    case TuneTrial::Status::timed: return "timed";
    case TuneTrial::Status::compile_failed: return "compile failed";
    case TuneTrial::Status::launch_failed: return "launch failed";
    case TuneTrial::Status::wrong_result: return "wrong result";
    case TuneTrial::Status::not_run: return "not run";
  }
  return "?";
}

std::string format_tune_table(const std::vector<TuneTrial>& trials, std::size_t chosen) {
  std::size_t width = 6;
  for (const TuneTrial& t : trials) width = std::max(width, t.config.str().size());
  auto pad = [](std::string s, std::size_t n) { return s.size() < n ? s + std::string(n - s.size(), ' ') : s; };
  std::string out = "  " + pad("config", width) + "  " + pad("status", 14) + "  median ms    min ms\n";
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const TuneTrial& t = trials[i];
    out += (i == chosen ? "* " : "  ") + pad(t.config.str(), width) + "  " + pad(status_name(t.status), 14);
    if (t.status == TuneTrial::Status::timed) {
      char times[64];
      std::snprintf(times, sizeof times, "  %9.4f  %8.4f", t.median_ms, t.min_ms);
      out += times;
    } else {
      // The first line of the reason keeps the table readable.
      out += "  " + t.why.substr(0, t.why.find('\n'));
    }
    out += "\n";
  }
  if (chosen < trials.size()) out += "chosen: " + trials[chosen].config.str() + "\n";
  return out;
}

TuneError::TuneError(const std::string& message, std::vector<TuneTrial> trials)
    : Error(message + "\n" + format_tune_table(trials)), trials_(std::move(trials)) {}

}  // namespace croq
