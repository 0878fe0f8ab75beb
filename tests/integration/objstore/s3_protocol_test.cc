// What the S3 client sends and how it reacts to answers RGW cannot be made
// to give (503 SlowDown, 500, a 200 carrying an <Error>, a failing part),
// against a real loopback HTTP server that records every request.
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include "common/real_clock.h"
#include "objstore/s3_object_store.h"
#include "objstore/sigv4.h"
#include "support/run_coroutine.h"
#include "support/test_http_server.h"

namespace rayagg {
namespace {

using test::Respond;
using test::TestHttpServer;

std::string ErrorXml(std::string_view code) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + std::string(code) +
         "</Code><Message></Message><RequestId>tx1</RequestId></Error>";
}

class S3ProtocolTest : public ::testing::Test {
 protected:
  ObjectStoreConfig Config(S3Config::Addressing addressing = S3Config::Addressing::kPath) {
    ObjectStoreConfig config;
    config.url = "s3://bucket/pre";
    config.s3.addressing = addressing;
    config.s3.access_key_id = "AKIDEXAMPLE";
    config.s3.secret_access_key = "secret-never-sent";
    config.s3.part_size = 5ull * 1024 * 1024;
    config.s3.multipart_threshold = 5ull * 1024 * 1024;
    if (addressing == S3Config::Addressing::kPath) {
      config.s3.endpoint = server_.Url();
    } else {
      config.s3.endpoint = "http://s3.example.test:" + std::to_string(server_.port());
      config.s3.connect_address = "127.0.0.1:" + std::to_string(server_.port());
    }
    config.request_timeout = std::chrono::seconds(30);
    return config;
  }

  std::unique_ptr<S3ObjectStore> Make(const ObjectStoreConfig& config) {
    auto store = S3ObjectStore::Make(io_context_.get_executor(), config, logger_, clock_);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  absl::Status Put(S3ObjectStore& store, std::string key, std::string_view body) {
    return test::RunCoroutine(io_context_, store.Put({.key = std::move(key), .body = body}));
  }

  TestHttpServer server_;
  RealClock clock_;  // the loopback server does not check the signing time
  asio::io_context io_context_;
  std::shared_ptr<spdlog::logger> logger_holder_ =
      std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>());
  spdlog::logger& logger_ = *logger_holder_;
};

TEST_F(S3ProtocolTest, PutSignsTheRealPayloadHash) {
  auto store = Make(Config());
  ASSERT_TRUE(Put(*store, "dir/a b.jsonl", "payload").ok());
  ASSERT_EQ(server_.RequestCount(), 1u);
  const test::ReceivedRequest request = server_.Requests()[0];
  EXPECT_EQ(request.method, "PUT");
  EXPECT_EQ(request.target, "/bucket/pre/dir/a%20b.jsonl");
  EXPECT_EQ(request.body, "payload");
  EXPECT_EQ(request.Header("x-amz-content-sha256"), sigv4::Sha256Hex("payload"));
  EXPECT_EQ(request.Header("Content-Length"), "7");
  EXPECT_FALSE(request.Header("Transfer-Encoding"));
  const std::string authorization = request.Header("Authorization").value_or("");
  EXPECT_EQ(authorization.rfind("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/", 0), 0u);
  EXPECT_NE(authorization.find("/us-east-1/s3/aws4_request"), std::string::npos);
  for (const auto& [name, value] : request.headers) {
    EXPECT_EQ(value.find("secret-never-sent"), std::string::npos) << name;
  }
}

TEST_F(S3ProtocolTest, VirtualHostedSendsTheBucketInTheHostHeader) {
  auto store = Make(Config(S3Config::Addressing::kVirtualHosted));
  ASSERT_TRUE(Put(*store, "k", "x").ok());
  const test::ReceivedRequest request = server_.Requests().at(0);
  EXPECT_EQ(request.target, "/pre/k");
  EXPECT_EQ(request.Header("Host"), "bucket.s3.example.test:" + std::to_string(server_.port()));
}

TEST_F(S3ProtocolTest, ErrorsCarryTheirCode) {
  auto store = Make(Config());
  server_.Enqueue(Respond{.status = 503, .body = ErrorXml("SlowDown")});
  absl::Status status = Put(*store, "k", "x");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(ObjectStoreErrorReason(status), "SlowDown");
  server_.Enqueue(Respond{.status = 500});
  status = Put(*store, "k", "x");
  EXPECT_EQ(ObjectStoreErrorReason(status), "http_500");
  server_.Enqueue(Respond{.status = 400, .body = ErrorXml("XAmzContentSHA256Mismatch")});
  EXPECT_EQ(Put(*store, "k", "x").code(), absl::StatusCode::kDataLoss);
  server_.Enqueue(Respond{.status = 403, .body = ErrorXml("AccessDenied")});
  status = Put(*store, "cluster-history/raycluster/ns/c/s/n/node_events/f.jsonl", "x");
  EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied);
  // Messages name the bucket and the key's directory, never the payload.
  EXPECT_NE(
      status.message().find("s3://bucket/pre/cluster-history/raycluster/ns/c/s/n/node_events/"),
      std::string::npos)
      << status;
}

