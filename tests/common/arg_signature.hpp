// The argument signature (abi::ArgSignature) of a call's arguments, for
// tests that build a specialization through the pipeline next to a Kernel.
#pragma once

#include <cstdint>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "croq/kernel.hpp"

namespace croq::test {

inline std::vector<abi::ArgSignature> signature_of(const std::vector<Arg>& args) {
  std::vector<abi::ArgSignature> sig;
  for (const Arg& a : args) {
    abi::ArgSignature s;
    if (a.kind() == Arg::Kind::tensor) {
      s.dtype = a.view().dtype;
      for (std::size_t e : a.view().shape) s.shape.push_back(static_cast<std::int64_t>(e));
    } else {
      s.is_tensor = false;
      s.is_integer = a.kind() == Arg::Kind::integer;
    }
    sig.push_back(s);
  }
  return sig;
}

}  // namespace croq::test
