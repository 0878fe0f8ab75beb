// Object-store sinks (s3:// and dir:// URLs): their keys, defaults from the
// environment, the settings that are errors on them (naming the key), and a
// summary without secrets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/load_config.h"
#include "config_test_util.h"
#include "support/temp_dir.h"

namespace rayagg {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing_config::Message;

std::string ErrorOf(const std::string& yaml) {
  absl::StatusOr<Config> config = ParseConfigYaml(yaml);
  EXPECT_FALSE(config.ok()) << "parsed unexpectedly:\n" << yaml;
  return config.ok() ? "" : Message(config);
}

absl::StatusOr<LoadedConfig> Load(const std::string& yaml, Environment env) {
  static test::TempDir dir;
  CommandLine cli;
  cli.config_path = dir.Write("config.yaml", yaml);
  return LoadConfig(cli, env);
}

TEST(ObjectSinkConfigTest, ParsesEveryKey) {
  absl::StatusOr<Config> config = ParseConfigYaml(R"(
sinks:
  - name: history
    url: s3://ray-history/prod
    layout: kuberay
    cluster: {namespace: ray, name: raycluster-a, kind: RayJob, owner: nightly}
    node_id: ABCDEF01
    object: {max_age: 5s, max_bytes: 8MiB, max_open_bytes: 16MiB, gzip: false}
    s3:
      endpoint: https://s3.oss-cn-hangzhou.aliyuncs.com
      region: cn-hangzhou
      addressing: virtual_hosted
      connect_address: 10.0.0.5:443
      access_key_id_file: /secrets/id
      secret_access_key_file: /secrets/secret
      session_token_file: /secrets/token
      multipart_threshold: 32MiB
      part_size: 16MiB
    request_timeout: 20s
    max_in_flight: 4
)");
  ASSERT_TRUE(config.ok()) << config.status();
  const SinkConfig& sink = config->sinks[0];
  EXPECT_EQ(sink.cluster.namespace_name, "ray");
  EXPECT_EQ(sink.cluster.name, "raycluster-a");
  EXPECT_EQ(sink.cluster.kind, "RayJob");
  EXPECT_EQ(sink.cluster.owner, "nightly");
  EXPECT_EQ(sink.node_id, "ABCDEF01");
  EXPECT_EQ(sink.object.max_age, std::chrono::seconds(5));
  EXPECT_EQ(sink.object.max_bytes, 8u << 20);
  EXPECT_EQ(sink.object.max_open_bytes, 16u << 20);
  EXPECT_FALSE(sink.object.gzip);
  EXPECT_EQ(sink.s3.endpoint, "https://s3.oss-cn-hangzhou.aliyuncs.com");
  EXPECT_EQ(sink.s3.region, "cn-hangzhou");
  EXPECT_EQ(sink.s3.connect_address, "10.0.0.5:443");
  EXPECT_EQ(sink.s3.secret_access_key_file, "/secrets/secret");
  EXPECT_EQ(sink.s3.multipart_threshold, 32u << 20);
  EXPECT_EQ(sink.s3.part_size, 16u << 20);
  EXPECT_EQ(sink.max_in_flight, 4u);
  // Default for these sinks: every event type (profile and autoscaler feed the history views).
  EXPECT_EQ(sink.event_types, EventTypeFilter::All());
}

TEST(ObjectSinkConfigTest, DefaultsOfTheseSinks) {
  absl::StatusOr<Config> config = ParseConfigYaml("sinks:\n  - url: dir:///h\n");
  ASSERT_TRUE(config.ok()) << config.status();
  const SinkConfig& sink = config->sinks[0];
  EXPECT_EQ(sink.event_types, EventTypeFilter::All());
  EXPECT_EQ(sink.request_timeout, std::chrono::seconds(10));
  EXPECT_EQ(sink.object.max_age, std::chrono::seconds(10));
  EXPECT_EQ(sink.object.max_bytes, 32u << 20);
  EXPECT_EQ(sink.object.max_open_bytes, 64u << 20);
  EXPECT_TRUE(sink.object.gzip);
}

TEST(ObjectSinkConfigTest, DefaultsComeFromKubeRaysVariablesAndTheAwsCredentials) {
  absl::StatusOr<LoadedConfig> loaded =
      Load("sinks:\n  - url: s3://ray-history\n", Environment({{"RAY_CLUSTER_NAME", "raycluster-a"},
                                                               {"RAY_CLUSTER_NAMESPACE", "ray"},
                                                               {"OWNER_KIND", "RayService"},
                                                               {"OWNER_NAME", "serve"},
                                                               {"AWS_ACCESS_KEY_ID", "AKID"},
                                                               {"AWS_SECRET_ACCESS_KEY", "s3cr3t"},
                                                               {"AWS_SESSION_TOKEN", "tok3n"}}));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const SinkConfig& sink = loaded->config.sinks[0];
  EXPECT_EQ(sink.cluster.name, "raycluster-a");
  EXPECT_EQ(sink.cluster.namespace_name, "ray");
  EXPECT_EQ(sink.cluster.kind, "rayservice");
  EXPECT_EQ(sink.cluster.owner, "serve");
  EXPECT_EQ(sink.s3.access_key_id, "AKID");
  EXPECT_EQ(sink.s3.secret_access_key, "s3cr3t");
  EXPECT_EQ(sink.s3.session_token, "tok3n");
  // The summary names where credentials come from, never what they are.
  const std::string summary = DescribeConfig(loaded->config);
  EXPECT_THAT(summary, HasSubstr("credentials from the environment"));
  EXPECT_THAT(summary, Not(HasSubstr("s3cr3t")));
  EXPECT_THAT(summary, Not(HasSubstr("tok3n")));
  EXPECT_THAT(summary, Not(HasSubstr("AKID")));
}

TEST(ObjectSinkConfigTest, EmptyVariablesCountAsUnset) {
  // The downward API gives "" for labels a plain RayCluster's pods lack.
  absl::StatusOr<LoadedConfig> loaded =
      Load("sinks:\n  - url: dir:///h\n", Environment({{"RAY_CLUSTER_NAME", "raycluster-a"},
                                                       {"RAY_CLUSTER_NAMESPACE", ""},
                                                       {"OWNER_KIND", ""},
                                                       {"OWNER_NAME", ""}}));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->config.sinks[0].cluster.namespace_name, "default");
  EXPECT_EQ(loaded->config.sinks[0].cluster.kind, "raycluster");
}

