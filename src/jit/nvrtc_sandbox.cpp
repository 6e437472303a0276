#include "jit/nvrtc_sandbox.hpp"

#include <dlfcn.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "croq/error.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/nvrtc_library.hpp"

#if !defined(__linux__)
#error "the NVRTC sandbox needs Linux seccomp"
#endif
#if defined(__x86_64__)
#define CROQ_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CROQ_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "the NVRTC sandbox knows the syscall numbers of x86_64 and aarch64 only"
#endif

namespace croq::jit {
namespace {

// Every header device code may include, with what those include when NVRTC
// compiles them (__CUDACC_RTC__): the closure, so each compiles alone in
// the sandbox (tests/jit/nvrtc_sandbox_test.cpp checks it).
constexpr const char* kDeviceHeaders[] = {
    "cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "cuda_fp8.hpp", "cuda_fp6.h", "cuda_fp6.hpp", "cuda_fp4.h",
    "cuda_fp4.hpp", "cuda_pipeline.h", "cuda_pipeline_primitives.h", "cuda_pipeline_helpers.h",
    "cuda_awbarrier.h", "cuda_awbarrier_primitives.h", "cuda_awbarrier_helpers.h", "cuda_runtime.h",
    "math_constants.h", "vector_types.h", "vector_functions.h", "cuComplex.h", "builtin_types.h",
    "device_types.h", "surface_types.h", "texture_types.h", "host_defines.h", "crt/host_defines.h",
};

// The syscalls that open a file by its name (or handle), read a link, or
// execute: each fails with EACCES on the sandboxed thread (NVRTC then
// reports "cannot open source file"). stat stays allowed: glibc checks
// /etc/localtime with it on every localtime() (EDG's __DATE__), and a failed
// check would switch the whole process to UTC; NVRTC opens every include and
// __has_include operand rather than stat-ing it, so a file's existence is
// not revealed either (tests/jit/nvrtc_host_files_test.cpp). Memory,
// futexes and the thread's own descriptors are untouched.
constexpr long kDeniedSyscalls[] = {
#ifdef SYS_open
    SYS_open,
#endif
#ifdef SYS_creat
    SYS_creat,
#endif
#ifdef SYS_access
    SYS_access,
#endif
#ifdef SYS_readlink
    SYS_readlink,
#endif
#ifdef SYS_uselib
    SYS_uselib,
#endif
    SYS_openat,     SYS_openat2,   SYS_open_by_handle_at, SYS_name_to_handle_at, SYS_faccessat,
    SYS_faccessat2, SYS_readlinkat, SYS_execve,           SYS_execveat,          SYS_io_uring_setup,
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Returns 0, or the errno of the failing step.
int install_filter() {
  std::vector<sock_filter> program;
  program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CROQ_AUDIT_ARCH, 1, 0));
  program.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));  // another ABI: no syscall numbers known
  program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
#if defined(__x86_64__)
  // x32 numbers (bit 30) name the same calls through another table: refuse them all.
  program.push_back(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
  program.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES));
#endif
  for (long nr : kDeniedSyscalls) {
    program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<unsigned>(nr), 0, 1));
    program.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES));
  }
  program.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  sock_fprog fprog{static_cast<unsigned short>(program.size()), program.data()};
  // Both are per thread: the rest of the process keeps its privileges and files.
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  // SPEC_ALLOW: where the kernel's default is spec_store_bypass_disable=
  // seccomp, a filtered thread would otherwise run with the mitigation on,
  // slowing NVRTC; the filter guards files, not speculation. Kernels before
  // 4.17 lack the flag.
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_SPEC_ALLOW, &fprog) != 0 &&
      (errno != EINVAL || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0))
    return errno;
  return 0;
}

void warm_up_nvrtc() {
  const NvrtcApi& api = nvrtc();
  nvrtcProgram program = nullptr;
  if (api.nvrtcCreateProgram(&program, "", "croq_warm_up.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) return;
  api.nvrtcCompileProgram(program, 0, nullptr);
  api.nvrtcDestroyProgram(&program);
}

// What a first compile would otherwise read from disk, done before any
// sandboxed one: the device headers; NVRTC's builtins library (from beside
// NVRTC, else by name: NVRTC's own dlopen by name then finds the loaded one
// without opening a file); and the
// time zone (EDG's __DATE__ calls localtime, which glibc answers from its
// loaded zone once stat says /etc/localtime is unchanged).
void prepare_process() {
  static std::once_flag once;
  std::call_once(once, [] {
    device_headers();  // read here: in the sandbox nothing can be
    tzset();
    const std::string builtins = "libnvrtc-builtins.so." + nvrtc_version();
    const auto beside = std::filesystem::path(nvrtc().path).parent_path() / builtins;
    if (dlopen(beside.c_str(), RTLD_NOW | RTLD_LOCAL) != nullptr) return;
    if (dlopen(builtins.c_str(), RTLD_NOW | RTLD_LOCAL) != nullptr) return;
    // Another naming: an empty program loads whatever NVRTC needs, unsandboxed
    // (its text is ours; it includes nothing).
    warm_up_nvrtc();
  });
}

struct ThreadWork {
  const std::function<void()>* work;
  std::exception_ptr failure;
  int filter_errno = 0;
};

void* thread_main(void* arg) {
  auto* job = static_cast<ThreadWork*>(arg);
  job->filter_errno = install_filter();
  if (job->filter_errno != 0) return nullptr;
  try {
    (*job->work)();
  } catch (...) {
    job->failure = std::current_exception();
  }
  return nullptr;
}

[[noreturn]] void refuse(const std::string& why) {
  throw CompileError({Diagnostic{Severity::error,
                                 "NVRTC cannot run without access to host files here (" + why +
                                     "); libcroqjit does not compile device code outside that sandbox",
                                 0, 0, 1, "the sandbox needs Linux seccomp filters (PR_SET_NO_NEW_PRIVS)"}},
                     "", "<nvrtc>");
}

}  // namespace

const DeviceHeaders& device_headers() {
  static const DeviceHeaders headers = [] {
    DeviceHeaders out;
    const std::string dir = cuda_include_dir();
    for (const char* name : kDeviceHeaders) {
      std::string text = dir.empty() ? std::string() : read_file(dir + "/" + name);
      if (text.empty()) continue;
      out.names.push_back(name);
      out.texts.push_back(std::move(text));
    }
    return out;
  }();
  return headers;
}

const std::vector<std::string>& includable_header_names() { return device_headers().names; }

void run_without_file_access(const std::function<void()>& work) {
  prepare_process();
  ThreadWork job{&work, nullptr, 0};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  // NVRTC raises the main thread's stack limit for deep programs; a thread's
  // stack is fixed, so it gets room of its own (reserved, touched as used).
  pthread_attr_setstacksize(&attr, std::size_t{256} << 20);
  pthread_t thread;
  int created = pthread_create(&thread, &attr, thread_main, &job);
  if (created != 0) {
    pthread_attr_setstacksize(&attr, std::size_t{16} << 20);
    created = pthread_create(&thread, &attr, thread_main, &job);
  }
  pthread_attr_destroy(&attr);
  if (created != 0) refuse(std::string("pthread_create: ") + std::strerror(created));
  pthread_join(thread, nullptr);
  if (job.filter_errno != 0) refuse(std::string("seccomp: ") + std::strerror(job.filter_errno));
  if (job.failure) std::rethrow_exception(job.failure);
}

}  // namespace croq::jit
