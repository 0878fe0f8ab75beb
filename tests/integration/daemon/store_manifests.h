// What the daemon tests read back from an object sink's dir:// store: every
// event object's key, session and manifest, and ray-task-history's manifest
// check over them (history/index/manifest_check.h), per session — each object put
// into an index as the history indexer puts it there.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "history/index/index_schema.h"
#include "history/index/manifest_check.h"
#include "objstore/dir_object_store.h"
#include "objstore/rules/kuberay_layout.h"

namespace rayagg::test {

struct StoredEventObject {
  std::string key;
  std::string session;
  std::map<std::string, std::string> manifest;  // rayagg-* user metadata
  std::string body;                             // as stored (gzip or not)
};

// Every event object under `root` (markers left out), every page of the
// listing. A key the layout does not parse, or an object that cannot be
// read, is a test failure.
inline std::vector<StoredEventObject> ReadEventObjects(const std::string& root) {
  std::vector<StoredEventObject> objects;
  ListObjectsRequest request{.prefix = "cluster-history/"};
  for (;;) {
    absl::StatusOr<ListObjectsPage> page = DirObjectStore::ListBlocking(root, request);
    if (!page.ok()) {
      ADD_FAILURE() << page.status();
      return objects;
    }
    for (const ObjectInfo& info : page->objects) {
      const std::optional<kuberay::EventObjectKeyParts> parts =
          kuberay::ParseEventObjectKey(info.key);
      absl::StatusOr<StoredObject> object = DirObjectStore::GetBlocking(root, {.key = info.key});
      if (!parts || !object.ok()) {
        ADD_FAILURE() << info.key << ": not an event object of the layout, or unreadable";
        continue;
      }
      objects.push_back({.key = info.key,
                         .session = parts->session,
                         .manifest = {object->metadata.begin(), object->metadata.end()},
                         .body = std::move(object->body)});
    }
    if (page->next_continuation_token.empty()) return objects;
    request.continuation_token = page->next_continuation_token;
  }
}

// ray-task-history's manifest check for each session of `objects`, over an
// index created in `index_dir` (which must not exist yet).
inline std::map<std::string, history::ManifestReport> CheckManifestsPerSession(
    const std::vector<StoredEventObject>& objects, const std::string& index_dir) {
  std::map<std::string, history::ManifestReport> reports;
  absl::StatusOr<history::OpenedIndex> index = history::OpenIndexForWriting(index_dir, 1 << 20);
  if (!index.ok()) {
    ADD_FAILURE() << index.status();
    return reports;
  }
  history::SqliteDb& db = *index->db;
  std::map<std::string, int64_t> sessions;
  auto number = [](const std::map<std::string, std::string>& manifest, const std::string& name) {
    const auto found = manifest.find(name);
    return found == manifest.end() ? int64_t{0} : static_cast<int64_t>(std::stoll(found->second));
  };
  for (const StoredEventObject& object : objects) {
    const int64_t id =
        sessions.emplace(object.session, static_cast<int64_t>(sessions.size()) + 1).first->second;
    absl::StatusOr<history::SqliteStatement> insert = db.Prepare(
        "INSERT OR IGNORE INTO sessions(id, cluster, kind, namespace, owner, cluster_name, name) "
        "VALUES (?, 'c', 'raycluster', 'ns', '', 'c', ?)");
    if (!insert.ok()) {
      ADD_FAILURE() << insert.status();
      return reports;
    }
    insert->Bind(1, id).BindText(2, object.session);
    EXPECT_TRUE(insert->Run().ok());
    absl::StatusOr<history::SqliteStatement> put = db.Prepare(
        "INSERT INTO objects(session_id, key, size, events, bad_lines, error, writer, seq_first, "
        "seq_last, writer_drops, manifest_events, seq_void) VALUES (?,?,0,0,0,'',?,?,?,?,0,?)");
    if (!put.ok()) {
      ADD_FAILURE() << put.status();
      return reports;
    }
    const auto text = [&](const std::string& name) {
      const auto found = object.manifest.find(name);
      return found == object.manifest.end() ? std::string() : found->second;
    };
    put->Bind(1, id)
        .BindText(2, object.key)
        .BindText(3, text("rayagg-writer"))
        .Bind(4, number(object.manifest, "rayagg-seq-first"))
        .Bind(5, number(object.manifest, "rayagg-seq-last"))
        .Bind(6, number(object.manifest, "rayagg-drops"))
        .BindText(7, text("rayagg-seq-void"));
    EXPECT_TRUE(put->Run().ok()) << object.key;
  }
  for (const auto& [name, id] : sessions) {
    absl::StatusOr<history::ManifestReport> report = history::CheckManifests(db, id);
    if (!report.ok()) {
      ADD_FAILURE() << name << ": " << report.status();
      continue;
    }
    reports.emplace(name, *report);
  }
  return reports;
}

}  // namespace rayagg::test
