// What ptxas reported about a kernel it compiled. NVRTC runs ptxas with
// -v (nvrtc_flags), whose report is the only place the spill figures exist
// (the cubin and the driver have none), so the report is kept with the
// image in the cache entry's metadata ("resource_usage") and a kernel found
// in any cache layer still has it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace croq::jit {

struct ResourceUsage {
  int registers = 0;                      // per thread
  int barriers = 0;                       // named barriers
  std::uint64_t stack_frame_bytes = 0;    // per thread, the entry's own frame (spills included)
  std::uint64_t stack_bytes = 0;          // per thread, with the frames of the functions it calls
  std::uint64_t spill_store_bytes = 0;    // per thread
  std::uint64_t spill_load_bytes = 0;     // per thread
  std::uint64_t shared_bytes = 0;         // static shared memory per block
  std::uint64_t constant_bytes = 0;       // cmem[0], when ptxas names it (0 otherwise)
  friend bool operator==(const ResourceUsage&, const ResourceUsage&) = default;
};

// ptxas's report about `entry` (its symbol) in NVRTC's program log; nullopt
// when the log has no complete report for it (a PTX-only compile, or a
// log without -v).
std::optional<ResourceUsage> parse_resource_usage(std::string_view log, std::string_view entry);

// `log` without the lines of ptxas's -v report (what NVRTC said besides:
// warnings, advisories), so that they are logged as before.
std::string without_resource_report(std::string_view log);

}  // namespace croq::jit
