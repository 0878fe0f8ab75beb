// SecretFile, the one reader of secrets kept in files (sinks' bearer token
// files, S3 key files): trimmed, re-read only when the file changes, bounded,
// and errors that name the setting and the file, never the content.
#include "common/secret_file.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <utility>

#include "common/small_file.h"
#include "support/temp_dir.h"

namespace rayagg {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::string_view kKey = "sinks[0].bearer_token_file";

std::string MessageOf(const absl::StatusOr<std::string>& value) {
  return std::string(value.status().message());
}

TEST(SecretFileTest, ValueIsTrimmedAndReReadWhenTheFileIsReplaced) {
  test::TempDir dir;
  SecretFile file(std::string(kKey), dir.Write("token", "first-token\n"));
  absl::StatusOr<std::string> value = file.Current();
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, "first-token");

  // Rotation as Kubernetes does it: a new file renamed over the old one.
  dir.Replace("token", "  second token-longer \r\n");
  value = file.Current();
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, "second token-longer");  // a blank inside is kept

  // Rewritten in place (same inode), with another size.
  dir.Write("token", "third\n");
  value = file.Current();
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, "third");
}

// One stat() per use, a read only when identity, size or modification time
// changed: content rewritten in place with the same size and timestamp is
// not seen (what proves the read is skipped), a new timestamp is.
TEST(SecretFileTest, UnchangedFileIsNotReadAgain) {
  test::TempDir dir;
  const std::string path = dir.Write("token", "aaaa\n");
  SecretFile file(std::string(kKey), path);
  ASSERT_EQ(file.Current().value_or(""), "aaaa");

  struct stat before {};
  ASSERT_EQ(::stat(path.c_str(), &before), 0);
  dir.Write("token", "bbbb\n");
  const timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  EXPECT_EQ(file.Current().value_or(""), "aaaa");

  const timespec later[2] = {before.st_atim, {before.st_mtim.tv_sec + 1, before.st_mtim.tv_nsec}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), later, 0), 0);
  EXPECT_EQ(file.Current().value_or(""), "bbbb");
}

TEST(SecretFileTest, AMissingFileIsWorthRetryingAndRecovers) {
  test::TempDir dir;
  const std::string path = dir.Write("token", "t1");
  SecretFile file(std::string(kKey), path);
  ASSERT_TRUE(file.Current().ok());

  std::filesystem::remove(path);
  absl::StatusOr<std::string> value = file.Current();
  ASSERT_FALSE(value.ok());  // no stale secret is handed out
  EXPECT_EQ(value.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(MessageOf(value), HasSubstr(std::string(kKey) + " " + path + ": "));

  dir.Write("token", "t2");
  EXPECT_EQ(file.Current().value_or(""), "t2");
}

TEST(SecretFileTest, WhatCannotBeASecretIsRefusedNamingTheFileNotTheContent) {
  test::TempDir dir;
  const std::pair<std::string, std::string> cases[] = {
      {dir.Write("empty", " \n"), "is empty"},
      {dir.Write("two-lines", "canary-one\ncanary-two\n"), "line break or control character"},
      {dir.Write("control", "canary\x01x"), "line break or control character"},
      {dir.Write("huge", "canary" + std::string(kMaxSecretFileBytes, 'h')), "larger than"},
      {"/dev/zero", "not a regular file"},
      {dir.Fifo("fifo"), "not a regular file"},  // refused at once, never waited on
      {dir.path().string(), "not a regular file"},
  };
  for (const auto& [path, why] : cases) {
    SecretFile file(std::string(kKey), path);
    absl::StatusOr<std::string> value = file.Current();
    ASSERT_FALSE(value.ok()) << path;
    EXPECT_EQ(value.status().code(), absl::StatusCode::kFailedPrecondition) << value.status();
    EXPECT_THAT(MessageOf(value), HasSubstr(std::string(kKey) + " " + path + ": ")) << path;
    EXPECT_THAT(MessageOf(value), HasSubstr(why)) << path;
    EXPECT_THAT(MessageOf(value), Not(HasSubstr("canary"))) << path;
  }
}

TEST(SecretFileTest, ExactlyTheLimitIsASecret) {
  test::TempDir dir;
  SecretFile file(std::string(kKey), dir.Write("limit", std::string(kMaxSecretFileBytes, 't')));
  absl::StatusOr<std::string> value = file.Current();
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(value->size(), kMaxSecretFileBytes);
}

}  // namespace
}  // namespace rayagg
