#include "objstore/dir_object_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "objstore/blocking_object_store.h"
#include "support/temp_dir.h"

namespace rayagg {
namespace {

namespace fs = std::filesystem;

class DirObjectStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto made = BlockingObjectStore::Make([&](asio::any_io_executor executor) {
      return absl::StatusOr<std::unique_ptr<ObjectStore>>(
          std::make_unique<DirObjectStore>(executor, dir_.path().string()));
    });
    ASSERT_TRUE(made.ok());
    store_ = *std::move(made);
  }

  absl::Status Put(std::string key, std::string_view body, ObjectMetadata metadata = {}) {
    PutObjectRequest request;
    request.key = std::move(key);
    request.body = body;
    request.metadata = std::move(metadata);
    return store_->Put(std::move(request));
  }

  std::vector<std::string> AllFiles() const {
    std::vector<std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(dir_.path())) {
      if (entry.is_regular_file()) files.push_back(fs::relative(entry.path(), dir_.path()));
    }
    std::sort(files.begin(), files.end());
    return files;
  }

  // Every key under `prefix`, page by page.
  std::vector<std::string> ListAll(std::string prefix, uint32_t page_size,
                                   std::string start_after = "") {
    std::vector<std::string> keys;
    ListObjectsRequest request{.prefix = prefix, .start_after = start_after, .max_keys = page_size};
    for (int pages = 0; pages < 1000; ++pages) {
      absl::StatusOr<ListObjectsPage> page = store_->List(request);
      EXPECT_TRUE(page.ok()) << page.status();
      if (!page.ok()) break;
      EXPECT_LE(page->objects.size(), page_size);
      for (const ObjectInfo& object : page->objects) keys.push_back(object.key);
      if (page->next_continuation_token.empty()) break;
      request.continuation_token = page->next_continuation_token;
    }
    return keys;
  }

  test::TempDir dir_;
  std::unique_ptr<BlockingObjectStore> store_;
};

TEST_F(DirObjectStoreTest, PutThenGetWithMetadata) {
  PutObjectRequest request;
  request.key = "a/b/c.jsonl.gz";
  request.body = "gzip bytes";
  request.content_type = "application/x-ndjson";
  request.content_encoding = "gzip";
  request.metadata = {{"rayagg-writer", "w1"}, {"rayagg-seq", "1-10"}};
  ASSERT_TRUE(store_->Put(request).ok());

  absl::StatusOr<StoredObject> object = store_->Get({.key = "a/b/c.jsonl.gz"});
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_EQ(object->body, "gzip bytes");
  EXPECT_EQ(object->content_type, "application/x-ndjson");
  EXPECT_EQ(object->content_encoding, "gzip");
  EXPECT_EQ(object->metadata, (ObjectMetadata{{"rayagg-seq", "1-10"}, {"rayagg-writer", "w1"}}));
  // No temporary file is left; the sidecar sits beside the object.
  EXPECT_EQ(AllFiles(),
            (std::vector<std::string>{"a/b/c.jsonl.gz", "a/b/c.jsonl.gz.rayagg-meta.json"}));
}

