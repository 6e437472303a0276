#include "jit/jit_compiler.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "croq/error.hpp"
#include "jit/build_id.hpp"
#include "jit/cache_bundle.hpp"
#include "jit/cache_files.hpp"
#include "jit/compile_lock.hpp"
#include "jit/driver.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "support/env.hpp"
#include "support/log.hpp"

namespace croq::jit {
namespace {

std::string iso_time_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// A file-name stem made only of [A-Za-z0-9_] (anything else becomes `_`),
// at most 64 characters: names the library writes never come from text
// that could hold `/`, `..` or control characters.
std::string file_stem(const std::string& text) {
  std::string out;
  for (char c : text.substr(0, 64))
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  return out.empty() ? "kernel" : out;
}

// CROQ_DUMP_DIR: keep the generated CUDA, PTX and cubin for inspection,
// written like cache files (temp file + rename: a link planted at a dump
// name is replaced, not written through).
void dump_artifacts(const JitRequest& req, const CompiledKernel& k) {
  static const auto dir = support::env_string("CROQ_DUMP_DIR");
  if (!dir) return;
  std::error_code ec;
  std::filesystem::create_directories(*dir, ec);
  int dir_fd = ::open(dir->c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) {
    support::log().warn("CROQ_DUMP_DIR: cannot open {}: {}", *dir, std::strerror(errno));
    return;
  }
  const std::string stem = file_stem(k.entry) + "-" + k.key.hex().substr(0, 12);
  auto write = [&](const std::string& ext, const char* data, std::size_t size) {
    if (int err = write_file_atomically(dir_fd, stem + ext, data, size, 0644); err != 0)
      support::log().warn("CROQ_DUMP_DIR: could not write {}/{}{}: {}", *dir, stem, ext, std::strerror(err));
  };
  write(".cu", req.cuda_source.data(), req.cuda_source.size());
  if (!k.image_is_ptx) write(".cubin", k.cubin.data(), k.cubin.size());
  if (!k.ptx.empty()) write(".ptx", k.ptx.data(), k.ptx.size());
  ::close(dir_fd);
  support::log().info("dumped {}/{}.cu{}{}", *dir, stem, k.image_is_ptx ? "" : "/.cubin", k.ptx.empty() ? "" : "/.ptx");
}

}  // namespace

}  // namespace croq::jit

namespace croq::abi {

void to_json(nlohmann::json& j, const LaunchConfig& c) {
  j = nlohmann::json{{"grid", c.grid}, {"block", c.block}, {"shared_bytes", c.shared_bytes}};
  if (c.has_cluster()) j["cluster"] = c.cluster;
  if (c.cooperative) j["cooperative"] = true;
  if (c.programmatic) j["programmatic"] = true;
}

void from_json(const nlohmann::json& j, LaunchConfig& c) {
  c.grid = j.at("grid").get<std::array<unsigned, 3>>();
  c.block = j.at("block").get<std::array<unsigned, 3>>();
  c.shared_bytes = j.at("shared_bytes").get<unsigned>();
  c.cluster = j.contains("cluster") ? j.at("cluster").get<std::array<unsigned, 3>>()
                                    : std::array<unsigned, 3>{0, 0, 0};
  c.cooperative = j.value("cooperative", false);
  c.programmatic = j.value("programmatic", false);
}

}  // namespace croq::abi

