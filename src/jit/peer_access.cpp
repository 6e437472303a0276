#include "jit/peer_access.hpp"

#include <string>

#include "croq/error.hpp"
#include "jit/driver.hpp"
#include "support/log.hpp"

namespace croq::jit {
namespace {

void check_exists(int device) {
  const int count = device_count();
  if (device < 0 || device >= count || device >= PeerTable::kMaxDevices)
    throw CudaError("cuDeviceGet", CUDA_ERROR_INVALID_DEVICE,
                    "device " + std::to_string(device) + " does not exist (" + std::to_string(count) +
                        " CUDA device(s) present)");
}

}  // namespace

PeerTable& peer_table() {
  static PeerTable table;
  return table;
}

bool can_access_peer(int from, int to) {
  if (from == to) return true;
  check_exists(from);
  check_exists(to);
  CUdevice a = 0, b = 0;
  CROQ_CU(cuDeviceGet, &a, from);
  CROQ_CU(cuDeviceGet, &b, to);
  int can = 0;
  CROQ_CU(cuDeviceCanAccessPeer, &can, a, b);
  return can != 0;
}

void enable_peer_access(int from, int to) {
  if (from == to || peer_table().enabled(from, to)) return;
  if (!can_access_peer(from, to))
    throw CudaError("cuDeviceCanAccessPeer", CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
                    "device " + std::to_string(from) + " (" + device_info(from).name + ") cannot access the memory of device " +
                        std::to_string(to) + " (" + device_info(to).name +
                        "): the driver reports no peer path between them (no NVLink or PCIe peer-to-peer)");
  CUcontext previous = nullptr;
  CROQ_CU(cuCtxGetCurrent, &previous);
  const CUcontext peer = make_current(to);
  make_current(from);
  const CUresult r = driver().cuCtxEnablePeerAccess(peer, 0);
  driver().cuCtxSetCurrent(previous);
  if (r != CUDA_SUCCESS && r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) throw_cuda_error(r, "cuCtxEnablePeerAccess");
  peer_table().mark(from, to);
  support::log().debug("peer access enabled: device {} may use the memory of device {}", from, to);
}

}  // namespace croq::jit
