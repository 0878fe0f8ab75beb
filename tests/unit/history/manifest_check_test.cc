// The manifest check over a real index: each writer's seq ranges in every
// session, gaps before a session's objects, explained by the writer's drop
// counter or reported as missing, ranges declared void covered; and an index
// of a schema version with no migration is rebuilt.
#include "history/index/manifest_check.h"

#include <gtest/gtest.h>

#include "common/text.h"
#include "history/index/index_schema.h"
#include "support/temp_dir.h"

namespace rayagg::history {
namespace {

class ManifestCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<OpenedIndex> index = OpenIndexForWriting(dir_.path().string(), 1 << 20);
    ASSERT_TRUE(index.ok()) << index.status();
    db_ = std::move(index->db);
    ASSERT_TRUE(db_->Exec("INSERT INTO sessions(id, cluster, kind, namespace, owner, "
                          "cluster_name, name) VALUES (1, 'c', 'raycluster', 'ns', '', 'c', "
                          "'s1'), (2, 'c', 'raycluster', 'ns', '', 'c', 's2')")
                    .ok());
  }

  // One object of `writer` with events first..last and the writer's drop
  // count at its cut.
  // `void_ranges`: its rayagg-seq-void.
  void Object(int64_t session, const std::string& writer, int64_t first, int64_t last,
              int64_t drops, const std::string& void_ranges = "") {
    const std::string key = strings::Cat("k", ++objects_);
    ASSERT_TRUE(
        db_->Exec(strings::Cat("INSERT INTO objects(session_id, key, size, events, "
                               "bad_lines, error, writer, seq_first, seq_last, "
                               "writer_drops, manifest_events, seq_void) VALUES (",
                               session, ", '", key, "', 1, 1, 0, '', '", writer, "', ", first, ", ",
                               last, ", ", drops, ", ", last - first + 1, ", '", void_ranges, "')"))
            .ok());
  }

  ManifestReport Check(int64_t session) {
    absl::StatusOr<ManifestReport> report = CheckManifests(*db_, session);
    EXPECT_TRUE(report.ok()) << report.status();
    return report.value_or(ManifestReport{});
  }

  test::TempDir dir_;
  std::unique_ptr<SqliteDb> db_;
  int objects_ = 0;
};

TEST_F(ManifestCheckTest, ContiguousRangesAreComplete) {
  Object(1, "w1", 1, 10, 0);
  Object(1, "w1", 21, 30, 0);
  Object(1, "w1", 11, 20, 0);  // indexed out of order
  const ManifestReport report = Check(1);
  EXPECT_EQ(report.writers, 1);
  EXPECT_EQ(report.gaps, 0);
  EXPECT_EQ(report.gap_events, 0);
  EXPECT_EQ(report.missing_events, 0);
}

TEST_F(ManifestCheckTest, AGapTheDropCounterDoesNotExplainIsMissing) {
  Object(1, "w1", 1, 10, 0);
  Object(1, "w1", 16, 20, 0);  // 11..15 missing
  Object(1, "w2", 1, 5, 0);
  Object(1, "w2", 9, 9, 3);  // 6..8 given up: drops grew by 3
  Object(1, "", 0, 0, 0);    // KubeRay's collector: no manifest
  const ManifestReport report = Check(1);
  EXPECT_EQ(report.writers, 2);
  EXPECT_EQ(report.objects_without_manifest, 1);
  EXPECT_EQ(report.gaps, 2);
  EXPECT_EQ(report.gap_events, 8);
  EXPECT_EQ(report.missing_events, 5);
}

TEST_F(ManifestCheckTest, AWritersObjectsInAnotherSessionAreNoGap) {
  Object(1, "w1", 1, 10, 0);
  Object(2, "w1", 11, 20, 0);  // the same process, the next session
  Object(2, "w1", 31, 40, 0);  // 21..30 missing, before session 2's object
  EXPECT_EQ(Check(1).gaps, 0);
  const ManifestReport second = Check(2);
  EXPECT_EQ(second.gaps, 1);
  EXPECT_EQ(second.gap_events, 10);
  EXPECT_EQ(second.missing_events, 10);
}

// A writer kept across a restart (spool on) declares void the numbers its
// last run had handed to uploads that never confirmed: covered, no gap,
// wherever the declaring object is; an object stored under such numbers
// anyway only overlaps.
TEST_F(ManifestCheckTest, RangesDeclaredVoidAreCovered) {
  Object(1, "w1", 1, 10, 0);
  Object(1, "w1", 11, 15, 0);                 // stored, and also declared void below
  Object(1, "w1", 31, 40, 0, "11-20");        // the restart: 11..20 void, 21..30 below
  Object(2, "w1", 41, 50, 0, "21-25,26-30");  // declared in another session's object
  for (int64_t session : {1, 2}) {
    const ManifestReport report = Check(session);
    EXPECT_EQ(report.writers, 1);
    EXPECT_EQ(report.gaps, 0) << session;
    EXPECT_EQ(report.gap_events, 0) << session;
    EXPECT_EQ(report.missing_events, 0) << session;
  }
}

// A void range covers only itself: an object missing before it, or after
// it, is still a gap of the session of the next object.
TEST_F(ManifestCheckTest, ARealGapBesideAVoidRangeIsStillReported) {
  Object(1, "w1", 1, 10, 0);
  // 11..15 missing; 16..20 void (the restart); 21..22 missing.
  Object(1, "w1", 23, 30, 0, "16-20");
  const ManifestReport report = Check(1);
  EXPECT_EQ(report.gaps, 2);
  EXPECT_EQ(report.gap_events, 7);
  EXPECT_EQ(report.missing_events, 7);
}

// Versions 1..4 have no migration to 5 (tasks.latest and attempts, the
// summaries' unit and the search's texts are derived from every task): such
// an index is replaced by an empty one, which the indexer fills again from
// the store.
TEST_F(ManifestCheckTest, AnIndexOfVersionOneToFourIsRebuiltEmpty) {
  for (int64_t version = 1; version <= 4; ++version) {
    SCOPED_TRACE(version);
    Object(1, "w1", 1, 10, 0);
    ASSERT_TRUE(db_->Exec(strings::Cat("PRAGMA user_version=", version)).ok());
    db_.reset();
    absl::StatusOr<OpenedIndex> reopened = OpenIndexForWriting(dir_.path().string(), 1 << 20);
    ASSERT_TRUE(reopened.ok()) << reopened.status();
    EXPECT_TRUE(reopened->rebuilt);
    EXPECT_FALSE(reopened->migrated);
    EXPECT_EQ(reopened->found_version, version);
    db_ = std::move(reopened->db);
    EXPECT_EQ(Check(1).writers, 0);  // nothing kept: re-read from the store
    absl::StatusOr<SqliteStatement> current = db_->Prepare("PRAGMA user_version");
    ASSERT_TRUE(current.ok());
    ASSERT_TRUE(current->Step().value_or(false));
    EXPECT_EQ(current->Int(0), kIndexSchemaVersion);
    ASSERT_TRUE(db_->Exec("INSERT INTO sessions(id, cluster, kind, namespace, owner, "
                          "cluster_name, name) VALUES (1, 'c', 'raycluster', 'ns', '', 'c', 's1')")
                    .ok());
  }
}

}  // namespace
}  // namespace rayagg::history
