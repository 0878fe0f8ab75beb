// The S3 client against a real Ceph RGW (SigV4 strictly checked): objects,
// odd keys, listing, multipart, errors by <Code>, credential files rotated,
// clock skew, HTTPS with a test CA and virtual-hosted style through
// s3.connect_address.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <random>

#include "common/real_clock.h"
#include "objstore/s3_object_store.h"
#include "support/rgw_server.h"
#include "support/run_coroutine.h"
#include "support/temp_dir.h"

namespace rayagg {
namespace {

using test::RunCoroutine;

// Real time with the wall clock `skew` ahead (a machine whose clock is off).
class SkewedClock final : public Clock {
 public:
  explicit SkewedClock(std::chrono::system_clock::duration skew) : skew_(skew) {}
  SteadyTime Now() const override { return real_.Now(); }
  WallTime WallNow() const override { return real_.WallNow() + skew_; }
  std::unique_ptr<Timer> MakeTimer(asio::any_io_executor executor) override {
    return real_.MakeTimer(std::move(executor));
  }

 private:
  RealClock real_;
  std::chrono::system_clock::duration skew_;
};

class S3RgwTest : public test::RgwTest {
 protected:
  void SetUp() override {
    RgwTest::SetUp();
    if (HasFatalFailure()) return;
    bucket_ = test::RgwServer::UniqueBucket();
    auto store = Make(rgw().StoreConfig(bucket_, "root/prefix"));
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    ASSERT_TRUE(Run(store_->CreateBucket()).ok());
  }

  // A real server checks the signature's time against its own: real wall
  // time unless a test passes a skewed clock.
  absl::StatusOr<std::unique_ptr<S3ObjectStore>> Make(const ObjectStoreConfig& config) {
    return Make(config, real_clock_);
  }
  absl::StatusOr<std::unique_ptr<S3ObjectStore>> Make(const ObjectStoreConfig& config,
                                                      Clock& clock) {
    return S3ObjectStore::Make(io_context_.get_executor(), config, logger_, clock);
  }

  template <typename T>
  T Run(asio::awaitable<T> call) {
    return RunCoroutine(io_context_, std::move(call));
  }

  absl::Status Put(S3ObjectStore& store, std::string key, std::string_view body,
                   ObjectMetadata metadata = {}) {
    PutObjectRequest request;
    request.key = std::move(key);
    request.body = body;
    request.metadata = std::move(metadata);
    return Run(store.Put(std::move(request)));
  }

  std::vector<std::string> Keys(S3ObjectStore& store, ListObjectsRequest request) {
    std::vector<std::string> keys;
    for (int page = 0; page < 100; ++page) {
      auto listed = Run(store.List(request));
      EXPECT_TRUE(listed.ok()) << listed.status();
      if (!listed.ok()) break;
      for (const auto& object : listed->objects) keys.push_back(object.key);
      for (const auto& prefix : listed->common_prefixes) keys.push_back(prefix);
      if (listed->next_continuation_token.empty()) break;
      request.continuation_token = listed->next_continuation_token;
    }
    return keys;
  }

