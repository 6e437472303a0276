// libcroqjit: compile Croqtile source at run time and launch it on the GPU.
//
//   croq::Kernel matmul = croq::compile(source);
//   auto res = matmul(lhs.view(), rhs.view());
#pragma once

#include "croq/devices.hpp"
#include "croq/dtype.hpp"
#include "croq/error.hpp"
#include "croq/kernel.hpp"
#include "croq/options.hpp"
#include "croq/roofline.hpp"
#include "croq/spandata.hpp"
#include "croq/stats.hpp"
#include "croq/subbyte.hpp"
#include "croq/tensor.hpp"
#include "croq/tune.hpp"

#define CROQJIT_VERSION_MAJOR 0
#define CROQJIT_VERSION_MINOR 1
#define CROQJIT_VERSION_PATCH 0
