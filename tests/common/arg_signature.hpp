// The argument signature (abi::ArgSignature) of a call's arguments, for
// tests that build a specialization through the pipeline next to a Kernel.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "abi/kernel_abi.hpp"
#include "croq/kernel.hpp"

namespace croq::test {

// A tensor argument of the given dtype and shape (-1: a dynamic dim).
inline abi::ArgSignature tensor(DType t, std::vector<std::int64_t> shape) {
  abi::ArgSignature a;
  a.dtype = t;
  a.shape = std::move(shape);
  return a;
}

// An integer scalar argument, as a call's `int` makes it (signature_of).
inline abi::ArgSignature integer_scalar() {
  abi::ArgSignature a;
  a.is_tensor = false;
  a.is_integer = true;
  return a;
}

// A floating scalar argument, as a call's `float` or `double` makes it.
inline abi::ArgSignature float_scalar() {
  abi::ArgSignature a;
  a.is_tensor = false;
  return a;
}

// A CUDA stream argument.
inline abi::ArgSignature stream_argument() {
  abi::ArgSignature a;
  a.is_tensor = false;
  a.is_stream = true;
  return a;
}

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