  RealClock real_clock_;
  asio::io_context io_context_;
  std::shared_ptr<spdlog::logger> logger_holder_ =
      std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>());
  spdlog::logger& logger_ = *logger_holder_;
  std::string bucket_;
  std::unique_ptr<S3ObjectStore> store_;
};

TEST_F(S3RgwTest, PutGetWithMetadataAndEncoding) {
  PutObjectRequest request;
  request.key = "a/b/events.jsonl.gz";
  request.body = "\x1f\x8b not really gzip";
  request.content_type = "application/x-ndjson";
  request.content_encoding = "gzip";
  request.metadata = {{"rayagg-writer", "abc"}, {"rayagg-seq", "1-5"}};
  ASSERT_TRUE(Run(store_->Put(request)).ok());
  auto object = Run(store_->Get({.key = "a/b/events.jsonl.gz"}));
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_EQ(object->body, request.body);  // stored bytes, not decoded
  EXPECT_EQ(object->content_encoding, "gzip");
  EXPECT_EQ(object->content_type, "application/x-ndjson");
  EXPECT_EQ(object->metadata, (ObjectMetadata{{"rayagg-seq", "1-5"}, {"rayagg-writer", "abc"}}));
  // The URL's prefix is the store's business: the bucket holds root/prefix/a/b/...
  auto whole_bucket = Make(rgw().StoreConfig(bucket_));
  ASSERT_TRUE(whole_bucket.ok());
  EXPECT_EQ(Keys(**whole_bucket, {}), std::vector<std::string>{"root/prefix/a/b/events.jsonl.gz"});
}

TEST_F(S3RgwTest, KeysWithCharactersThatNeedEncoding) {
  const std::vector<std::string> keys = {"weird/a b+c=d&e@f~g!'()*\xc3\xa9:,.json", "weird/100%/x",
                                         "weird/[brackets]{braces}", "weird/semi;colon$dollar"};
  for (const std::string& key : keys) {
    ASSERT_TRUE(Put(*store_, key, key).ok()) << key;
    auto object = Run(store_->Get({.key = key}));
    ASSERT_TRUE(object.ok()) << key << ": " << object.status();
    EXPECT_EQ(object->body, key);
  }
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(Keys(*store_, {.prefix = "weird/"}), sorted);
}

TEST_F(S3RgwTest, ListPagesPrefixesAndStartAfter) {
  for (std::string key : {"h/s1/n1/a", "h/s1/n1/b", "h/s1/n2/a", "h/s2/n1/a", "h/top", "x/y"}) {
    ASSERT_TRUE(Put(*store_, key, "x").ok());
  }
  EXPECT_EQ(
      Keys(*store_, {.prefix = "h/", .max_keys = 2}),
      (std::vector<std::string>{"h/s1/n1/a", "h/s1/n1/b", "h/s1/n2/a", "h/s2/n1/a", "h/top"}));
  EXPECT_EQ(Keys(*store_, {.prefix = "h/", .delimiter = "/"}),
            (std::vector<std::string>{"h/top", "h/s1/", "h/s2/"}));
  EXPECT_EQ(Keys(*store_, {.prefix = "h/s1/", .start_after = "h/s1/n1/b"}),
            (std::vector<std::string>{"h/s1/n2/a"}));
  auto page = Run(store_->List({.prefix = "h/s1/n1/"}));
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->objects.size(), 2u);
  EXPECT_EQ(page->objects[0].size, 1u);
  EXPECT_FALSE(page->objects[0].etag.empty());
  EXPECT_GT(page->objects[0].last_modified.time_since_epoch().count(), 0);
}

TEST_F(S3RgwTest, MultipartAboveTheThreshold) {
  ObjectStoreConfig config = rgw().StoreConfig(bucket_);
  config.s3.part_size = 5ull * 1024 * 1024;
  config.s3.multipart_threshold = 6ull * 1024 * 1024;
  auto store = Make(config);
  ASSERT_TRUE(store.ok());
  std::string body(11ull * 1024 * 1024 + 17, '\0');
  std::mt19937_64 random(7);
  for (char& c : body) c = static_cast<char>(random());
  PutObjectRequest request{.key = "big/object.bin", .body = body};
  request.metadata = {{"rayagg-events", "42"}};
  ASSERT_TRUE(Run((*store)->Put(request)).ok());
  EXPECT_EQ((*store)->multipart_uploads(), 1u);
  EXPECT_EQ((*store)->multipart_aborts(), 0u);
  auto object = Run((*store)->Get({.key = "big/object.bin"}));
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_TRUE(object->body == body);
  EXPECT_EQ(object->metadata, (ObjectMetadata{{"rayagg-events", "42"}}));
  // Just below the threshold: one PUT.
  ASSERT_TRUE(
      Put(**store, "big/small.bin", std::string_view(body).substr(0, 6 * 1024 * 1024 - 1)).ok());
  EXPECT_EQ((*store)->multipart_uploads(), 1u);
}

