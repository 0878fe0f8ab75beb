// ui.redact's matcher and what it hides in a runtime env's JSON text and in
// job metadata: values under matching keys at any depth, case-insensitive
// with the default "(?i)", and whatever cannot be checked.
#include "history/api/redactor.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "history/api/ui_options.h"

namespace rayagg::history {
namespace {

using nlohmann::json;

Redactor Default() {
  absl::StatusOr<Redactor> made = Redactor::Make(kDefaultRedactPattern);
  EXPECT_TRUE(made.ok()) << made.status();
  return made.ok() ? *made : Redactor::Everything();
}

TEST(Redactor, DefaultPatternMatchesSecretsInAnyCase) {
  const Redactor redactor = Default();
  for (std::string_view key : {"API_TOKEN", "api_token", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD",
                               "Password", "GOOGLE_APPLICATION_CREDENTIALS", "ssh-key", "tOkEn"}) {
    EXPECT_TRUE(redactor.Matches(key)) << key;
  }
  for (std::string_view key : {"PATH", "OMP_NUM_THREADS", "RAY_ADDRESS", "", "PASS"}) {
    EXPECT_FALSE(redactor.Matches(key)) << key;
  }
  // Without (?i) the pattern is case-sensitive.
  absl::StatusOr<Redactor> exact = Redactor::Make("TOKEN");
  ASSERT_TRUE(exact.ok());
  EXPECT_TRUE(exact->Matches("API_TOKEN"));
  EXPECT_FALSE(exact->Matches("api_token"));
  // A key too long to match safely is hidden.
  EXPECT_TRUE(redactor.Matches(std::string(5000, 'A')));
  EXPECT_TRUE(Redactor::Everything().Matches("PATH"));
}

TEST(Redactor, InvalidPatternsSayWhy) {
  for (std::string_view bad : {"(", "[a-", "a(?i)b", "", "(?i)", "*x"}) {
    absl::StatusOr<Redactor> made = Redactor::Make(bad);
    EXPECT_FALSE(made.ok()) << bad;
    EXPECT_EQ(made.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(Redactor, RuntimeEnvValuesUnderMatchingKeysAreHidden) {
  const Redactor redactor = Default();
  const json env = {
      {"env_vars", {{"API_TOKEN", "s3cr3t-value"}, {"PATH", "/usr/bin"}}},
      {"pip", {"requests==2.31"}},
      {"config", {{"setup_timeout_seconds", 600}, {"nested", {{"private_key", {{"a", 1}}}}}}},
      {"container", {{"image", "img"}, {"run_options", {{{"password", "pw"}}}}}},
  };
  const std::string out = redactor.RedactRuntimeEnv(env.dump());
  EXPECT_EQ(out.find("s3cr3t-value"), std::string::npos) << out;
  const json redacted = json::parse(out);
  EXPECT_EQ(redacted["env_vars"]["API_TOKEN"], "\u2022\u2022\u2022");
  EXPECT_EQ(redacted["env_vars"]["PATH"], "/usr/bin");
  EXPECT_EQ(redacted["pip"], env["pip"]);
  EXPECT_EQ(redacted["config"]["setup_timeout_seconds"], 600);
  EXPECT_EQ(redacted["config"]["nested"]["private_key"], "\u2022\u2022\u2022");
  EXPECT_EQ(redacted["container"]["run_options"][0]["password"], "\u2022\u2022\u2022");

  // Nothing to hide: the very same text back.
  const std::string clean = R"({"env_vars": {"PATH": "/bin"}, "working_dir": "."})";
  EXPECT_EQ(redactor.RedactRuntimeEnv(clean), clean);
  EXPECT_EQ(redactor.RedactRuntimeEnv(""), "");
  // Not JSON: hidden whole.
  EXPECT_EQ(redactor.RedactRuntimeEnv("API_TOKEN=s3cr3t"), "\u2022\u2022\u2022");
  // Deeper than a runtime env ever is: hidden below the limit.
  std::string deep = "1";
  for (int i = 0; i < 100; ++i) deep = R"({"a": )" + deep + "}";
  const std::string shallow = redactor.RedactRuntimeEnv(deep);
  EXPECT_NE(shallow.find("\u2022\u2022\u2022"), std::string::npos);
  EXPECT_EQ(shallow.find("1}"), std::string::npos);
}

TEST(Redactor, JobMetadataMembers) {
  const Redactor redactor = Default();
  json metadata = {{"job_submission_id", "raysubmit_1"}, {"slack_token", "xoxb-1"}};
  redactor.RedactMembers(metadata);
  EXPECT_EQ(metadata["job_submission_id"], "raysubmit_1");
  EXPECT_EQ(metadata["slack_token"], "\u2022\u2022\u2022");
}

}  // namespace
}  // namespace rayagg::history
