// log.format json|text, log.file with size rotation, and the rate limiter.
#include "ops/logger.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "ops/log_rate_limiter.h"

namespace rayagg {
namespace {

class LoggerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/logger_test_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::vector<std::string> Lines(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }

  std::string dir_;
};

TEST_F(LoggerTest, JsonFormatWritesOneValidObjectPerLine) {
  LogConfig config;
  config.format = "json";
  config.file = dir_ + "/agg.log";
  auto logger = MakeLogger(config);
  ASSERT_TRUE(logger.ok()) << logger.status();
  (*logger)->warn("delivery failed sink={} failure={}", "a",
                  "quote \" backslash \\ newline \n tab \t");
  (*logger)->debug("below the level");
  (*logger)->flush();
  const auto lines = Lines(config.file);
  ASSERT_EQ(lines.size(), 1u);
  const auto object = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(object.at("level"), "warning");
  EXPECT_EQ(object.at("msg"),
            "delivery failed sink=a failure=quote \" backslash \\ newline \n tab \t");
  EXPECT_THAT(object.at("time").get<std::string>(), ::testing::EndsWith("Z"));
}

TEST_F(LoggerTest, TextFormatIsOneLinePerMessage) {
  LogConfig config;
  config.file = dir_ + "/agg.log";
  config.level = "debug";
  auto logger = MakeLogger(config);
  ASSERT_TRUE(logger.ok()) << logger.status();
  (*logger)->debug("started sink={}", "x");
  (*logger)->flush();
  const auto lines = Lines(config.file);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], ::testing::HasSubstr(" debug started sink=x"));
}

TEST_F(LoggerTest, FileRotatesBySizeKeepingMaxFiles) {
  LogConfig config;
  config.file = dir_ + "/agg.log";
  config.max_file_bytes = 1024;
  config.max_files = 2;
  auto logger = MakeLogger(config);
  ASSERT_TRUE(logger.ok()) << logger.status();
  const std::string filler(100, 'x');
  for (int i = 0; i < 100; ++i) (*logger)->info("line {} {}", i, filler);
  (*logger)->flush();
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    ++files;
    EXPECT_LE(entry.file_size(), config.max_file_bytes) << entry.path();
  }
  EXPECT_EQ(files, 3u);  // agg.log, agg.1.log, agg.2.log
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/agg.1.log"));
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/agg.2.log"));
}

TEST_F(LoggerTest, UnopenableFileIsAnErrorNamingTheKey) {
  LogConfig config;
  config.file = "/proc/definitely/not/writable/agg.log";
  auto logger = MakeLogger(config);
  ASSERT_FALSE(logger.ok());
  EXPECT_THAT(std::string(logger.status().message()), ::testing::HasSubstr("log.file"));
}

TEST(LogRateLimiterTest, OneLinePerIntervalCountingTheRest) {
  LogRateLimiter limiter(std::chrono::seconds(10));
  const LogRateLimiter::TimePoint start{};
  EXPECT_EQ(limiter.Allow(start + std::chrono::seconds(100)), 0u);
  EXPECT_EQ(limiter.Allow(start + std::chrono::seconds(101)), std::nullopt);
  EXPECT_EQ(limiter.Allow(start + std::chrono::seconds(109)), std::nullopt);
  EXPECT_EQ(limiter.Allow(start + std::chrono::seconds(110)), 2u);
  EXPECT_EQ(limiter.Allow(start + std::chrono::seconds(125)), 0u);
}

}  // namespace
}  // namespace rayagg
