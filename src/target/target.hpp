// What generated code is compiled for: an architecture name parsed once into
// its compute capability, whether it is virtual (PTX for the driver to
// compile) and the features lowering and instruction selection ask about.
#pragma once

#include <cstdint>
#include <string>

namespace croq::target {

struct Target {
  std::string arch = "sm_90a";  // as NVRTC takes it: sm_XY[a|f] or compute_XY[a|f]
  int sm = 90;                  // the compute capability as a number (90, 80, 86, ...)
  bool is_virtual = false;      // compute_XY: PTX only
  char suffix = 'a';            // 'a' (arch-specific), 'f' (family) or 0

  // Features (each implies the hardware and the PTX to use it).
  bool mbarrier() const { return sm >= 80; }          // events
  bool mma_sync() const { return sm >= 80; }          // mma.sync m16n8k16 (f16/bf16)
  bool tma() const { return sm >= 90; }               // cp.async.bulk.tensor
  bool clusters() const { return sm >= 90; }          // thread block clusters
  bool grid_dependencies() const { return sm >= 90; } // griddepcontrol (programmatic dependent launch)
  bool mbarrier_tx() const { return sm >= 90; }       // expect_tx, try_wait
  bool wgmma() const { return sm == 90 && suffix == 'a'; }       // sm_90a only
  bool setmaxnreg() const { return sm == 90 && suffix == 'a'; }  // sm_90a only

  // Shared memory one block may use (with the opt-in attribute), by compute
  // capability as CUDA's programming guide lists it; a device's own figure
  // replaces it at a call (pipeline::choose_target).
  std::int64_t max_shared_bytes_per_block() const {
    if (sm >= 120) return 99 * 1024;             // sm_120, sm_121
    if (sm >= 90) return 227 * 1024;             // sm_90, sm_100, sm_103, sm_110
    if (sm == 80 || sm == 87) return 163 * 1024;
    if (sm >= 86) return 99 * 1024;              // sm_86, sm_89
    if (sm >= 75) return 64 * 1024;
    return 48 * 1024;
  }

  friend bool operator==(const Target&, const Target&) = default;
};

// N of an m64nNk16 MMA (WGMMA, or its mma.sync emulation): a multiple of 8
// up to 256, as the PTX ISA allows for 16-bit inputs.
constexpr bool mma_n_supported(long long n) { return n >= 8 && n <= 256 && n % 8 == 0; }

// Parses `arch` (sm_XY, sm_XYa, sm_XYf, compute_XY, compute_XYa,
// compute_XYf). Throws CompileError (no location, source "<options>") when
// it is malformed; whether NVRTC supports it is the jit's check.
Target parse_target(const std::string& arch);

// The native architecture of a device: sm_90a for compute capability 9.0
// (its arch-specific features are what the fast paths use), sm_XY otherwise.
std::string arch_for_compute_capability(int major, int minor);

}  // namespace croq::target
