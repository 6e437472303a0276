// A private redis-server for the remote cache tests and the benchmark: on a
// free port of 127.0.0.1 only, in a temp directory of its own, without
// persistence, killed when the object goes (and by the kernel if this
// process dies first). The fault tests stop, continue, kill and restart it.
//
//   RedisServer redis;
//   if (!redis.available()) GTEST_SKIP() << redis.why();
//   ... CROQ_CACHE_REMOTE=redis.url() ...
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "jit/redis_client.hpp"

namespace croq::test {

class RedisServer {
 public:
  RedisServer() {
    executable_ = find_executable();
    if (executable_.empty()) {
      why_ = "redis-server is not installed (not on PATH, /usr/bin or /usr/sbin)";
      return;
    }
    std::random_device rd;
    dir_ = std::filesystem::temp_directory_path() / ("croq-redis-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(dir_);
    for (int attempt = 0; attempt < 5 && pid_ <= 0; ++attempt) {
      port_ = free_loopback_port();
      if (port_ > 0) start();
    }
  }
  ~RedisServer() {
    kill();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  bool available() const { return pid_ > 0; }
  const std::string& why() const { return why_; }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }
  jit::RedisEndpoint endpoint() const { return jit::RedisEndpoint::parse(url(), "test"); }

  void pause() const { ::kill(pid_, SIGSTOP); }
  void resume() const { ::kill(pid_, SIGCONT); }
  void kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  // Starts it again on the same port (after kill()).
  bool restart() {
    kill();
    start();
    return available();
  }

  // One command on a fresh connection (values for the tests to plant or
  // read); nullopt when the server does not answer within a second.
  std::optional<jit::RedisReply> command(const std::vector<std::string_view>& args) const {
    std::string why;
    auto c = jit::RedisConnection::connect(endpoint(), {std::chrono::seconds(1), std::chrono::seconds(1)}, 1u << 30, &why);
    if (!c) return std::nullopt;
    return c->command(args, &why);
  }

 private:
  static std::string find_executable() {
    std::vector<std::string> dirs;
    if (const char* path = std::getenv("PATH")) {
      std::stringstream ss(path);
      for (std::string d; std::getline(ss, d, ':');) dirs.push_back(d);
    }
    dirs.insert(dirs.end(), {"/usr/bin", "/usr/sbin", "/usr/local/bin"});
    for (const auto& d : dirs)
      if (!d.empty() && ::access((d + "/redis-server").c_str(), X_OK) == 0) return d + "/redis-server";
    return {};
  }

  // A port the kernel just handed out for 127.0.0.1 (free a moment ago; a
  // start that loses the race tries another).
  static int free_loopback_port() {
    int s = ::socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) return -1;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    int port = -1;
    if (::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        ::getsockname(s, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
      port = ntohs(addr.sin_port);
    ::close(s);
    return port;
  }

  void start() {
    const std::string log = (dir_ / "redis.log").string();
    std::vector<std::string> args{executable_, "--port", std::to_string(port_), "--bind", "127.0.0.1",
                                  "--save", "", "--appendonly", "no", "--dir", dir_.string(),
                                  "--daemonize", "no", "--logfile", log};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0) {  // only async-signal-safe calls until exec
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      int devnull = ::open("/dev/null", O_RDWR);
      ::dup2(devnull, 0);
      ::dup2(devnull, 1);
      ::dup2(devnull, 2);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    if (pid < 0) {
      why_ = "fork failed";
      return;
    }
    pid_ = pid;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      auto pong = command({"PING"});
      if (pong && pong->text == "PONG") return;
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {  // exited: port taken, bad option ...
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    why_ = "redis-server did not start on 127.0.0.1:" + std::to_string(port_) + " (see " + log + ")";
    kill();
  }

  std::string executable_;
  std::filesystem::path dir_;
  int port_ = -1;
  pid_t pid_ = -1;
  std::string why_;
};

}  // namespace croq::test
