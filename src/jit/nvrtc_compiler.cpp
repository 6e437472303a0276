#include "jit/nvrtc_compiler.hpp"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "croq/error.hpp"
#include "jit/nvrtc_diagnostics.hpp"
#include "jit/nvrtc_library.hpp"
#include "jit/nvrtc_sandbox.hpp"
#include "support/env.hpp"
#include "support/log.hpp"

namespace croq::jit {
namespace {

std::atomic<std::uint64_t> invocations{0};

[[noreturn]] void fail(const std::string& source, const std::string& name, const std::string& msg) {
  throw CompileError({Diagnostic{Severity::error, msg, 0, 0, 1, ""}}, source, name);
}

void check_nvrtc(nvrtcResult r, const char* call, const std::string& source, const std::string& name) {
  if (r != NVRTC_SUCCESS) fail(source, name, std::string(call) + " failed: " + nvrtc().nvrtcGetErrorString(r));
}

// sm_XY for a well-formed sm_XY[a|f] or compute_XY[a|f] (compute_XY names
// the same XY as sm_XY: PTX instead of a cubin); empty when malformed.
std::string arch_base(const std::string& arch) {
  const std::size_t prefix = arch.rfind("sm_", 0) == 0 ? 3 : arch.rfind("compute_", 0) == 0 ? 8 : 0;
  if (prefix == 0 || arch.size() <= prefix) return {};
  std::string digits = arch.substr(prefix);
  if (digits.back() == 'a' || digits.back() == 'f') digits.pop_back();
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return {};
  return "sm_" + digits;
}

// One NVRTC compile, on the sandboxed thread: false (with the log) when
// NVRTC reports errors. Logs nothing itself (a log file cannot be opened
// there).
bool run_nvrtc(const std::string& cuda_source, const std::string& source_name, const std::string& entry,
               const NvrtcOptions& options, NvrtcOutput& out) {
  const NvrtcApi& api = nvrtc();  // loaded before the sandbox (validate_arch)
  const DeviceHeaders& headers = device_headers();
  std::vector<const char*> header_texts, header_names;
  for (std::size_t i = 0; i < headers.names.size(); ++i) {
    header_texts.push_back(headers.texts[i].c_str());
    header_names.push_back(headers.names[i].c_str());
  }
  nvrtcProgram program = nullptr;
  check_nvrtc(api.nvrtcCreateProgram(&program, cuda_source.c_str(), source_name.c_str(),
                                 static_cast<int>(header_names.size()), header_texts.data(), header_names.data()),
              "nvrtcCreateProgram", cuda_source, source_name);
  struct Destroy { nvrtcProgram* p; ~Destroy() { nvrtc().nvrtcDestroyProgram(p); } } destroy{&program};
  check_nvrtc(api.nvrtcAddNameExpression(program, entry.c_str()), "nvrtcAddNameExpression", cuda_source,
              source_name);

  std::vector<std::string> flags = nvrtc_flags(options);
  std::vector<const char*> argv;
  for (const auto& f : flags) argv.push_back(f.c_str());
  nvrtcResult compiled = api.nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());

  std::size_t log_size = 0;
  api.nvrtcGetProgramLogSize(program, &log_size);
  if (log_size > 1) {
    out.log.resize(log_size);
    api.nvrtcGetProgramLog(program, out.log.data());
    out.log.resize(log_size - 1);
  }
  if (compiled != NVRTC_SUCCESS) return false;

  const char* lowered = nullptr;
  if (api.nvrtcGetLoweredName(program, entry.c_str(), &lowered) != NVRTC_SUCCESS || lowered == nullptr)
    fail(cuda_source, source_name, "entry `" + entry + "` is not a __global__ function of " + source_name);
  out.lowered_entry = lowered;

  if (!is_virtual_arch(options.arch)) {  // compute_XY: PTX only
    std::size_t cubin_size = 0;
    check_nvrtc(api.nvrtcGetCUBINSize(program, &cubin_size), "nvrtcGetCUBINSize", cuda_source, source_name);
    out.cubin.resize(cubin_size);
    check_nvrtc(api.nvrtcGetCUBIN(program, out.cubin.data()), "nvrtcGetCUBIN", cuda_source, source_name);
  }
  std::size_t ptx_size = 0;
  if (api.nvrtcGetPTXSize(program, &ptx_size) == NVRTC_SUCCESS && ptx_size > 1) {
    out.ptx.resize(ptx_size);
    api.nvrtcGetPTX(program, out.ptx.data());
    out.ptx.resize(ptx_size - 1);
  }
  return true;
}

}  // namespace

