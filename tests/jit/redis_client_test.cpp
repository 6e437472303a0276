// The Redis client under the remote cache: the redis:// URL, and every way
// a server can fail it (refused, paused, gone, not Redis, trickling, huge
// replies), each bounded in time and none fatal to the process.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/redis_server.hpp"
#include "croq/error.hpp"
#include "jit/redis_client.hpp"

namespace croq::jit {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using croq::test::RedisServer;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::string parse_error(const std::string& url) {
  try {
    RedisEndpoint::parse(url, "CROQ_CACHE_REMOTE");
  } catch (const CacheError& e) {
    return e.what();
  }
  return "(parsed)";
}

TEST(RedisUrl, ParsesTheForms) {
  RedisEndpoint e = RedisEndpoint::parse("redis://cache.internal:6380/2", "X");
  EXPECT_EQ(e.host, "cache.internal");
  EXPECT_EQ(e.port, 6380);
  EXPECT_EQ(e.db, 2);
  EXPECT_TRUE(e.user.empty());
  EXPECT_TRUE(e.password.empty());
  e = RedisEndpoint::parse("redis://10.0.0.5", "X");
  EXPECT_EQ(e.port, 6379);
  EXPECT_EQ(e.db, 0);
  e = RedisEndpoint::parse("redis://:s%40cret@10.0.0.5:7000/", "X");
  EXPECT_EQ(e.password, "s@cret");
  EXPECT_TRUE(e.user.empty());
  e = RedisEndpoint::parse("redis://croq:pa:ss@[::1]:7001/15", "X");
  EXPECT_EQ(e.user, "croq");
  EXPECT_EQ(e.password, "pa:ss");
  EXPECT_EQ(e.host, "::1");
  EXPECT_EQ(e.port, 7001);
  EXPECT_EQ(e.db, 15);
  EXPECT_EQ(e.describe(), "redis://[::1]:7001/15");  // no credentials in messages
}

TEST(RedisUrl, RefusesMalformedUrlsWithoutShowingThem) {
  const std::string form = " (expected redis://[user:password@]host[:port][/db])";
  EXPECT_EQ(parse_error("http://host:6379"), "CROQ_CACHE_REMOTE: the URL does not start with redis://" + form);
  EXPECT_EQ(parse_error("rediss://host:6379"),
            "CROQ_CACHE_REMOTE: TLS (rediss://) is not supported; reach Redis over a trusted network or a tunnel" + form);
  EXPECT_EQ(parse_error("redis://:6379"), "CROQ_CACHE_REMOTE: the host is missing" + form);
  EXPECT_EQ(parse_error("redis://host:0"), "CROQ_CACHE_REMOTE: the port is not a number from 1 to 65535" + form);
  EXPECT_EQ(parse_error("redis://host:65536"), "CROQ_CACHE_REMOTE: the port is not a number from 1 to 65535" + form);
  EXPECT_EQ(parse_error("redis://host:port"), "CROQ_CACHE_REMOTE: the port is not a number from 1 to 65535" + form);
  EXPECT_EQ(parse_error("redis://host/x"), "CROQ_CACHE_REMOTE: the database is not a number" + form);
  EXPECT_EQ(parse_error("redis://secret@host"),
            "CROQ_CACHE_REMOTE: credentials must be user:password or :password" + form);
  EXPECT_EQ(parse_error("redis://user:@host"), "CROQ_CACHE_REMOTE: the password is empty" + form);
  EXPECT_EQ(parse_error("redis://user:bad%zz@host"), "CROQ_CACHE_REMOTE: bad percent-encoding in the credentials" + form);
  EXPECT_EQ(parse_error("redis://[::1:6379"), "CROQ_CACHE_REMOTE: unclosed [ in the host" + form);
  EXPECT_EQ(parse_error("redis://[::1]x"), "CROQ_CACHE_REMOTE: unexpected text after the host" + form);
  EXPECT_EQ(parse_error("redis://ho st:1"), "CROQ_CACHE_REMOTE: the host is not a host name" + form);
  EXPECT_EQ(parse_error("redis://u:hunter2@host:x").find("hunter2"), std::string::npos);
}

// A listener on 127.0.0.1 that answers every connection with `reply`, one
// byte every `gap` (a server that is not Redis, or one that trickles).
class FakeServer {
 public:
  FakeServer(std::string reply, milliseconds gap) : reply_(std::move(reply)), gap_(gap) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 4);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      char buf[256];
      (void)::read(client, buf, sizeof buf);
      if (gap_.count() == 0) (void)::send(client, reply_.data(), reply_.size(), MSG_NOSIGNAL);
      for (std::size_t i = 0; gap_.count() != 0 && i < reply_.size() && !stop_; ++i) {
        (void)::send(client, reply_.data() + i, 1, MSG_NOSIGNAL);
        std::this_thread::sleep_for(gap_);
      }
      while (!stop_) std::this_thread::sleep_for(milliseconds(5));
      ::close(client);
    });
  }
  ~FakeServer() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  RedisEndpoint endpoint() const { return RedisEndpoint::parse("redis://127.0.0.1:" + std::to_string(port_), "t"); }

 private:
  std::string reply_;
  milliseconds gap_;
  int fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

