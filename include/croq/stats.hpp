// Where a kernel's specializations got their images, and why each one that
// compiled did (Kernel::stats, croq::precompile, CROQ_EXPLAIN=1).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace croq {

// Where a specialization's images (cubins, or PTX) came from.
enum class ImageSource {
  memory,    // this process had them already: another Kernel of the same code, or a preloaded bundle
  disk,      // the disk cache
  remote,    // the remote cache
  compiled,  // NVRTC compiled at least one of them here
};

// "memory", "disk", "remote", "compiled".
const char* image_source_name(ImageSource source);

// One argument signature of a kernel: its first call with those dtypes and
// shapes (or its prepare / precompile).
struct SpecializationStats {
  std::string signature;  // the arguments: "f16 [128, 64], f16 [64, 256], int" (`?`: a dynamic dim)
  std::string arch;       // "sm_90a"
  ImageSource source = ImageSource::compiled;
  // Why it compiled (empty unless source == compiled): what differs from the
  // nearest earlier specialization of the function in this process (an
  // argument's dim or dtype, the arch, a define), or that it is the first,
  // then why the caches did not have it ("not in the disk cache", "disk
  // cache entry was corrupt (...)").
  std::string reason;
  double compile_ms = 0;     // NVRTC's time for its images (0 unless compiled)
  double specialize_ms = 0;  // the whole specialization: code generation, cache lookups, NVRTC
  int images = 0;            // its kernels (a program of several has several images)
  int images_compiled = 0;   // of them, compiled by NVRTC here
};

struct KernelStats {
  std::vector<SpecializationStats> specializations;  // in the order they were made
  // Specializations by source.
  std::size_t memory = 0, disk = 0, remote = 0, compiled = 0;
  std::size_t nvrtc_compiles = 0;  // images compiled, over all specializations
  double compile_ms = 0;           // their NVRTC time

  // Adds `s` and counts it in the totals.
  void add(SpecializationStats s);
};

}  // namespace croq