TEST_F(S3ProtocolTest, HungServerHitsTheDeadline) {
  ObjectStoreConfig config = Config();
  config.request_timeout = std::chrono::milliseconds(200);
  auto store = Make(config);
  server_.SetDefaultBehavior(test::Hang{});
  absl::Status status = Put(*store, "k", "x");
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(ObjectStoreErrorReason(status), "timeout");
}

TEST_F(S3ProtocolTest, MultipartUploadsPartsAndCompletes) {
  auto store = Make(Config());
  server_.SetResponder([](const test::ReceivedRequest& request, size_t) -> test::Behavior {
    if (request.method == "POST" && request.target.find("uploads=") != std::string::npos) {
      return Respond{.body =
                         "<InitiateMultipartUploadResult><UploadId>up/1</UploadId>"
                         "</InitiateMultipartUploadResult>"};
    }
    if (request.method == "PUT") {
      return Respond{.headers = {{"ETag", "\"etag-" + std::to_string(request.body.size()) + "\""}}};
    }
    return Respond{.body = "<CompleteMultipartUploadResult/>"};
  });
  const std::string body(11ull * 1024 * 1024, 'z');
  ASSERT_TRUE(Put(*store, "big", body).ok());
  const auto requests = server_.Requests();
  ASSERT_EQ(requests.size(), 5u);
  EXPECT_EQ(requests[0].target, "/bucket/pre/big?uploads=");
  EXPECT_EQ(requests[1].target, "/bucket/pre/big?partNumber=1&uploadId=up%2F1");
  EXPECT_EQ(requests[1].body.size(), 5u * 1024 * 1024);
  EXPECT_EQ(requests[2].target, "/bucket/pre/big?partNumber=2&uploadId=up%2F1");
  EXPECT_EQ(requests[3].body.size(), 1u * 1024 * 1024);
  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(requests[i].Header("x-amz-content-sha256"), sigv4::Sha256Hex(requests[i].body));
  }
  EXPECT_EQ(requests[4].method, "POST");
  EXPECT_EQ(requests[4].target, "/bucket/pre/big?uploadId=up%2F1");
  EXPECT_NE(requests[4].body.find("<Part><PartNumber>3</PartNumber><ETag>\"etag-1048576\"</ETag>"),
            std::string::npos);
  EXPECT_EQ(store->multipart_uploads(), 1u);
}

