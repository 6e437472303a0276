// Test helpers: run a program as a child process with extra environment
// variables, capturing its exit status, stdout and stderr.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/files.hpp"

extern char** environ;

namespace croq::test {

struct ProcessResult {
  int exit_code = -1;
  std::string out, err;
};

// A fresh directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("croq-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

class Child {
 public:
  // Starts argv[0] with the current environment plus `env` (an empty value
  // removes the variable).
  Child(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
        const std::filesystem::path& capture_dir) {
    static int counter = 0;
    std::string stem = (capture_dir / ("child-" + std::to_string(counter++))).string();
    out_path_ = stem + ".out";
    err_path_ = stem + ".err";
    std::vector<std::string> env_strings;
    for (char** e = environ; *e; ++e) {
      std::string kv = *e;
      std::string key = kv.substr(0, kv.find('='));
      if (!env.count(key)) env_strings.push_back(kv);
    }
    for (const auto& [k, v] : env)
      if (!v.empty()) env_strings.push_back(k + "=" + v);
    std::vector<char*> args, envp;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), envp.data()) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }

  pid_t pid() const { return pid_; }
  // What the child has written to stdout so far.
  std::string output_so_far() const { return slurp(out_path_); }

  ProcessResult wait() {
    ProcessResult r;
    if (pid_ > 0) {
      int status = 0;
      ::waitpid(pid_, &status, 0);
      r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    r.out = slurp(out_path_);
    r.err = slurp(err_path_);
    return r;
  }

  static std::string slurp(const std::string& path) { return read_file(path); }

 private:
  pid_t pid_ = -1;
  std::string out_path_, err_path_;
};

inline ProcessResult run_process(const std::vector<std::string>& argv,
                                 const std::map<std::string, std::string>& env,
                                 const std::filesystem::path& capture_dir) {
  return Child(argv, env, capture_dir).wait();
}

}  // namespace croq::test
