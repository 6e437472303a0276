// A compiled kernel: its cubin (or PTX), how to launch it, and its loaded
// functions.
#pragma once

#include <cuda.h>

#include <array>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "abi/kernel_abi.hpp"
#include "jit/resource_usage.hpp"
#include "support/hash.hpp"

namespace croq::abi {
// The launch shape as kept in the cache's metadata.
void to_json(nlohmann::json& j, const LaunchConfig& c);
void from_json(const nlohmann::json& j, LaunchConfig& c);
}  // namespace croq::abi

namespace croq::jit {

inline constexpr int kMaxLoadedDevices = 16;

using LaunchConfig = abi::LaunchConfig;

// Where this process got a kernel's image from.
enum class CacheSource { compiled, memory, disk, remote };

struct CompiledKernel {
  support::Hash128 key;
  std::string entry;          // the symbol launched
  std::string arch;           // sm_90a, or compute_80 for a PTX image
  // The image the driver loads: a cubin, or for a virtual architecture
  // (compute_XY, image_is_ptx) the PTX text with its terminating NUL, which
  // the driver compiles for the device at load time.
  std::vector<char> cubin;
  bool image_is_ptx = false;
  std::string ptx;            // empty when not kept (always kept for a PTX image)
  LaunchConfig launch;        // default launch shape recorded with the cubin
  // ptxas's report when NVRTC compiled the image, here or for the cache
  // entry it came from; nullopt for PTX images.
  std::optional<ResourceUsage> resources;
  CacheSource source = CacheSource::compiled;  // where this process got it from
  // Why the cache layers above `source` did not serve it (a corrupt,
  // untrusted or foreign entry, a remote that is down), one line each, for
  // the explanation of a compile; empty when nothing was wrong.
  std::vector<std::string> lookup_notes;
  double compile_ms = 0;      // NVRTC's time, when this process compiled it
  // The disk cache directory holding this image's entry; empty when the
  // cache is in memory only. A PTX image the driver refuses is deleted there.
  std::filesystem::path cache_dir;

  // One loaded module + function per device, filled on first launch there.
  mutable std::array<std::atomic<CUfunction>, kMaxLoadedDevices> functions{};
  mutable std::array<CUmodule, kMaxLoadedDevices> modules{};
  // The shared memory attribute applied per device; read without the lock
  // on every launch, written under it.
  mutable std::array<std::atomic<unsigned>, kMaxLoadedDevices> shared_bytes_set{};
  mutable std::mutex load_mutex;
};

}  // namespace croq::jit
