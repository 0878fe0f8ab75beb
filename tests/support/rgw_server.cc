#include "support/rgw_server.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "support/condition_wait.h"

#ifndef RAYAGG_RGW_SCRIPTS
#error "RAYAGG_RGW_SCRIPTS must name tests/support/rgw"
#endif

namespace rayagg::test {
namespace {

// Runs `command`, returns its exit status and everything it printed.
int Run(const std::string& command, std::string* output) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
  char buffer[4096];
  size_t got = 0;
  while ((got = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output->append(buffer, got);
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::map<std::string, std::string> ReadEnvFile(const std::string& path) {
  std::map<std::string, std::string> values;
  std::ifstream file(path);
  std::string line;
  while (std::getline(file, line)) {
    const size_t equals = line.find('=');
    if (equals != std::string::npos) values[line.substr(0, equals)] = line.substr(equals + 1);
  }
  return values;
}

std::string ShortTempDir() {
  // Admin socket paths are limited: keep the directory short.
  char pattern[] = "/tmp/rgw.XXXXXX";
  if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

}  // namespace

RgwServer::RgwServer() : dir_(ShortTempDir()) {
  std::string output;
  const std::string command =
      std::string(RAYAGG_RGW_SCRIPTS) + "/start-rgw.sh " + dir_ + " " + std::to_string(::getpid());
  if (Run(command, &output) != 0) {
    throw std::runtime_error(
        "could not start Ceph RGW (scripts/test installs ceph-mon ceph-osd "
        "radosgw): " +
        output);
  }
  auto env = ReadEnvFile(dir_ + "/env");
  endpoint_ = env["RGW_ENDPOINT"];
  tls_endpoint_ = env["RGW_TLS_ENDPOINT"];
  port_ = static_cast<uint16_t>(std::stoi(env["RGW_PORT"]));
  tls_port_ = static_cast<uint16_t>(std::stoi(env["RGW_TLS_PORT"]));
  ca_file_ = env["RGW_CA_FILE"];
  access_key_ = env["S3_ACCESS_KEY"];
  secret_key_ = env["S3_SECRET_KEY"];
  ceph_conf_ = env["CEPH_CONF"];
  run_dir_ = env["RGW_RUN_DIR"];
}

RgwServer::~RgwServer() {
  std::string ignored;
  Run(std::string(RAYAGG_RGW_SCRIPTS) + "/stop-rgw.sh " + dir_, &ignored);
  std::error_code error;
  std::filesystem::remove_all(dir_, error);
}

ObjectStoreConfig RgwServer::StoreConfig(const std::string& bucket,
                                         const std::string& prefix) const {
  ObjectStoreConfig config;
  config.url = "s3://" + bucket + (prefix.empty() ? "" : "/" + prefix);
  config.s3.endpoint = endpoint_;
  config.s3.addressing = S3Config::Addressing::kPath;
  config.s3.access_key_id = access_key_;
  config.s3.secret_access_key = secret_key_;
  config.request_timeout = std::chrono::seconds(60);
  return config;
}

void RgwServer::KillGateway() {
  std::ifstream pidfile(run_dir_ + "/ceph-client.rgw.test.pid");
  pid_t pid = 0;
  if (!(pidfile >> pid) || pid <= 0) throw std::runtime_error("no radosgw pid file");
  ::kill(pid, SIGKILL);
  // Gone once the port refuses connections.
  const std::string probe = "python3 -c \"import socket; socket.create_connection(('127.0.0.1', " +
                            std::to_string(port_) + "), 1)\"";
  std::string output;
  if (WaitFor([&] { return Run(probe, &output) != 0; }, std::chrono::seconds(60))) return;
  throw std::runtime_error("radosgw still answers after SIGKILL");
}

void RgwServer::RestartGateway() {
  std::string output;
  if (Run("radosgw -c " + ceph_conf_ + " -n client.rgw.test", &output) != 0) {
    throw std::runtime_error("radosgw did not restart: " + output);
  }
  const std::string probe = "python3 -c \"import urllib.request; urllib.request.urlopen('" +
                            endpoint_ + "/', timeout=1)\"";
  std::string ignored;
  if (WaitFor([&] { return Run(probe, &ignored) == 0; }, std::chrono::seconds(120))) return;
  throw std::runtime_error("radosgw did not answer after a restart");
}

std::string RgwServer::UniqueBucket() {
  static std::atomic<int> counter{0};
  return "rayagg-" + std::to_string(counter++) + "-" + std::to_string(::getpid());
}

RgwServer* RgwTest::rgw_ = nullptr;
std::string RgwTest::start_error_;

void RgwTest::SetUpTestSuite() {
  if (rgw_ != nullptr) return;
  try {
    rgw_ = new RgwServer();
  } catch (const std::exception& error) {
    start_error_ = error.what();
  }
}

void RgwTest::SetUp() {
  if (rgw_ == nullptr) FAIL() << start_error_;
}

void RgwTest::TearDownTestSuite() {
  delete rgw_;
  rgw_ = nullptr;
}

}  // namespace rayagg::test