constexpr RedisTimeouts kTimeouts{milliseconds(100), milliseconds(100)};

TEST(RedisClient, ConnectionRefusedIsAnErrorNotAHang) {
  RedisServer redis;
  if (!redis.available()) GTEST_SKIP() << redis.why();
  RedisEndpoint e = redis.endpoint();
  redis.kill();  // nothing listens on the port now
  std::string why;
  auto t = Clock::now();
  EXPECT_EQ(RedisConnection::connect(e, kTimeouts, 1 << 20, &why), nullptr);
  EXPECT_LT(ms_since(t), 100 + 400);
  EXPECT_EQ(why, "connect: Connection refused");
}

TEST(RedisClient, CommandsAndRepliesOfEachKind) {
  RedisServer redis;
  if (!redis.available()) GTEST_SKIP() << redis.why();
  std::string why;
  auto c = RedisConnection::connect(redis.endpoint(), kTimeouts, 1 << 20, &why);
  ASSERT_TRUE(c) << why;
  const std::string binary("a\0b\r\nc", 6);
  auto set = c->command({"SET", "k", binary}, &why);
  ASSERT_TRUE(set) << why;
  EXPECT_EQ(set->kind, RedisReply::Kind::status);
  auto get = c->command({"GET", "k"}, &why);
  ASSERT_TRUE(get);
  EXPECT_EQ(get->kind, RedisReply::Kind::string);
  EXPECT_EQ(get->text, binary);
  EXPECT_EQ(c->command({"GET", "missing"}, &why)->kind, RedisReply::Kind::nil);
  auto n = c->command({"STRLEN", "k"}, &why);
  EXPECT_EQ(n->kind, RedisReply::Kind::integer);
  EXPECT_EQ(n->integer, 6);
  auto err = c->command({"NOSUCHCOMMAND"}, &why);
  ASSERT_TRUE(err) << "an error reply is a reply";
  EXPECT_EQ(err->kind, RedisReply::Kind::error);
  EXPECT_TRUE(c->command({"PING"}, &why)) << "the connection survives an error reply";
}

TEST(RedisClient, AuthenticatesAndSelectsTheDatabase) {
  RedisServer redis;
  if (!redis.available()) GTEST_SKIP() << redis.why();
  ASSERT_TRUE(redis.command({"CONFIG", "SET", "requirepass", "s3cret"}));
  std::string why;
  RedisEndpoint e = RedisEndpoint::parse("redis://:s3cret@127.0.0.1:" + std::to_string(redis.port()) + "/3", "t");
  auto c = RedisConnection::connect(e, kTimeouts, 1 << 20, &why);
  ASSERT_TRUE(c) << why;
  ASSERT_TRUE(c->command({"SET", "in3", "yes"}, &why));
  auto size = c->command({"DBSIZE"}, &why);
  EXPECT_EQ(size->integer, 1);
  e.password = "wrong";
  EXPECT_EQ(RedisConnection::connect(e, kTimeouts, 1 << 20, &why), nullptr);
  EXPECT_EQ(why.rfind("AUTH: WRONGPASS", 0), 0u) << why;
  e.user = "nobody";
  EXPECT_EQ(RedisConnection::connect(e, kTimeouts, 1 << 20, &why), nullptr);
  EXPECT_EQ(why.rfind("AUTH: WRONGPASS", 0), 0u) << why;
}

