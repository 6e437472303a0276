// Which device a call runs on, and which device tensors it may take: the
// rules of LaunchOptions::device and LaunchOptions::peer_access, apart from
// the driver so they are testable without a GPU. Internal to src/api.
#pragma once

#include <string>

namespace croq::detail {

// The device a call launches on and where that choice came from, as
// messages say it: "LaunchOptions::device", "the device of argument 1 'x'",
// "the current device".
struct LaunchDevice {
  int device = 0;
  std::string origin;
};

// Why a kernel launched on `launch` cannot take `who` (a device tensor on
// `arg_device`); empty when it can: the same device, or another one whose
// memory is mapped (`peer_enabled`) and the call opted in (`peer_opt_in`).
std::string device_argument_problem(const std::string& who, int arg_device, const LaunchDevice& launch,
                                    bool peer_opt_in, bool peer_enabled);

}  // namespace croq::detail
