// The jit front door: CUDA text -> cached CompiledKernel. For a virtual
// architecture (compute_XY) the cached image is the PTX, which the driver
// compiles for the device when the kernel is first loaded.
//
// Lookup order: in-process map, then the entries preloaded from a bundle
// (CROQ_CACHE_PRELOAD with the disk cache off), then the disk cache, then
// the remote cache (when CROQ_CACHE_REMOTE names one), then NVRTC; a
// compile is written to the disk and the remote, a remote hit to the disk.
// Requests for the same key compile once: from several threads (the others
// wait on its future), from several processes of a host (compile_lock.hpp)
// and from several hosts sharing the remote (its lock, remote_cache.hpp).
// Each call can say where its image came from and why the layers before
// did not have it (JitLookup).
#pragma once

#include <chrono>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "croq/error.hpp"
#include "jit/compiled_kernel.hpp"
#include "jit/disk_cache.hpp"
#include "jit/nvrtc_diagnostics.hpp"
#include "jit/remote_cache.hpp"

namespace croq::jit {

struct JitRequest {
  std::string cuda_source;
  std::string entry;              // __global__ function to launch
  std::string source_name = "kernel.cu";
  std::string arch;               // empty: resolve_arch("")
  bool line_info = false;
  LaunchConfig launch;            // recorded in the metadata
  std::string croq_source_hash;   // hex XXH3 of the Croqtile source, when there is one
  SourceOrigin origin;            // the source the #line directives name (NVRTC errors in copied lines)
  // Throw CacheMiss instead of compiling (CROQ_CACHE_REQUIRE_HIT=1).
  bool require_hit = false;
};

// Where one compile() call got its image: `memory` when this process had
// it already (compiled, loaded or preloaded before), else the layer that
// served it, with why the layers before it did not (the kernel's
// lookup_notes) and NVRTC's time for a compile.
struct JitLookup {
  CacheSource source = CacheSource::compiled;
  std::vector<std::string> notes;
  double compile_ms = 0;
};

// A request with require_hit that no cache layer could serve.
class CacheMiss : public CacheError {
 public:
  CacheMiss(const std::string& what, std::vector<std::string> notes) : CacheError(what), notes_(std::move(notes)) {}
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  std::vector<std::string> notes_;
};

struct JitStats {
  std::uint64_t nvrtc_compiles = 0;
  std::uint64_t memory_hits = 0;
  std::uint64_t disk_hits = 0;
  std::uint64_t remote_hits = 0;
  std::uint64_t remote_misses = 0;  // remote lookups that ended in a compile here
  std::uint64_t remote_errors = 0;  // failed commands, error replies, refused entries
};

struct JitSettings {
  DiskCacheSettings disk;
  RemoteCacheSettings remote;  // no endpoint: no remote layer
  // How long a process waits for another process of this host that
  // compiles the same kernel before compiling it itself (CROQ_CACHE_WAIT_MS,
  // which also sets remote.lock_wait).
  std::chrono::milliseconds compile_wait{10000};

  static JitSettings from_environment();
};

// The architecture to compile for: `requested` if set, else $CROQ_ARCH, else
// the current device's (9.0 -> sm_90a), else sm_90a when no device exists.
std::string resolve_arch(const std::string& requested);
// sm_XY for compute capability X.Y, with the arch-specific suffix on 9.0
// (wgmma and setmaxnreg need sm_90a).
std::string arch_for_compute_capability(int major, int minor);

// The cache key of `request` compiled for `arch` by the library build
// `library_build` (JitCompiler::cache_key passes this build's).
support::Hash128 kernel_cache_key(const JitRequest& request, const std::string& arch, const std::string& library_build);

// What a cache entry for `request` compiled for `arch` must match.
EntryRequest entry_request(const JitRequest& request, const std::string& arch);

class JitCompiler {
 public:
  explicit JitCompiler(DiskCacheSettings disk);
  explicit JitCompiler(JitSettings settings);
  ~JitCompiler();

  // The process-wide compiler, configured from the environment on first use.
  static JitCompiler& global();

  std::shared_ptr<const CompiledKernel> compile(const JitRequest& request, JitLookup* lookup = nullptr);
  // Loads a bundle's entries (CROQ_CACHE_PRELOAD): into the disk cache, or
  // kept in memory when it is off or cannot take them. Returns how many
  // entries the bundle had; throws CacheError when it cannot be read.
  std::size_t preload(const std::filesystem::path& bundle);
  support::Hash128 cache_key(const JitRequest& request, const std::string& arch) const;
  JitStats stats() const;
  DiskCache& disk() { return disk_; }
  RemoteCache* remote() { return remote_.get(); }  // nullptr without a remote layer

 private:
  std::shared_ptr<const CompiledKernel> build(const JitRequest& request, const std::string& arch,
                                              const support::Hash128& key);
  // Fills `kernel` from a verified cache entry found in `source`.
  void adopt(CompiledKernel& kernel, StoredKernel stored, CacheSource source);
  // NVRTC; returns the entry to store.
  StoredKernel compile_here(const JitRequest& request, CompiledKernel& kernel);
  // The bundle entry preloaded in memory for `key`, when it fits the request.
  std::optional<StoredKernel> preloaded(const support::Hash128& key, const EntryRequest& request,
                                        std::vector<std::string>& notes);

  JitSettings settings_;
  DiskCache disk_;
  std::unique_ptr<RemoteCache> remote_;
  mutable std::mutex mutex_;
  std::map<std::pair<std::uint64_t, std::uint64_t>,
           std::shared_future<std::shared_ptr<const CompiledKernel>>> kernels_;
  std::map<std::string, StoredKernel> preloaded_;  // by key (hex)
  JitStats stats_;
};

}  // namespace croq::jit