TEST_F(S3RgwTest, ErrorsAreClassifiedByCode) {
  ObjectStoreConfig config = rgw().StoreConfig(bucket_);
  config.s3.secret_access_key = "wrong-secret";
  auto wrong_secret = Make(config);
  ASSERT_TRUE(wrong_secret.ok());
  absl::Status status = Put(**wrong_secret, "k", "x");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnauthenticated) << status;
  EXPECT_EQ(ObjectStoreErrorReason(status), "SignatureDoesNotMatch");
  EXPECT_EQ(status.message().find("wrong-secret"), std::string::npos);

  config = rgw().StoreConfig(bucket_);
  config.s3.access_key_id = "NOSUCHACCESSKEY00000";
  auto unknown_key = Make(config);
  ASSERT_TRUE(unknown_key.ok());
  status = Put(**unknown_key, "k", "x");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(ObjectStoreErrorReason(status), "InvalidAccessKeyId");

  auto no_bucket = Make(rgw().StoreConfig("no-such-bucket-" + bucket_));
  ASSERT_TRUE(no_bucket.ok());
  status = Put(**no_bucket, "k", "x");
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ObjectStoreErrorReason(status), "NoSuchBucket");
  EXPECT_EQ(Run((*no_bucket)->List({})).status().code(), absl::StatusCode::kFailedPrecondition);

  auto missing = Run(store_->Get({.key = "never/written"}));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ObjectStoreErrorReason(missing.status()), "NoSuchKey");

  ASSERT_TRUE(Put(*store_, "sized", std::string(2000, 'x')).ok());
  auto too_large = Run(store_->Get({.key = "sized", .max_bytes = 1000}));
  EXPECT_EQ(too_large.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST_F(S3RgwTest, CredentialFilesAreReReadWhenTheyChange) {
  test::TempDir files;
  ObjectStoreConfig config = rgw().StoreConfig(bucket_);
  config.s3.access_key_id.clear();
  config.s3.secret_access_key.clear();
  config.s3.access_key_id_file = files.Write("key", rgw().access_key() + "\n");
  config.s3.secret_access_key_file = files.Write("secret", "not-the-secret\n");
  auto store = Make(config);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ(ObjectStoreErrorReason(Put(**store, "rotated", "x")), "SignatureDoesNotMatch");
  const uint64_t before = (*store)->credentials_generation();
  // Replaced the way Kubernetes updates a mounted Secret: a new file renamed over.
  files.Replace("secret", rgw().secret_key() + "\n");
  EXPECT_TRUE(Put(**store, "rotated", "x").ok());
  EXPECT_GT((*store)->credentials_generation(), before);
  // The description names the files, never their content.
  EXPECT_EQ((*store)->Describe().find(rgw().secret_key()), std::string::npos);
  EXPECT_NE((*store)->Describe().find(files.Path("secret")), std::string::npos);
}

TEST_F(S3RgwTest, ClockSkewIsCorrectedFromTheServersDate) {
  const auto skew = std::chrono::hours(2);
  SkewedClock skewed(skew);
  auto store = Make(rgw().StoreConfig(bucket_), skewed);
  ASSERT_TRUE(store.ok());
  EXPECT_TRUE(Put(**store, "skewed", "x").ok());
  const auto offset = std::chrono::duration_cast<std::chrono::seconds>((*store)->clock_offset());
  EXPECT_GT(offset.count(), -2 * 3600 - 120);
  EXPECT_LT(offset.count(), -2 * 3600 + 120);
  EXPECT_TRUE(Put(**store, "skewed-again", "x").ok());
}

TEST_F(S3RgwTest, HttpsWithTheTestCa) {
  ObjectStoreConfig config = rgw().StoreConfig(bucket_);
  config.s3.endpoint = rgw().tls_endpoint();
  config.tls.ca_file = rgw().ca_file();
  auto store = Make(config);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_TRUE(Put(**store, "over-tls", "x").ok());
  EXPECT_EQ(Run((*store)->Get({.key = "over-tls"}))->body, "x");

  config.tls.ca_file.clear();  // the system's CAs do not know the test CA
  auto untrusting = Make(config);
  ASSERT_TRUE(untrusting.ok());
  absl::Status status = Put(**untrusting, "refused", "x");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_EQ(ObjectStoreErrorReason(status), "tls");
}

TEST_F(S3RgwTest, VirtualHostedStyleThroughConnectAddress) {
  for (const bool https : {false, true}) {
    ObjectStoreConfig config = rgw().StoreConfig(bucket_);
    config.s3.addressing = S3Config::Addressing::kVirtualHosted;
    const uint16_t port = https ? rgw().tls_port() : rgw().port();
    config.s3.endpoint =
        std::string(https ? "https" : "http") + "://s3.localhost:" + std::to_string(port);
    config.s3.connect_address = "127.0.0.1:" + std::to_string(port);
    if (https) config.tls.ca_file = rgw().ca_file();
    auto store = Make(config);
    ASSERT_TRUE(store.ok()) << store.status();
    const std::string key = std::string("virtual/") + (https ? "tls" : "plain");
    ASSERT_TRUE(Put(**store, key, "v").ok()) << https;
    EXPECT_EQ(Run((*store)->Get({.key = key}))->body, "v");
    EXPECT_EQ(Keys(**store, {.prefix = key}), std::vector<std::string>{key});
  }
  // Read back path-style: the same bucket.
  auto path_style = Make(rgw().StoreConfig(bucket_));
  ASSERT_TRUE(path_style.ok());
  EXPECT_EQ(Keys(**path_style, {.prefix = "virtual/"}),
            (std::vector<std::string>{"virtual/plain", "virtual/tls"}));
}

}  // namespace
}  // namespace rayagg