TEST_F(DirObjectStoreTest, NeverOverwrites) {
  ASSERT_TRUE(Put("k", "first").ok());
  absl::Status second = Put("k", "second");
  EXPECT_EQ(second.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(store_->Get({.key = "k"})->body, "first");
  EXPECT_EQ(AllFiles(), (std::vector<std::string>{"k", "k.rayagg-meta.json"}));
}

TEST_F(DirObjectStoreTest, EmptyObjectsAreObjects) {
  ASSERT_TRUE(Put("cluster-metadata/raycluster/ns_c/session_x", "").ok());
  auto object = store_->Get({.key = "cluster-metadata/raycluster/ns_c/session_x"});
  ASSERT_TRUE(object.ok());
  EXPECT_EQ(object->body, "");
  EXPECT_EQ(ListAll("cluster-metadata/", 10),
            std::vector<std::string>{"cluster-metadata/raycluster/ns_c/session_x"});
}

TEST_F(DirObjectStoreTest, MissingKeyIsNotFound) {
  auto object = store_->Get({.key = "nope"});
  EXPECT_EQ(object.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ObjectStoreErrorReason(object.status()), "NoSuchKey");
}

TEST_F(DirObjectStoreTest, GetRefusesObjectsAboveTheLimit) {
  ASSERT_TRUE(Put("big", std::string(1000, 'x')).ok());
  auto object = store_->Get({.key = "big", .max_bytes = 999});
  EXPECT_EQ(object.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(store_->Get({.key = "big", .max_bytes = 1000}).ok());
}

TEST_F(DirObjectStoreTest, BadKeysAndMetadataAreRefused) {
  for (std::string key :
       std::vector<std::string>{"", "/abs", "a//b", "a/../b", "a/./b", "trailing/", "x.tmp",
                                "d/x.rayagg-meta.json", std::string("nul\0x", 5)}) {
    EXPECT_EQ(Put(key, "x").code(), absl::StatusCode::kInvalidArgument) << key;
  }
  EXPECT_EQ(Put("k", "x", {{"Upper", "v"}}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Put("k", "x", {{"n", "line\nbreak"}}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Put("k", "x", {{"n", std::string(2048, 'v')}}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(AllFiles().empty());
}

TEST_F(DirObjectStoreTest, MissingRootIsAnOperatorProblem) {
  auto made = BlockingObjectStore::Make([&](asio::any_io_executor executor) {
    return absl::StatusOr<std::unique_ptr<ObjectStore>>(
        std::make_unique<DirObjectStore>(executor, dir_.Path("missing")));
  });
  ASSERT_TRUE(made.ok());
  absl::Status status = (*made)->Put({.key = "k", .body = "x"});
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("no such directory"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_.Path("missing")));
  EXPECT_EQ((*made)->List({}).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(DirObjectStoreTest, ReadOnlyDirectoryIsPermissionDenied) {
  if (::geteuid() == 0) {
    // root writes through permission bits; use a read-only file as parent
    // instead, which fails for everyone.
    ASSERT_TRUE(Put("file", "x").ok());
    absl::Status status = Put("file/child", "x");
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
    return;
  }
  fs::create_directory(dir_.Path("ro"));
  fs::permissions(dir_.Path("ro"), fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_EQ(Put("ro/k", "x").code(), absl::StatusCode::kPermissionDenied);
  fs::permissions(dir_.Path("ro"), fs::perms::owner_all);
}

TEST_F(DirObjectStoreTest, ListsInKeyOrderAcrossDirectories) {
  // "a.b" < "a/x" < "a0": '.' < '/' < '0' — a directory sorts as "name/".
  // (A key cannot also be a "directory" of other keys here, unlike in S3.)
  const std::vector<std::string> keys = {"a.b", "a/x", "a/y/z", "a0", "b-c/d", "b/e", "b0"};
  for (auto it = keys.rbegin(); it != keys.rend(); ++it) ASSERT_TRUE(Put(*it, *it).ok());
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(sorted, keys);
  for (uint32_t page_size : {1u, 2u, 3u, 1000u}) {
    EXPECT_EQ(ListAll("", page_size), keys) << page_size;
  }
  EXPECT_EQ(ListAll("a", 2), (std::vector<std::string>{"a.b", "a/x", "a/y/z", "a0"}));
  EXPECT_EQ(ListAll("a/", 2), (std::vector<std::string>{"a/x", "a/y/z"}));
  EXPECT_EQ(ListAll("b", 1), (std::vector<std::string>{"b-c/d", "b/e", "b0"}));
  EXPECT_EQ(ListAll("", 2, "a/x"), (std::vector<std::string>{"a/y/z", "a0", "b-c/d", "b/e", "b0"}));
  EXPECT_EQ(ListAll("a/", 5, "a/y"), (std::vector<std::string>{"a/y/z"}));
  EXPECT_EQ(ListAll("nothing/", 5), std::vector<std::string>{});
}

TEST_F(DirObjectStoreTest, ListReportsSizes) {
  ASSERT_TRUE(Put("d/one", "12345").ok());
  auto page = store_->List({.prefix = "d/"});
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->objects.size(), 1u);
  EXPECT_EQ(page->objects[0].size, 5u);
  EXPECT_GT(page->objects[0].last_modified.time_since_epoch().count(), 0);
}

TEST_F(DirObjectStoreTest, DelimiterRollsUpOneLevel) {
  for (std::string key : {"h/s1/n1/f", "h/s1/n2/f", "h/s2/n1/f", "h/top", "h/s3x"}) {
    ASSERT_TRUE(Put(key, "x").ok());
  }
  auto page = store_->List({.prefix = "h/", .delimiter = "/"});
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(page->common_prefixes, (std::vector<std::string>{"h/s1/", "h/s2/"}));
  ASSERT_EQ(page->objects.size(), 2u);
  EXPECT_EQ(page->objects[0].key, "h/s3x");
  EXPECT_EQ(page->objects[1].key, "h/top");

  // Paged one entry at a time: prefixes and keys in order, none repeated.
  std::vector<std::string> seen;
  ListObjectsRequest request{.prefix = "h/", .delimiter = "/", .max_keys = 1};
  for (int i = 0; i < 10; ++i) {
    auto one = store_->List(request);
    ASSERT_TRUE(one.ok());
    for (auto& p : one->common_prefixes) seen.push_back(p);
    for (auto& o : one->objects) seen.push_back(o.key);
    if (one->next_continuation_token.empty()) break;
    request.continuation_token = one->next_continuation_token;
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"h/s1/", "h/s2/", "h/s3x", "h/top"}));

  auto sessions = store_->List({.prefix = "h/s", .delimiter = "/"});
  ASSERT_TRUE(sessions.ok());
  EXPECT_EQ(sessions->common_prefixes, (std::vector<std::string>{"h/s1/", "h/s2/"}));
}

TEST_F(DirObjectStoreTest, ListHidesTemporaryAndForeignFiles) {
  ASSERT_TRUE(Put("d/real", "x").ok());
  std::ofstream(dir_.Path("d/real.123.tmp")) << "partial";
  std::ofstream(dir_.Path("d/other")) << "written by someone else";  // no sidecar
  fs::create_symlink("/nonexistent", dir_.Path("d/dangling"));
  EXPECT_EQ(ListAll("d/", 10), (std::vector<std::string>{"d/other", "d/real"}));
  auto other = store_->Get({.key = "d/other"});
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(other->metadata.empty());
}

TEST_F(DirObjectStoreTest, ListRefusesUnsupportedRequests) {
  EXPECT_EQ(store_->List({.delimiter = ","}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->List({.max_keys = 0}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->List({.prefix = "/x"}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(DirObjectStoreTest, DescribeNamesThePath) {
  EXPECT_EQ(store_->Describe(), "dir://" + dir_.path().string());
}

}  // namespace
}  // namespace rayagg
