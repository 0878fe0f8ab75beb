#include "objstore/rules/kuberay_layout.h"

#include <gtest/gtest.h>

namespace rayagg::kuberay {
namespace {

using std::chrono::system_clock;

ClusterIdentity RayCluster() {
  return ClusterIdentity{ClusterKind::kRayCluster, "ml-team", "raycluster-demo", ""};
}
ClusterIdentity RayJob() {
  return ClusterIdentity{ClusterKind::kRayJob, "ml-team", "raycluster-abc12", "nightly-train"};
}

// 2026-12-03T10:04:05.123456789Z
system_clock::time_point SampleTime() {
  return system_clock::time_point(std::chrono::duration_cast<system_clock::duration>(
      std::chrono::nanoseconds(1796292245123456789LL)));
}

constexpr std::string_view kNode = "d3b5e1c8a1f0b2c4d6e8f0a2b4c6d8e0f2a4b6c8d0e2f4a6b8c0d2e4";
constexpr std::string_view kSession = "session_2026-12-03_10-04-05_123456_4242";

TEST(KubeRayLayoutTest, MarkerKeysJoinIdentityWithUnderscores) {
  EXPECT_EQ(SessionMarkerKey(RayCluster(), kSession),
            "cluster-metadata/raycluster/ml-team_raycluster-demo/"
            "session_2026-12-03_10-04-05_123456_4242");
  EXPECT_EQ(SessionMarkerKey(RayJob(), kSession),
            "cluster-metadata/rayjob/ml-team_nightly-train_raycluster-abc12/"
            "session_2026-12-03_10-04-05_123456_4242");
  ClusterIdentity service{ClusterKind::kRayService, "prod", "svc-raycluster-x", "svc"};
  EXPECT_EQ(SessionMarkerKey(service, "s"),
            "cluster-metadata/rayservice/prod_svc_svc-raycluster-x/s");
}

TEST(KubeRayLayoutTest, EventKeysFollowTheV17Layout) {
  const std::string node(kNode);
  EXPECT_EQ(EventObjectKey(RayCluster(), kSession, node, EventCategory{}, SampleTime(), true),
            "cluster-history/raycluster/ml-team/raycluster-demo/"
            "session_2026-12-03_10-04-05_123456_4242/" +
                node + "/node_events/" + node + "-2026-12-03-10-1796292245123456789.jsonl.gz");
  EXPECT_EQ(
      EventObjectKey(RayJob(), kSession, node, EventCategory{"01000000"}, SampleTime(), false),
      "cluster-history/rayjob/ml-team/nightly-train/raycluster-abc12/"
      "session_2026-12-03_10-04-05_123456_4242/" +
          node + "/job_events/01000000/" + node + "-2026-12-03-10-1796292245123456789.jsonl");
}

TEST(KubeRayLayoutTest, EventKeysRoundTrip) {
  for (const ClusterIdentity& identity : {RayCluster(), RayJob()}) {
    for (const EventCategory& category : {EventCategory{}, EventCategory{"02000000"}}) {
      for (bool gzip : {false, true}) {
        const std::string key =
            EventObjectKey(identity, kSession, kNode, category, SampleTime(), gzip);
        std::optional<EventObjectKeyParts> parts = ParseEventObjectKey(key);
        ASSERT_TRUE(parts) << key;
        EXPECT_EQ(parts->cluster, identity);
        EXPECT_EQ(parts->session, kSession);
        EXPECT_EQ(parts->node_id_hex, kNode);
        EXPECT_EQ(parts->category, category);
        EXPECT_EQ(parts->file.node_id_hex, kNode);
        EXPECT_EQ(parts->file.unix_nanos, 1796292245123456789LL);
        EXPECT_EQ(parts->file.hour, 10);
        EXPECT_TRUE(parts->file.jsonl);
        EXPECT_EQ(parts->file.gzip, gzip);
      }
    }
  }
}

TEST(KubeRayLayoutTest, MarkerKeysRoundTrip) {
  for (const ClusterIdentity& identity : {RayCluster(), RayJob()}) {
    std::optional<SessionMarker> marker =
        ParseSessionMarkerKey(SessionMarkerKey(identity, kSession));
    ASSERT_TRUE(marker);
    EXPECT_EQ(marker->cluster, identity);
    EXPECT_EQ(marker->session, kSession);
  }
  EXPECT_FALSE(ParseSessionMarkerKey("cluster-metadata/raycluster/no-underscore/s"));
  EXPECT_FALSE(ParseSessionMarkerKey("cluster-metadata/rayjob/ns_cluster/s"));  // owner missing
  EXPECT_FALSE(ParseSessionMarkerKey("cluster-metadata/raycluster/ns_c/s/extra"));
  EXPECT_FALSE(ParseSessionMarkerKey("cluster-metadata/RayCluster/ns_c/s"));
  EXPECT_FALSE(ParseSessionMarkerKey("cluster-history/raycluster/ns/c/s"));
}

TEST(KubeRayLayoutTest, FileNamesParseByTheReadersRule) {
  struct Case {
    std::string_view name;
    bool parses;
    std::optional<int64_t> nanos;
    bool jsonl, gzip;
  };
  const Case cases[] = {
      {"abc-2026-12-03-10-1796292245123456789.jsonl.gz", true, 1796292245123456789LL, true, true},
      {"abc-2026-12-03-10-17.jsonl", true, 17, true, false},
      {"abc-2026-12-03-10", true, std::nullopt, false, false},  // legacy <node>-<hour>
      {"abc-2026-12-03-10.gz", true, std::nullopt, false, true},
      {"abc-2026-12-03-10.jsonl", true, std::nullopt, true, false},
      {"abc-2026-12-03-10-.jsonl", false, std::nullopt, false, false},
      {"abc-2026-12-03.jsonl", false, std::nullopt, false, false},
      {"abc-2026-12-3-10.jsonl", false, std::nullopt, false, false},
      {"abc-2026-12-03-10.json", false, std::nullopt, false, false},
      {"abc-2026-12-03-10.gz.jsonl", false, std::nullopt, false, false},
      {"abc-2026-12-03-10-17-18", false, std::nullopt, false, false},
  };
  for (const Case& c : cases) {
    std::optional<EventFileName> parsed = ParseEventFileName(c.name);
    EXPECT_EQ(parsed.has_value(), c.parses) << c.name;
    if (!parsed || !c.parses) continue;
    EXPECT_EQ(parsed->node_id_hex, "abc") << c.name;
    EXPECT_EQ(parsed->year, 2026);
    EXPECT_EQ(parsed->month, 12);
    EXPECT_EQ(parsed->day, 3);
    EXPECT_EQ(parsed->unix_nanos, c.nanos) << c.name;
    EXPECT_EQ(parsed->jsonl, c.jsonl) << c.name;
    EXPECT_EQ(parsed->gzip, c.gzip) << c.name;
  }
}

TEST(KubeRayLayoutTest, SessionNames) {
  EXPECT_TRUE(IsValidSessionName(kSession));
  EXPECT_TRUE(IsValidSessionName("my.session-1_x"));
  EXPECT_FALSE(IsValidSessionName(""));
  EXPECT_FALSE(IsValidSessionName("."));
  EXPECT_FALSE(IsValidSessionName(".."));
  EXPECT_FALSE(IsValidSessionName("a/b"));
  EXPECT_FALSE(IsValidSessionName("a b"));
  EXPECT_FALSE(IsValidSessionName("sessión"));

  auto created = ParseRaySessionName(kSession);
  ASSERT_TRUE(created);
  EXPECT_EQ(
      std::chrono::duration_cast<std::chrono::microseconds>(created->time_since_epoch()).count(),
      1796292245123456LL);
  EXPECT_FALSE(ParseRaySessionName("session_latest"));
  EXPECT_FALSE(ParseRaySessionName("session_2026-12-03_10-04-05_123456_"));
  EXPECT_FALSE(ParseRaySessionName("session_2026-13-03_10-04-05_123456_1"));
  EXPECT_FALSE(ParseRaySessionName("my.session-1_x"));
}

TEST(KubeRayLayoutTest, IdentityValidationNamesTheField) {
  EXPECT_TRUE(ValidateClusterIdentity(RayCluster()).ok());
  EXPECT_TRUE(ValidateClusterIdentity(RayJob()).ok());
  ClusterIdentity bad = RayCluster();
  bad.namespace_name = "Ml_Team";
  EXPECT_NE(ValidateClusterIdentity(bad).message().find("cluster.namespace"), std::string::npos);
  bad = RayCluster();
  bad.name = "under_score";
  EXPECT_NE(ValidateClusterIdentity(bad).message().find("cluster.name"), std::string::npos);
  bad = RayJob();
  bad.owner = "";
  EXPECT_NE(ValidateClusterIdentity(bad).message().find("cluster.owner"), std::string::npos);
  bad = RayCluster();
  bad.owner = "x";
  EXPECT_NE(ValidateClusterIdentity(bad).message().find("cluster.owner"), std::string::npos);
  EXPECT_TRUE(IsDns1123Subdomain("a.b-c.d"));
  EXPECT_FALSE(IsDns1123Label("a.b"));
  EXPECT_FALSE(IsDns1123Label(std::string(64, 'a')));
  EXPECT_FALSE(IsDns1123Subdomain("-a"));
  EXPECT_FALSE(IsDns1123Subdomain("a..b"));
}

TEST(KubeRayLayoutTest, KindsParseCaseInsensitively) {
  EXPECT_EQ(*ParseClusterKind("RayJob"), ClusterKind::kRayJob);
  EXPECT_EQ(*ParseClusterKind("rayservice"), ClusterKind::kRayService);
  EXPECT_EQ(*ParseClusterKind("RAYCLUSTER"), ClusterKind::kRayCluster);
  EXPECT_FALSE(ParseClusterKind("deployment").ok());
}

TEST(KubeRayLayoutTest, HexIds) {
  EXPECT_EQ(HexId(std::string("\x01\x00\x00\x00", 4)), "01000000");
  EXPECT_EQ(HexId("\xab\xcd"), "abcd");
  EXPECT_EQ(CategoryPath(EventCategory{"01000000"}), "job_events/01000000");
  EXPECT_EQ(CategoryPath(EventCategory{}), "node_events");
}

}  // namespace
}  // namespace rayagg::kuberay
