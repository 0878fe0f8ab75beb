// ReadSmallFile: whole files up to the limit; a larger file, or one that
// never ends (/dev/zero, whose stat() size is 0), is an error naming the
// path, never the content.
#include "common/small_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "support/temp_dir.h"

namespace rayagg {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(SmallFileTest, ReadsAFileUpToExactlyTheLimit) {
  test::TempDir dir;
  const std::string path = dir.Write("exact", std::string(100, 'k'));
  absl::StatusOr<std::string> content = ReadSmallFile(path, 100);
  ASSERT_TRUE(content.ok()) << content.status();
  EXPECT_EQ(*content, std::string(100, 'k'));

  // Larger than one read chunk, so the loop is exercised.
  const std::string big(3 * 4096 + 17, 'b');
  content = ReadSmallFile(dir.Write("big", big), big.size());
  ASSERT_TRUE(content.ok()) << content.status();
  EXPECT_EQ(*content, big);

  content = ReadSmallFile(dir.Write("empty", ""));
  ASSERT_TRUE(content.ok()) << content.status();
  EXPECT_EQ(*content, "");
}

TEST(SmallFileTest, OneByteOverTheLimitIsRefusedNamingThePathNotTheContent) {
  test::TempDir dir;
  const std::string path = dir.Write("over", "canary-content-" + std::string(86, 'x'));
  absl::StatusOr<std::string> content = ReadSmallFile(path, 100);
  ASSERT_FALSE(content.ok());
  EXPECT_EQ(content.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(content.status().message()), HasSubstr(path));
  EXPECT_THAT(std::string(content.status().message()), HasSubstr("larger than 100 bytes"));
  EXPECT_THAT(std::string(content.status().message()), Not(HasSubstr("canary")));
}

TEST(SmallFileTest, AFileThatNeverEndsIsRefused) {
  absl::StatusOr<std::string> content = ReadSmallFile("/dev/zero");
  ASSERT_FALSE(content.ok());
  EXPECT_EQ(content.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(content.status().message()), HasSubstr("/dev/zero"));
}

TEST(SmallFileTest, MissingAndUnreadablePathsSayWhy) {
  test::TempDir dir;
  absl::StatusOr<std::string> missing = ReadSmallFile(dir.Path("absent"));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr(dir.Path("absent")));

  absl::StatusOr<std::string> directory = ReadSmallFile(dir.path().string());
  ASSERT_FALSE(directory.ok());
  EXPECT_THAT(std::string(directory.status().message()), HasSubstr(dir.path().string()));
}

}  // namespace
}  // namespace rayagg
