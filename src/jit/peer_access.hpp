// Peer access between the primary contexts of a node's devices: which
// pairs this process enabled (a table the launch checks without a lock or
// a driver call) and the driver calls that enable them.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

namespace croq::jit {

// The pairs (from, to) for which kernels running on device `from` may use
// memory of device `to`. Plain data, so the rules are testable without a
// driver. Devices past kMaxDevices are never enabled.
class PeerTable {
 public:
  static constexpr int kMaxDevices = 64;
  bool enabled(int from, int to) const {
    if (!in_range(from) || !in_range(to)) return false;
    return from == to || (rows_[from].load(std::memory_order_acquire) >> to & 1u) != 0;
  }
  void mark(int from, int to) {
    if (in_range(from) && in_range(to)) rows_[from].fetch_or(std::uint64_t{1} << to, std::memory_order_acq_rel);
  }

 private:
  static bool in_range(int d) { return d >= 0 && d < kMaxDevices; }
  std::array<std::atomic<std::uint64_t>, kMaxDevices> rows_{};
};

// This process's table: what enable_peer_access has done.
PeerTable& peer_table();

// Whether the hardware lets device `from` map device `to`'s memory
// (cuDeviceCanAccessPeer); true for from == to.
bool can_access_peer(int from, int to);

// Maps device `to`'s memory into device `from`'s primary context
// (cuCtxEnablePeerAccess; already enabled, by us or by torch, is fine) and
// records it in peer_table(). The calling thread's current context is
// restored. Throws CudaError when the devices do not exist or cannot be
// peers; from == to does nothing.
void enable_peer_access(int from, int to);

}  // namespace croq::jit