std::string cuda_include_dir() {
  // Looked up once: the environment is read at first use, like every CROQ_* knob.
  static const std::string dir = [] {
  namespace fs = std::filesystem;
  std::vector<std::string> candidates;
  // The headers beside the NVRTC in use first (lib/../include: a toolkit's,
  // or the nvidia-cuda-runtime and -crt PyPI packages' beside -nvrtc's).
  try {
    candidates.push_back((fs::path(nvrtc().path).parent_path().parent_path() / "include").string());
  } catch (const CompileError&) {
  }
  candidates.push_back(CROQ_CUDA_INCLUDE_DIR);
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (auto root = support::env_string(var)) candidates.push_back(*root + "/include");
  candidates.push_back("/usr/local/cuda/include");
  for (const auto& dir : candidates) {
    std::error_code ec;
    // crt/ too: the PyPI packages split it off (nvidia-cuda-crt), and
    // vector_types.h, which every fp16/bf16 header includes, needs it.
    if (fs::exists(fs::path(dir) / "cuda.h", ec) && fs::exists(fs::path(dir) / "crt" / "host_defines.h", ec))
      return dir;
  }
  return std::string();
  }();
  return dir;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtc().nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> nvrtc_supported_archs() {
  const NvrtcApi& api = nvrtc();
  int n = 0;
  api.nvrtcGetNumSupportedArchs(&n);
  std::vector<int> archs(static_cast<std::size_t>(n));
  api.nvrtcGetSupportedArchs(archs.data());
  std::vector<std::string> out;
  for (int a : archs) out.push_back("sm_" + std::to_string(a));
  return out;
}

bool is_virtual_arch(const std::string& arch) { return arch.rfind("compute_", 0) == 0; }

int arch_number(const std::string& arch) {
  std::size_t prefix = arch.rfind("sm_", 0) == 0 ? 3 : is_virtual_arch(arch) ? 8 : 0;
  return std::atoi(arch.c_str() + prefix);
}

bool is_well_formed_arch(const std::string& arch) { return !arch_base(arch).empty(); }

void validate_arch(const std::string& arch) {
  const std::string base = arch_base(arch);
  // The suffixes exist from one generation on: `a` (arch-specific) from
  // sm_90, `f` (family) from sm_100; NVRTC rejects sm_90f or sm_80a with a
  // command-line error.
  const char suffix = base.empty() ? 0 : arch.back();
  const int number = base.empty() ? 0 : arch_number(arch);
  if ((suffix == 'a' && number < 90) || (suffix == 'f' && number < 100)) {
    const std::string family = arch.substr(0, arch.size() - 1);
    throw CompileError({Diagnostic{Severity::error,
                                   "unsupported architecture `" + arch + "`: the `" + std::string(1, suffix) + "` (" +
                                       (suffix == 'a' ? "arch-specific" : "family") + ") suffix needs " +
                                       (suffix == 'a' ? "sm_90" : "sm_100") + " or newer",
                                   0, 0, 1,
                                   "use `" + family + "`" +
                                       (suffix == 'f' && number == 90 ? " or `" + family + "a`" : std::string())}},
                       "", "<options>");
  }
  std::string supported;
  for (const auto& a : nvrtc_supported_archs()) {
    if (a == base) return;
    supported += (supported.empty() ? "" : ", ") + a;
  }
  std::string why = !base.empty() ? "unsupported architecture `" + arch + "`: NVRTC " + nvrtc_version() +
                                        " targets " + supported
                                  : "malformed architecture `" + arch +
                                        "`: expected sm_XY, sm_XYa, compute_XY or compute_XYa (for example sm_90a)";
  throw CompileError({Diagnostic{Severity::error, why, 0, 0, 1, ""}}, "", "<options>");
}

std::vector<std::string> nvrtc_flags(const NvrtcOptions& options) {
  // No include path at all: NVRTC gets the CUDA headers in memory
  // (device_headers) and runs where no other file can be opened
  // (run_without_file_access); not even the source's directory. ptxas -v
  // reports each entry's registers, stack and spills (resource_usage.hpp).
  std::vector<std::string> flags{"-arch=" + options.arch, "-std=c++17", "-default-device", "--no-source-include",
                                 "-Xptxas=-v"};
  if (options.line_info) flags.push_back("-lineinfo");
  for (const auto& f : options.extra) flags.push_back(f);
  return flags;
}

std::uint64_t nvrtc_invocations() { return invocations.load(); }

NvrtcOutput nvrtc_compile(const std::string& cuda_source, const std::string& source_name,
                          const std::string& entry, const NvrtcOptions& options, const SourceOrigin& origin) {
  validate_arch(options.arch);
  if (auto unsafe = unsafe_include_diagnostics(cuda_source); !unsafe.empty())
    throw located_compile_error(std::move(unsafe), cuda_source, source_name, origin);
  invocations.fetch_add(1);
  support::log().debug("nvrtc: compiling {} ({} bytes) for {}", source_name, cuda_source.size(), options.arch);
  NvrtcOutput out;
  bool compiled = false;
  run_without_file_access([&] { compiled = run_nvrtc(cuda_source, source_name, entry, options, out); });
  if (!compiled)
    throw located_compile_error(parse_nvrtc_log(out.log, cuda_source, source_name), cuda_source, source_name, origin);
  out.resources = parse_resource_usage(out.log, out.lowered_entry);
  out.log = without_resource_report(out.log);
  if (!out.log.empty()) support::log().info("nvrtc: {}", out.log);
  return out;
}

}  // namespace croq::jit
