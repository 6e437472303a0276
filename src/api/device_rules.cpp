#include "api/device_rules.hpp"

namespace croq::detail {

std::string device_argument_problem(const std::string& who, int arg_device, const LaunchDevice& launch,
                                    bool peer_opt_in, bool peer_enabled) {
  if (arg_device == launch.device || (peer_opt_in && peer_enabled)) return {};
  const std::string here = std::to_string(launch.device), there = std::to_string(arg_device);
  const std::string enable = "croq::enable_peer_access(" + here + ", " + there + ")";
  std::string out = who + " is on device " + there + " but the kernel runs on device " + here + " (" + launch.origin + ")";
  if (peer_opt_in)
    return out + ", and peer access from device " + here + " to device " + there + " is not enabled: call " + enable +
           " first";
  return out + "; pass a tensor on device " + here + ", or read it over the peer link: " + enable +
         " and LaunchOptions::peer_access";
}

}  // namespace croq::detail
