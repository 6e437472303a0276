#include "jit/resource_usage.hpp"

#include <charconv>
#include <vector>

namespace croq::jit {
namespace {

// ptxas -v writes, per entry function:
//   ptxas info    : Compiling entry function 'k' for 'sm_90a'
//   ptxas info    : Function properties for k
//   ptxas         .     528 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
//   ptxas info    : Used 255 registers, used 1 barriers, 528 bytes cumulative stack size, 4096 bytes smem
//   ptxas info    : Compile time = 34.553 ms
// and once per module "ptxas info    : 0 bytes gmem". A function the entry
// calls gets a "Function properties" block of its own.

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

// What follows "ptxas" and then `marker` (`info` then a colon, or the `.` of
// a property line); nullopt for other lines.
std::optional<std::string_view> ptxas_text(std::string_view line, std::string_view marker) {
  if (!line.starts_with("ptxas")) return std::nullopt;
  line = trim(line.substr(5));
  if (!line.starts_with(marker)) return std::nullopt;
  line = trim(line.substr(marker.size()));
  if (marker == "info") {
    if (!line.starts_with(':')) return std::nullopt;
    line = trim(line.substr(1));
  }
  return line;
}
std::optional<std::string_view> info_text(std::string_view line) { return ptxas_text(line, "info"); }
std::optional<std::string_view> property_text(std::string_view line) { return ptxas_text(line, "."); }

// The name between the first pair of single quotes after `prefix`, or
// what follows `prefix` when there are none.
std::optional<std::string_view> named_after(std::string_view text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return std::nullopt;
  text = trim(text.substr(prefix.size()));
  if (text.starts_with('\'')) {
    const std::size_t close = text.find('\'', 1);
    if (close == std::string_view::npos) return std::nullopt;
    return text.substr(1, close - 1);
  }
  return text;
}

// "528 bytes stack frame" -> {528, "bytes stack frame"}; "Used 255 registers"
// -> {255, "registers"}; false when the item has no such form.
bool split_item(std::string_view item, std::uint64_t& value, std::string_view& unit) {
  item = trim(item);
  if (item.starts_with("Used ") || item.starts_with("used ")) item = trim(item.substr(5));
  const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
  if (ec != std::errc() || end == item.data()) return false;
  unit = trim(item.substr(static_cast<std::size_t>(end - item.data())));
  return !unit.empty();
}

// Applies the comma-separated items of a report line; counts the ones known.
int apply_items(std::string_view text, ResourceUsage& usage) {
  int known = 0;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    std::uint64_t value = 0;
    std::string_view unit;
    if (split_item(text.substr(0, comma), value, unit)) {
      ++known;
      if (unit == "registers") usage.registers = static_cast<int>(value);
      else if (unit == "barriers") usage.barriers = static_cast<int>(value);
      else if (unit == "bytes stack frame") usage.stack_frame_bytes = value;
      else if (unit == "bytes cumulative stack size") usage.stack_bytes = value;
      else if (unit == "bytes spill stores") usage.spill_store_bytes = value;
      else if (unit == "bytes spill loads") usage.spill_load_bytes = value;
      else if (unit == "bytes smem") usage.shared_bytes = value;
      else if (unit == "bytes cmem[0]") usage.constant_bytes = value;
      else --known;
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return known;
}

bool is_report_line(std::string_view line) {
  if (property_text(line)) return true;
  const auto text = info_text(line);
  if (!text) return false;
  return text->ends_with("bytes gmem") || text->starts_with("Compiling entry function") ||
         text->starts_with("Function properties for") || text->starts_with("Used ") ||
         text->starts_with("Compile time =");
}

}  // namespace

std::optional<ResourceUsage> parse_resource_usage(std::string_view log, std::string_view entry) {
  ResourceUsage usage;
  bool has_frame = false, has_registers = false;
  std::string_view compiling, properties_of;  // the entry being compiled, the function whose properties follow
  for (std::string_view line : lines_of(log)) {
    if (auto text = info_text(line)) {
      if (auto name = named_after(*text, "Compiling entry function")) {
        compiling = *name;
      } else if (auto name = named_after(*text, "Function properties for")) {
        properties_of = *name;
      } else if (text->starts_with("Used ") && compiling == entry) {
        has_registers = apply_items(*text, usage) > 0;
      }
    } else if (auto text = property_text(line); text && properties_of == entry && !has_frame) {
      has_frame = apply_items(*text, usage) > 0;
    }
  }
  if (!has_frame || !has_registers) return std::nullopt;
  // ptxas names the cumulative stack only when the entry calls functions
  // with frames of their own; otherwise it is the entry's frame.
  if (usage.stack_bytes < usage.stack_frame_bytes) usage.stack_bytes = usage.stack_frame_bytes;
  return usage;
}

std::string without_resource_report(std::string_view log) {
  std::string kept;
  for (std::string_view line : lines_of(log)) {
    if (is_report_line(line) || trim(line).empty()) continue;
    kept.append(line);
    kept.push_back('\n');
  }
  if (!kept.empty()) kept.pop_back();
  return kept;
}

}  // namespace croq::jit