TEST(RedisClient, PausedServerTimesOutWithinTheBound) {
  RedisServer redis;
  if (!redis.available()) GTEST_SKIP() << redis.why();
  std::string why;
  auto c = RedisConnection::connect(redis.endpoint(), kTimeouts, 1 << 20, &why);
  ASSERT_TRUE(c) << why;
  redis.pause();
  auto t = Clock::now();
  EXPECT_FALSE(c->command({"PING"}, &why));
  EXPECT_LT(ms_since(t), 100 + 400);  // the timeout, and slack for a loaded machine
  EXPECT_GE(ms_since(t), 95);
  EXPECT_EQ(why, "no answer within 100 ms");
  // A new connection: the kernel still accepts it, the AUTH-less PING of a
  // fresh client times out the same way.
  t = Clock::now();
  auto fresh = RedisConnection::connect(redis.endpoint(), kTimeouts, 1 << 20, &why);
  ASSERT_TRUE(fresh);
  EXPECT_FALSE(fresh->command({"GET", "k"}, &why));
  EXPECT_LT(ms_since(t), 2 * 100 + 400);
  redis.resume();
}

TEST(RedisClient, ServerGoneMidConnectionIsAnErrorNotASignal) {
  RedisServer redis;
  if (!redis.available()) GTEST_SKIP() << redis.why();
  std::string why;
  auto c = RedisConnection::connect(redis.endpoint(), kTimeouts, 1 << 20, &why);
  ASSERT_TRUE(c) << why;
  redis.kill();
  // Writing to the dead connection raises SIGPIPE, which must not end the process.
  const std::string big(1 << 20, 'x');
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(c->command({"SET", "k", big}, &why));
  EXPECT_FALSE(why.empty());
}

TEST(RedisClient, AServerThatIsNotRedisIsAProtocolError) {
  FakeServer http("HTTP/1.1 400 Bad Request\r\n\r\n", milliseconds(0));
  std::string why;
  auto c = RedisConnection::connect(http.endpoint(), kTimeouts, 1 << 20, &why);
  ASSERT_TRUE(c) << why;
  EXPECT_FALSE(c->command({"PING"}, &why));
  EXPECT_EQ(why.rfind("not a Redis reply: ", 0), 0u) << why;
}

TEST(RedisClient, ATricklingReplyIsCutAtTheCommandDeadline) {
  FakeServer slow("$1000\r\n" + std::string(1000, 'x') + "\r\n", milliseconds(20));
  std::string why;
  auto c = RedisConnection::connect(slow.endpoint(), kTimeouts, 1 << 20, &why);
  ASSERT_TRUE(c) << why;
  auto t = Clock::now();
  EXPECT_FALSE(c->command({"GET", "k"}, &why));
  EXPECT_LT(ms_since(t), 100 + 400);
  EXPECT_EQ(why, "no answer within 100 ms");
}

TEST(RedisClient, AReplyLargerThanTheCapIsRefused) {
  RedisServer redis;
  if (!redis.available()) GTEST_SKIP() << redis.why();
  ASSERT_TRUE(redis.command({"SET", "big", std::string(100000, 'x')}));
  std::string why;
  auto c = RedisConnection::connect(redis.endpoint(), kTimeouts, 4096, &why);
  ASSERT_TRUE(c) << why;
  EXPECT_FALSE(c->command({"GET", "big"}, &why));
  EXPECT_EQ(why, "a reply larger than 4096 bytes");
}

}  // namespace
}  // namespace croq::jit