namespace croq::jit {

std::string arch_for_compute_capability(int major, int minor) {
  std::string arch = "sm_" + std::to_string(major * 10 + minor);
  if (major == 9 && minor == 0) arch += "a";
  return arch;
}

std::string resolve_arch(const std::string& requested) {
  if (!requested.empty() && requested != "auto") return requested;
  if (auto env = support::env_string("CROQ_ARCH"); env && *env != "auto") return *env;
  std::string why;
  if (driver_available(&why) && device_count() > 0) {
    const DeviceInfo& info = device_info(current_device());
    return arch_for_compute_capability(info.cc_major, info.cc_minor);
  }
  static std::once_flag once;
  std::call_once(once, [&] {
    support::log().info("no CUDA device ({}); compiling for sm_90a (set CROQ_ARCH to choose)", why);
  });
  return "sm_90a";
}

JitSettings JitSettings::from_environment() {
  JitSettings s;
  s.disk = DiskCacheSettings::from_environment();
  s.remote = RemoteCacheSettings::from_environment();
  s.compile_wait = s.remote.lock_wait;  // CROQ_CACHE_WAIT_MS bounds both waits
  return s;
}

JitCompiler::JitCompiler(DiskCacheSettings disk) : JitCompiler(JitSettings{std::move(disk), {}, {}}) {}

JitCompiler::JitCompiler(JitSettings settings) : settings_(std::move(settings)), disk_(settings_.disk) {
  if (settings_.remote.endpoint) remote_ = std::make_unique<RemoteCache>(settings_.remote);
}

JitCompiler::~JitCompiler() = default;

JitCompiler& JitCompiler::global() {
  static JitCompiler compiler(JitSettings::from_environment());
  // CROQ_CACHE_PRELOAD: a bundle loaded at the first use of the cache; one
  // that cannot be read is warned about, and kernels compile as usual.
  static const bool preloaded = [] {
    const auto bundle = support::env_string("CROQ_CACHE_PRELOAD");
    if (!bundle) return false;
    try {
      const std::size_t n = compiler.preload(*bundle);
      support::log().info("CROQ_CACHE_PRELOAD: loaded {} entries from {}", n, *bundle);
      return true;
    } catch (const Error& e) {
      support::log().warn("CROQ_CACHE_PRELOAD: {}; nothing preloaded", e.what());
      return false;
    }
  }();
  (void)preloaded;
  return compiler;
}

std::size_t JitCompiler::preload(const std::filesystem::path& bundle) {
  std::vector<StoredKernel> entries = read_bundle(bundle);
  if (disk_.enabled()) {
    try {
      disk_.add_entries(entries);
      return entries.size();
    } catch (const CacheError& e) {
      support::log().warn("CROQ_CACHE_PRELOAD: {}; keeping the bundle's entries in memory", e.what());
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (StoredKernel& e : entries) preloaded_[e.metadata.key] = std::move(e);
  return entries.size();
}

std::optional<StoredKernel> JitCompiler::preloaded(const support::Hash128& key, const EntryRequest& request,
                                                   std::vector<std::string>& notes) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = preloaded_.find(key.hex());
  if (it == preloaded_.end()) return std::nullopt;
  if (std::string why = DiskCache::request_problem(it->second.metadata, request); !why.empty()) {
    notes.push_back("preloaded bundle entry was " + why);
    return std::nullopt;
  }
  return it->second;
}


// Everything that changes the image: the text, the entry, the target, the
// NVRTC version and flags, the source name when line info records it, the
// launch shape (recorded with the image), the library build that generated
// and will interpret it, and the entry format.
support::Hash128 kernel_cache_key(const JitRequest& req, const std::string& arch, const std::string& library_build) {
  NvrtcOptions options{arch, req.line_info, {}};
  support::Hasher128 h;
  h.field("croqjit-cache").field(std::to_string(kCacheFormatVersion)).field(library_build);
  h.field(req.cuda_source).field(req.entry).field(arch).field(nvrtc_version());
  for (const auto& flag : nvrtc_flags(options)) h.field(flag);
  // NVRTC writes the program's name into the line table.
  h.field(req.line_info ? req.source_name : std::string());
  h.field(nlohmann::json(req.launch).dump());
  return h.digest();
}

EntryRequest entry_request(const JitRequest& req, const std::string& arch) {
  return {req.entry, arch, req.launch, nvrtc_version(), nvrtc_flags({arch, req.line_info, {}})};
}

support::Hash128 JitCompiler::cache_key(const JitRequest& req, const std::string& arch) const {
  return kernel_cache_key(req, arch, library_build_id());
}

JitStats JitCompiler::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  JitStats s = stats_;
  if (remote_) {
    const RemoteStats r = remote_->stats();
    s.remote_hits = r.hits;
    s.remote_misses = r.misses;
    s.remote_errors = r.errors;
  }
  return s;
}

std::shared_ptr<const CompiledKernel> JitCompiler::compile(const JitRequest& request, JitLookup* lookup) {
  std::string arch = resolve_arch(request.arch);
  validate_arch(arch);
  support::Hash128 key = cache_key(request, arch);
  auto map_key = std::make_pair(key.high, key.low);

  std::promise<std::shared_ptr<const CompiledKernel>> promise;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    auto it = kernels_.find(map_key);
    if (it != kernels_.end()) {
      auto future = it->second;
      ++stats_.memory_hits;
      lock.unlock();
      auto kernel = future.get();  // waits while another thread builds it; rethrows its error
      if (lookup) *lookup = JitLookup{CacheSource::memory, {}, 0};
      return kernel;
    }
    kernels_.emplace(map_key, promise.get_future().share());
  }
  try {
    auto kernel = build(request, arch, key);
    promise.set_value(kernel);
    if (lookup) *lookup = JitLookup{kernel->source, kernel->lookup_notes, kernel->compile_ms};
    return kernel;
  } catch (...) {
    promise.set_exception(std::current_exception());
    std::lock_guard<std::mutex> lock(mutex_);
    kernels_.erase(map_key);  // errors are not cached: a later call tries again
    throw;
  }
}

