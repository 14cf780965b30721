#include "tools/fetch/world_client.h"

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace net {
namespace {

std::string WriteWorld(const std::string& json) {
  std::string path = ::testing::TempDir() + "/world_client.json";
  std::ofstream(path) << json;
  return path;
}

// A pid that existed and has exited (reaped, so nothing answers to it).
int DeadPid() {
  pid_t child = fork();
  if (child == 0) _exit(0);
  int status;
  waitpid(child, &status, 0);
  return child;
}

TEST(WorldClientTest, ReadsEveryFieldAClientUses) {
  auto world = LoadWorldFile(WriteWorld(R"({
      "trust_anchors": "/w/pki/root.pem",
      "dns": {"server": "198.18.0.53:53"},
      "resolve": ["www.example.test:443:198.18.1.11"],
      "connect_to": ["ocsp.example.test:8888::41000", "cdn.example.test:80::41001"],
      "default_url": "https://www.example.test/",
      "bundle_cdns": ["http://cdn.example.test/bundles"],
      "origins": {"www": {"scheme": "https", "host": "www.example.test", "port": 443},
                  "plain": {"scheme": "http", "host": "plain.example.test", "port": 80}},
      "revocation_filter": {"file": "/w/filters/revocation_filter"},
      "pids": {"knot": 4242}})"));
  ASSERT_TRUE(world.ok()) << world.status();
  EXPECT_EQ(world->trust_anchors, "/w/pki/root.pem");
  EXPECT_EQ(world->dns_server, "198.18.0.53:53");
  ASSERT_EQ(world->connect_to.size(), 2u);
  EXPECT_EQ(world->connect_to[0].ToString(), "ocsp.example.test:8888::41000");
  EXPECT_EQ(world->default_url, "https://www.example.test/");
  EXPECT_EQ(world->bundle_cdns.size(), 1u);
  EXPECT_EQ(world->https_ports.size(), 1u);  // https origins only
  EXPECT_EQ(world->https_ports.at("www.example.test"), 443);
  EXPECT_EQ(world->pids.at("knot"), 4242);
  EXPECT_EQ(world->revocation_filter, "/w/filters/revocation_filter");
}

TEST(WorldClientTest, RefusesWhatItCannotUse) {
  EXPECT_FALSE(LoadWorldFile("/nonexistent/world.json").ok());
  EXPECT_FALSE(LoadWorldFile(WriteWorld("{not json")).ok());
  auto no_anchor = LoadWorldFile(WriteWorld(R"({"resolve": []})"));
  ASSERT_FALSE(no_anchor.ok());
  EXPECT_NE(no_anchor.status().message().find("trust_anchors"),
            std::string::npos);
  auto bad_rule = LoadWorldFile(WriteWorld(
      R"({"trust_anchors": "/r.pem", "connect_to": ["ocsp:8888:x"]})"));
  ASSERT_FALSE(bad_rule.ok());
  EXPECT_NE(bad_rule.status().message().find("connect_to"), std::string::npos);
}

TEST(WorldClientTest, TellsAStoppedWorldFromARunningOne) {
  const int dead = DeadPid();
  auto stopped = LoadWorldFile(WriteWorld(absl::StrCat(
      R"({"trust_anchors": "/r.pem", "pids": {"knot": )", dead, "}}")));
  ASSERT_TRUE(stopped.ok()) << stopped.status();
  absl::Status status = CheckWorldRunning(*stopped);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("world not running?"), std::string::npos)
      << status;
  EXPECT_NE(status.message().find("knot"), std::string::npos);

  // One live process is enough (a world whose OCSP responder died still
  // answers the rest).
  auto running = LoadWorldFile(WriteWorld(
      absl::StrCat(R"({"trust_anchors": "/r.pem", "pids": {"knot": )", dead,
                   R"(, "testserver": )", getpid(), "}}")));
  ASSERT_TRUE(running.ok());
  EXPECT_TRUE(CheckWorldRunning(*running).ok());
  // No pids recorded: nothing to judge by.
  auto unknown = LoadWorldFile(WriteWorld(R"({"trust_anchors": "/r.pem"})"));
  ASSERT_TRUE(unknown.ok());
  EXPECT_TRUE(CheckWorldRunning(*unknown).ok());
}

}  // namespace
}  // namespace net
