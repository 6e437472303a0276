// NumPy .npy files (format 1.0-3.0, little-endian, C order) as croq tensors.
#pragma once

#include <string>

#include "croq/tensor.hpp"

namespace croq::cli {

// Reads a .npy file into a host tensor. Throws croq::Error naming the file
// and the problem (unsupported dtype, Fortran order, truncated data, ...).
Tensor read_npy(const std::string& path);
// Writes a host (or device: copied first) tensor as .npy version 1.0.
void write_npy(const std::string& path, const Tensor& tensor);
// The NumPy descr of a dtype ("<f4"); throws for types NumPy lacks (bf16, f8).
std::string npy_descr(DType dtype);

}  // namespace croq::cli
