// dir:///absolute/path: the object store as a local directory tree, so the
// whole object-store path runs on one machine with nothing else installed
// and layout rules are tested fast. Key "a/b/c" is the file <root>/a/b/c.
//
// Put writes <file>.<random>.tmp, fsyncs it, renames it into place without
// replacing anything (renameat2 RENAME_NOREPLACE; link+unlink where the
// file system lacks it) and fsyncs the directory: a reader sees a whole
// object or none, an object once written never changes, and after Put
// returns OK the object survives a crash or power loss. Content type,
// encoding and user metadata go to a sidecar "<file>.rayagg-meta.json",
// renamed into place before the object, so an object's metadata is there
// whenever the object is. List hides *.tmp and sidecar files.
//
// Unlike S3, a key cannot also be the "directory" of other keys ("a" and
// "a/b"): that Put fails with FAILED_PRECONDITION. The KubeRay layout never
// does it.
//
// The root directory must exist (as a bucket must): writing into a path
// that is not there is more likely a missing volume than an intent.
#pragma once

#include <memory>
#include <string>

#include "rayagg/asio.h"
#include "rayagg/object_store.h"

namespace rayagg {

inline constexpr std::string_view kDirMetadataSuffix = ".rayagg-meta.json";

class DirObjectStore : public ObjectStore {
 public:
  // `root` is absolute. File I/O runs on a thread owned by the store.
  DirObjectStore(asio::any_io_executor executor, std::string root);
  ~DirObjectStore() override;

  asio::awaitable<absl::Status> Put(PutObjectRequest request) override;
  asio::awaitable<absl::StatusOr<StoredObject>> Get(GetObjectRequest request) override;
  asio::awaitable<absl::StatusOr<ListObjectsPage>> List(ListObjectsRequest request) override;
  std::string Describe() const override;

  // The blocking operations the awaitables run on the store's thread; for
  // callers that already are on a thread of their own.
  static absl::Status PutBlocking(const std::string& root, const PutObjectRequest& request);
  static absl::StatusOr<StoredObject> GetBlocking(const std::string& root,
                                                  const GetObjectRequest& request);
  static absl::StatusOr<ListObjectsPage> ListBlocking(const std::string& root,
                                                      const ListObjectsRequest& request);

 private:
  asio::any_io_executor executor_;
  std::string root_;
  std::unique_ptr<asio::thread_pool> io_thread_;
};

}  // namespace rayagg
