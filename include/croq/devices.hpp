// The devices of the node, and peer access between them.
#pragma once

namespace croq {

// The number of CUDA devices; 0 without a driver or device.
int device_count();

// Whether kernels running on device `a` can be given access to device `b`'s
// memory (NVLink or PCIe peer-to-peer; cuDeviceCanAccessPeer). True for
// a == b. Throws ArgumentError for a negative ordinal, CudaError for a
// device that does not exist.
bool can_access_peer(int a, int b);

// Maps device `b`'s memory into device `a`'s primary context (the one torch
// and CuPy share), so that kernels launched on `a` with
// LaunchOptions::peer_access may take tensors living on `b`. One direction:
// call (b, a) too for the other. Already enabled (by this library, torch or
// the CUDA runtime) is fine; a == b does nothing. Throws CudaError when the
// devices cannot be peers, ArgumentError for a negative ordinal.
void enable_peer_access(int a, int b);

}  // namespace croq