// The lookup below the memory layer: disk, then (once this process is the
// one of its host to build the kernel) disk again and the remote, then
// NVRTC, whose result goes to the disk and the remote.
std::shared_ptr<const CompiledKernel> JitCompiler::build(const JitRequest& req, const std::string& arch,
                                                         const support::Hash128& key) {
  auto kernel = std::make_shared<CompiledKernel>();
  kernel->key = key;
  kernel->arch = arch;
  kernel->launch = req.launch;
  if (disk_.enabled()) kernel->cache_dir = disk_.dir();
  // A stored entry, verified against its metadata and against the request.
  const EntryRequest expected = entry_request(req, arch);
  auto finish = [&](StoredKernel stored, CacheSource source) {
    adopt(*kernel, std::move(stored), source);
    dump_artifacts(req, *kernel);
    return kernel;
  };
  if (auto stored = preloaded(key, expected, kernel->lookup_notes)) {
    kernel->cache_dir.clear();  // not on disk: nothing there to discard
    return finish(std::move(*stored), CacheSource::memory);
  }
  std::string disk_miss;
  if (auto stored = disk_.load(key, expected, &disk_miss)) return finish(std::move(*stored), CacheSource::disk);

  HostCompileLock host_lock = disk_.enabled() ? HostCompileLock::acquire(disk_.dir(), settings_.disk.shared,
                                                                          key.hex(), settings_.compile_wait)
                                               : HostCompileLock();
  if (disk_.enabled()) {
    if (host_lock.timed_out())
      kernel->lookup_notes.push_back("waited " + std::to_string(settings_.compile_wait.count()) +
                                     " ms for another process of this host compiling this kernel; compiled it here");
    // Another process of this host may have stored it while we waited (the
    // first miss's reason stands: this one would only repeat or follow it).
    if (auto stored = disk_.load(key, expected)) return finish(std::move(*stored), CacheSource::disk);
  }
  kernel->lookup_notes.push_back(disk_miss);
  RemoteLookup remote;
  if (remote_) remote = remote_->fetch({key.hex(), arch, req.entry, library_build_id()}, kernel->lookup_notes);
  if (remote.kernel) {
    if (std::string why = DiskCache::request_problem(remote.kernel->metadata, expected); why.empty()) {
      disk_.store(key, *remote.kernel);
      return finish(std::move(*remote.kernel), CacheSource::remote);
    } else {
      kernel->lookup_notes.push_back("remote entry refused: it was " + why);
      remote.replace = true;
    }
  }
  if (req.require_hit)
    throw CacheMiss("no cache layer has kernel `" + req.entry + "` for " + arch + " (key " + key.hex() + ")",
                    kernel->lookup_notes);
  StoredKernel stored = compile_here(req, *kernel);
  disk_.store(key, stored);
  if (remote_) remote_->store(key.hex(), stored, remote.replace, kernel->lookup_notes);
  dump_artifacts(req, *kernel);
  return kernel;  // the remote lease, then the host lock, are released here
}

void JitCompiler::adopt(CompiledKernel& kernel, StoredKernel stored, CacheSource source) {
  kernel.cubin = std::move(stored.cubin);
  kernel.image_is_ptx = stored.metadata.image_is_ptx;
  if (kernel.image_is_ptx) kernel.ptx.assign(kernel.cubin.data());  // verified NUL-terminated
  kernel.entry = stored.metadata.entry;                              // verified to be a symbol name
  kernel.resources = stored.metadata.resources;
  kernel.source = source;
  if (source == CacheSource::disk) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.disk_hits;
  }
  support::log().debug("kernel cache: {} hit {} ({})",
                       source == CacheSource::disk ? "disk" : source == CacheSource::remote ? "remote" : "preloaded",
                       kernel.key.hex(), kernel.entry);
}

StoredKernel JitCompiler::compile_here(const JitRequest& req, CompiledKernel& kernel) {
  const std::string& arch = kernel.arch;
  auto started = std::chrono::steady_clock::now();
  NvrtcOutput out = nvrtc_compile(req.cuda_source, req.source_name, req.entry, {arch, req.line_info, {}}, req.origin);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.nvrtc_compiles;
  }
  support::log().debug("nvrtc: compiled {} for {} in {:.1f} ms", req.entry, arch, ms);
  kernel.image_is_ptx = is_virtual_arch(arch);
  if (kernel.image_is_ptx) {  // the driver loads PTX as a NUL-terminated string
    kernel.cubin.assign(out.ptx.begin(), out.ptx.end());
    kernel.cubin.push_back('\0');
  } else {
    kernel.cubin = std::move(out.cubin);
  }
  kernel.ptx = std::move(out.ptx);
  kernel.entry = out.lowered_entry;
  kernel.resources = out.resources;
  kernel.source = CacheSource::compiled;
  kernel.compile_ms = ms;

  StoredKernel stored;
  stored.cubin = kernel.cubin;
  CacheMetadata& meta = stored.metadata;
  meta.key = kernel.key.hex();
  meta.entry = kernel.entry;
  if (req.entry != kernel.entry) meta.name_expression = req.entry;
  meta.source_name = req.source_name;
  meta.arch = arch;
  meta.image_is_ptx = kernel.image_is_ptx;
  meta.nvrtc_version = nvrtc_version();
  meta.nvrtc_flags = nvrtc_flags({arch, req.line_info, {}});
  meta.created = iso_time_now();
  meta.compile_ms = ms;
  meta.cubin_bytes = kernel.cubin.size();
  meta.cubin_xxh3_64 = support::hex64(support::checksum64(kernel.cubin.data(), kernel.cubin.size()));
  meta.launch = req.launch;
  meta.resources = kernel.resources;
  meta.croq_source_xxh3_128 = req.croq_source_hash;
  meta.library_build = library_build_id();
  return stored;
}

}  // namespace croq::jit
