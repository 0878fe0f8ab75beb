#include "objstore/s3_credentials.h"

#include <gtest/gtest.h>

#include "rayagg/object_store.h"
#include "support/temp_dir.h"

namespace rayagg::s3 {
namespace {

TEST(S3CredentialsTest, EnvironmentValues) {
  S3Config config;
  config.access_key_id = "AKIA";
  config.secret_access_key = "secret";
  config.session_token = "token";
  auto source = CredentialSource::FromConfig(config);
  ASSERT_TRUE(source.ok());
  auto current = source->Current();
  ASSERT_TRUE(current.ok());
  EXPECT_EQ(current->access_key_id, "AKIA");
  EXPECT_EQ(current->session_token, "token");
  EXPECT_EQ(source->Describe().find("secret"), std::string::npos);
}

TEST(S3CredentialsTest, NoneIsAConfigError) {
  auto source = CredentialSource::FromConfig(S3Config{});
  EXPECT_EQ(source.status().code(), absl::StatusCode::kFailedPrecondition);
  S3Config half;
  half.access_key_id_file = "/x";
  EXPECT_NE(CredentialSource::FromConfig(half).status().message().find("both"), std::string::npos);
  S3Config token_only;
  token_only.session_token_file = "/x";
  EXPECT_FALSE(CredentialSource::FromConfig(token_only).ok());
}

TEST(S3CredentialsTest, FilesWinAndAreReReadWhenChanged) {
  test::TempDir dir;
  S3Config config;
  config.access_key_id = "from-env";
  config.secret_access_key = "from-env";
  config.access_key_id_file = dir.Write("id", "AKIA1\n");
  config.secret_access_key_file = dir.Write("secret", "  s1 \n");
  config.session_token_file = dir.Write("token", "t1");
  auto source = CredentialSource::FromConfig(config);
  ASSERT_TRUE(source.ok());
  auto first = source->Current();
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->access_key_id, "AKIA1");
  EXPECT_EQ(first->secret_access_key, "s1");
  EXPECT_EQ(first->session_token, "t1");
  const uint64_t generation = source->generation();
  EXPECT_TRUE(source->Current().ok());
  EXPECT_EQ(source->generation(), generation);  // unchanged files: same credentials
  dir.Replace("secret", "s2-longer\n");
  auto second = source->Current();
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->secret_access_key, "s2-longer");
  EXPECT_EQ(source->generation(), generation + 1);
}

TEST(S3CredentialsTest, FileErrorsNameTheFileNotTheContent) {
  test::TempDir dir;
  S3Config config;
  config.access_key_id_file = dir.Write("id", "AKIA1");
  config.secret_access_key_file = dir.Write("secret", "line1\nline2-secret");
  auto source = CredentialSource::FromConfig(config);
  ASSERT_TRUE(source.ok());
  auto current = source->Current();
  EXPECT_EQ(current.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_NE(current.status().message().find("s3.secret_access_key_file"), std::string::npos);
  EXPECT_EQ(current.status().message().find("line2-secret"), std::string::npos);
  EXPECT_EQ(ObjectStoreErrorReason(current.status()), "credentials");
  dir.Write("secret", "");
  EXPECT_NE(source->Current().status().message().find("empty"), std::string::npos);
  std::filesystem::remove(dir.Path("secret"));
  current = source->Current();
  EXPECT_EQ(current.status().code(), absl::StatusCode::kUnauthenticated);  // no stale key
  EXPECT_EQ(ObjectStoreErrorReason(current.status()), "credentials");
  dir.Write("secret", "fixed");
  EXPECT_TRUE(source->Current().ok());
}

}  // namespace
}  // namespace rayagg::s3