TEST_F(S3ProtocolTest, FailedMultipartIsAborted) {
  auto store = Make(Config());
  server_.SetResponder([](const test::ReceivedRequest& request, size_t) -> test::Behavior {
    if (request.method == "POST") {
      return Respond{.body =
                         "<InitiateMultipartUploadResult><UploadId>u1</UploadId>"
                         "</InitiateMultipartUploadResult>"};
    }
    if (request.method == "PUT" && request.target.find("partNumber=2") != std::string::npos) {
      return Respond{.status = 503, .body = ErrorXml("SlowDown")};
    }
    if (request.method == "DELETE") return Respond{.status = 204};
    return Respond{.headers = {{"ETag", "\"e\""}}};
  });
  absl::Status status = Put(*store, "big", std::string(11ull * 1024 * 1024, 'z'));
  EXPECT_EQ(ObjectStoreErrorReason(status), "SlowDown");
  const auto requests = server_.Requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[3].method, "DELETE");
  EXPECT_EQ(requests[3].target, "/bucket/pre/big?uploadId=u1");
  EXPECT_EQ(store->multipart_aborts(), 1u);
}

TEST_F(S3ProtocolTest, ErrorInsideA200CompleteIsAnError) {
  auto store = Make(Config());
  server_.SetResponder([](const test::ReceivedRequest& request, size_t) -> test::Behavior {
    if (request.method == "POST" && request.target.find("uploads=") != std::string::npos) {
      return Respond{.body =
                         "<InitiateMultipartUploadResult><UploadId>u</UploadId>"
                         "</InitiateMultipartUploadResult>"};
    }
    if (request.method == "POST") return Respond{.status = 200, .body = ErrorXml("InternalError")};
    if (request.method == "DELETE") return Respond{.status = 204};
    return Respond{.headers = {{"ETag", "\"e\""}}};
  });
  absl::Status status = Put(*store, "big", std::string(6ull * 1024 * 1024, 'z'));
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(ObjectStoreErrorReason(status), "InternalError");
  EXPECT_EQ(store->multipart_aborts(), 1u);
}

TEST_F(S3ProtocolTest, ListSendsV2ParametersAndStripsThePrefix) {
  auto store = Make(Config());
  server_.Enqueue(Respond{
      .body = "<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>t 1"
              "</NextContinuationToken><Contents><Key>pre/a/b</Key><Size>3</Size></Contents>"
              "<CommonPrefixes><Prefix>pre/a/c/</Prefix></CommonPrefixes></ListBucketResult>"});
  auto page = test::RunCoroutine(
      io_context_,
      store->List({.prefix = "a/", .start_after = "a/0", .delimiter = "/", .max_keys = 2}));
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(page->objects.at(0).key, "a/b");
  EXPECT_EQ(page->common_prefixes, std::vector<std::string>{"a/c/"});
  EXPECT_EQ(page->next_continuation_token, "t 1");
  EXPECT_EQ(
      server_.Requests().at(0).target,
      "/bucket?delimiter=%2F&list-type=2&max-keys=2&prefix=pre%2Fa%2F&start-after=pre%2Fa%2F0");
  server_.Enqueue(Respond{.body = "<ListBucketResult><IsTruncated>false</IsTruncated>"
                                  "</ListBucketResult>"});
  auto next =
      test::RunCoroutine(io_context_, store->List({.prefix = "a/", .continuation_token = "t 1"}));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(server_.Requests().at(1).target,
            "/bucket?continuation-token=t%201&list-type=2&max-keys=1000&prefix=pre%2Fa%2F");
}

TEST_F(S3ProtocolTest, GetReturnsMetadataAndEncoding) {
  auto store = Make(Config());
  server_.Enqueue(Respond{.headers = {{"Content-Encoding", "gzip"},
                                      {"Content-Type", "application/x-ndjson"},
                                      {"x-amz-meta-rayagg-writer", "w"},
                                      {"X-Amz-Meta-Rayagg-Seq", "1-2"}},
                          .body = "bytes"});
  auto object = test::RunCoroutine(io_context_, store->Get({.key = "k"}));
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_EQ(object->body, "bytes");
  EXPECT_EQ(object->content_encoding, "gzip");
  EXPECT_EQ(object->metadata, (ObjectMetadata{{"rayagg-seq", "1-2"}, {"rayagg-writer", "w"}}));
  EXPECT_EQ(server_.Requests().at(0).Header("x-amz-content-sha256"), sigv4::kEmptySha256);
}

}  // namespace
}  // namespace rayagg
