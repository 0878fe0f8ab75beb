// A real Ceph RGW for tests, started on loopback by tests/support/rgw/start-rgw.sh.
// Start one per test suite (RgwTest below) and give every test a bucket of
// its own. A test that cannot start it fails; it never skips.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "rayagg/config.h"
#include "support/temp_dir.h"

namespace rayagg::test {

class RgwServer {
 public:
  // Starts the cluster; throws std::runtime_error with the script's output
  // when it cannot.
  RgwServer();
  ~RgwServer();
  RgwServer(const RgwServer&) = delete;
  RgwServer& operator=(const RgwServer&) = delete;

  const std::string& endpoint() const { return endpoint_; }          // http://127.0.0.1:PORT
  const std::string& tls_endpoint() const { return tls_endpoint_; }  // https://127.0.0.1:PORT
  uint16_t port() const { return port_; }
  uint16_t tls_port() const { return tls_port_; }
  const std::string& ca_file() const { return ca_file_; }
  const std::string& access_key() const { return access_key_; }
  const std::string& secret_key() const { return secret_key_; }

  // An object-store config for s3://<bucket>[/prefix] on this server, path
  // style over http, credentials from the config's environment fields.
  ObjectStoreConfig StoreConfig(const std::string& bucket, const std::string& prefix = "") const;

  // SIGKILL radosgw alone (the cluster and its data stay): connections are
  // refused until RestartGateway().
  void KillGateway();
  // Starts radosgw again on the same ports; returns once it answers.
  void RestartGateway();

  // A fresh bucket name for one test ("rayagg-<n>-<pid>").
  static std::string UniqueBucket();

 private:
  std::string dir_;
  std::string endpoint_, tls_endpoint_, ca_file_, access_key_, secret_key_, ceph_conf_, run_dir_;
  uint16_t port_ = 0, tls_port_ = 0;
};

// A fixture sharing one server among the tests of a suite: started before
// the suite's first test, stopped after its last.
class RgwTest : public ::testing::Test {
 public:
  static void SetUpTestSuite();
  static void TearDownTestSuite();

 protected:
  // Fails the test when the server could not be started (with its output).
  void SetUp() override;
  static RgwServer& rgw() { return *rgw_; }

 private:
  static RgwServer* rgw_;
  static std::string start_error_;
};

}  // namespace rayagg::test
