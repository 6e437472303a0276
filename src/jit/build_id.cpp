#include "jit/build_id.hpp"

#include "croq_build_id.h"  // generated in the build folder

namespace croq::jit {

const std::string& library_build_id() {
  static const std::string id = CROQ_BUILD_ID;
  return id;
}

}  // namespace croq::jit