TEST(ObjectSinkConfigTest, ADirectorySinkNeedsOnlyAClusterName) {
  absl::StatusOr<LoadedConfig> loaded = Load(
      "sinks:\n  - url: dir:///var/lib/ray-history\n    cluster: {name: c1}\n", Environment({}));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const SinkConfig& sink = loaded->config.sinks[0];
  EXPECT_EQ(sink.cluster.namespace_name, "default");  // as KubeRay's collector
  EXPECT_EQ(sink.cluster.kind, "raycluster");
  EXPECT_EQ(sink.cluster.owner, "");
}

TEST(ObjectSinkConfigTest, BatchRetryPolicyAndSnakeCaseAreErrorsNamingTheKey) {
  EXPECT_THAT(ErrorOf("sinks:\n  - url: dir:///x\n    batch: {max_events: 10}\n"),
              HasSubstr("sinks[0].batch"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: s3://bucket\n    retry_policy: default\n"),
              HasSubstr("sinks[0].retry_policy"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: dir:///x\n    preserve_proto_field_names: true\n"),
              HasSubstr("sinks[0].preserve_proto_field_names"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: dir:///x\n    compression: gzip\n"),
              HasSubstr("sinks[0].compression"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: dir:///x\n    headers: {A: b}\n"),
              HasSubstr("sinks[0].headers"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: dir:///x\n    layout: collector\n"),
              HasSubstr("sinks[0].layout"));
}

TEST(ObjectSinkConfigTest, ObjectSettingsOnAnHttpSinkAreErrors) {
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://c:1/x\n    object: {max_age: 1s}\n"),
              HasSubstr("sinks[0].object"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: http://c:1/x\n    cluster: {name: a}\n"),
              HasSubstr("sinks[0].cluster"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: file:///tmp/x\n    s3: {region: eu-west-1}\n"),
              HasSubstr("sinks[0].s3"));
}

TEST(ObjectSinkConfigTest, IdentityIsCheckedAsDns1123) {
  EXPECT_THAT(ErrorOf("sinks:\n  - url: dir:///x\n    cluster: {namespace: Ray_NS, name: a}\n"),
              HasSubstr("sinks[0].cluster.namespace"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: dir:///x\n    cluster: {name: my_cluster}\n"),
              HasSubstr("sinks[0].cluster.name"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: dir:///x\n    cluster: {name: a, kind: deployment}\n"),
              HasSubstr("sinks[0].cluster.kind"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: dir:///x\n    node_id: not-hex\n"),
              HasSubstr("sinks[0].node_id"));
  // After the environment: a name is required; rayjob needs an owner; raycluster has none.
  absl::StatusOr<LoadedConfig> no_name = Load("sinks:\n  - url: dir:///x\n", Environment({}));
  ASSERT_FALSE(no_name.ok());
  EXPECT_THAT(std::string(no_name.status().message()), HasSubstr("sinks[0].cluster.name"));
  absl::StatusOr<LoadedConfig> no_owner =
      Load("sinks:\n  - url: dir:///x\n    cluster: {name: a, kind: rayjob}\n", Environment({}));
  ASSERT_FALSE(no_owner.ok());
  EXPECT_THAT(std::string(no_owner.status().message()), HasSubstr("sinks[0].cluster.owner"));
  absl::StatusOr<LoadedConfig> stray_owner =
      Load("sinks:\n  - url: dir:///x\n    cluster: {name: a, owner: b}\n", Environment({}));
  ASSERT_FALSE(stray_owner.ok());
  EXPECT_THAT(std::string(stray_owner.status().message()), HasSubstr("sinks[0].cluster.owner"));
}

TEST(ObjectSinkConfigTest, S3RulesNameTheKey) {
  EXPECT_THAT(ErrorOf("sinks:\n  - url: s3://my.dotted.bucket\n"),
              HasSubstr("sinks[0].s3.addressing"));
  // Path style, or plain http, can use it.
  EXPECT_TRUE(
      ParseConfigYaml("sinks:\n  - url: s3://my.dotted.bucket\n    s3: {addressing: path}\n").ok());
  EXPECT_THAT(ErrorOf("sinks:\n  - url: s3://Bad_Bucket\n"), HasSubstr("sinks[0].url"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: s3://bucket\n    s3: {access_key_id_file: /x}\n"),
              HasSubstr("sinks[0].s3.secret_access_key_file"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: s3://bucket\n    s3: {part_size: 20MiB}\n"),
              HasSubstr("sinks[0].s3.part_size"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: s3://bucket\n    s3: {endpoint: ftp://x}\n"),
              HasSubstr("sinks[0].s3.endpoint"));
  EXPECT_THAT(
      ErrorOf("sinks:\n  - url: s3://bucket\n    s3: {endpoint: 'http://h:1'}\n    tls: {ca_file: "
              "/ca.pem}\n"),
      HasSubstr("sinks[0].tls"));
  EXPECT_THAT(ErrorOf("sinks:\n  - url: dir:///x\n    s3: {region: eu-west-1}\n"),
              HasSubstr("sinks[0].s3"));
  absl::StatusOr<LoadedConfig> no_credentials =
      Load("sinks:\n  - url: s3://bucket\n    cluster: {name: a}\n", Environment({}));
  ASSERT_FALSE(no_credentials.ok());
  EXPECT_THAT(std::string(no_credentials.status().message()), HasSubstr("no credentials"));
}

}  // namespace
}  // namespace rayagg
