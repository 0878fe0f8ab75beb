// ReadSmallFile: whole regular files up to the limit; a larger file, a
// device that never ends (/dev/zero, whose stat() size is 0) or a FIFO
// nobody writes to is an error naming the path, never the content.
#include "common/small_file.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <future>
#include <string>

#include "support/condition_wait.h"
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

TEST(SmallFileTest, ADeviceIsRefusedNotReadUntilTheLimit) {
  absl::StatusOr<std::string> content = ReadSmallFile("/dev/zero");
  ASSERT_FALSE(content.ok());
  EXPECT_EQ(content.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(content.status().message()), HasSubstr("/dev/zero"));
  EXPECT_THAT(std::string(content.status().message()), HasSubstr("a character device"));
}

// Opening a FIFO for reading waits for a writer; before O_NONBLOCK a token
// path pointing at one hung startup (or SIGHUP) forever. If it still blocks,
// the test opens the writer end itself after its deadline so that the read
// returns (empty) and the test fails instead of hanging.
TEST(SmallFileTest, AFifoWithoutAWriterIsRefusedAtOnce) {
  test::TempDir dir;
  const std::string path = dir.Fifo("token");
  std::future<absl::StatusOr<std::string>> read =
      std::async(std::launch::async, [&path] { return ReadSmallFile(path); });
  if (read.wait_for(test::kConditionTimeout) != std::future_status::ready) {
    ADD_FAILURE() << "ReadSmallFile still waits on a FIFO without a writer";
    const int writer = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (writer >= 0) ::close(writer);
  }
  absl::StatusOr<std::string> content = read.get();
  ASSERT_FALSE(content.ok());
  EXPECT_EQ(content.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(content.status().message()), HasSubstr(path));
  EXPECT_THAT(std::string(content.status().message()), HasSubstr("FIFO"));
  EXPECT_THAT(std::string(content.status().message()), HasSubstr("not a regular file"));
}

TEST(SmallFileTest, MissingAndUnreadablePathsSayWhy) {
  test::TempDir dir;
  absl::StatusOr<std::string> missing = ReadSmallFile(dir.Path("absent"));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr(dir.Path("absent")));

  absl::StatusOr<std::string> directory = ReadSmallFile(dir.path().string());
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(directory.status().message()), HasSubstr(dir.path().string()));
  EXPECT_THAT(std::string(directory.status().message()), HasSubstr("a directory"));
}

}  // namespace
}  // namespace rayagg
