// Object storage as the daemon's object-store sink writes it and
// ray-task-history reads it: a flat namespace of immutable objects under one
// root (an S3 bucket and key prefix, or a local directory).
//
// Backends (src/objstore/, built by MakeObjectStore from a store URL):
//   s3://bucket[/prefix]      AWS S3, Alibaba OSS, Ceph RGW, MinIO (our own SigV4 client)
//   dir:///absolute/path      a local directory: written as *.tmp, fsync'd,
//                             renamed, never overwritten
//
// Keys are relative to the root: with s3://b/p the key "x/y" is object
// "p/x/y" of bucket b, and List returns "x/y" again. Keys are UTF-8 without
// empty segments, "." or ".." segments, a leading '/' or NUL.
//
// Threading: a store is bound to the executor it was made with, which must
// be single-threaded (an io_context run by one thread, or a strand); call it
// and await it only there. Operations may overlap (the S3 backend keeps one
// connection per operation in flight; the directory backend runs file I/O on
// a thread of its own, so a slow disk never blocks the caller's thread).
// Threads that want plain blocking calls (an indexer) use
// BlockingObjectStore (src/objstore/blocking_object_store.h), which owns an
// io_context and runs each call on the calling thread.
//
// Errors are absl::Status values whose code says what a caller may do, and
// whose ObjectStoreErrorReason() is a short, low-cardinality label for
// metrics and logs ("SlowDown", "AccessDenied", "timeout", "io"). Messages
// name the key (or its prefix) and the server's error code, never a
// credential or an object's content.
//   UNAVAILABLE, DEADLINE_EXCEEDED
//       transient: retry with backoff (5xx, SlowDown, timeouts, resets, a
//       full disk)
//   UNAUTHENTICATED, PERMISSION_DENIED, FAILED_PRECONDITION
//       needs an operator (credentials, permissions, missing bucket or
//       directory, another 4xx): retrying slowly is the only safe thing
//   DATA_LOSS   the store refused this body (XAmzContentSHA256Mismatch,
//               BadDigest): retry a few times, then give the object up
//   NOT_FOUND   Get of a key that does not exist
//   RESOURCE_EXHAUSTED  Get of an object larger than its max_bytes
//   ALREADY_EXISTS  a directory-store Put onto an existing key
//   INVALID_ARGUMENT  a key or request the store can never accept
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "rayagg/awaitable.h"

namespace rayagg {

// User metadata of an object: names are lowercase [a-z0-9-], values printable
// ASCII. S3 sends them as x-amz-meta-<name>; the directory backend keeps them
// in a sidecar file. Together at most 2 KiB (S3 allows 2 KiB).
using ObjectMetadata = std::vector<std::pair<std::string, std::string>>;
inline constexpr size_t kMaxObjectMetadataBytes = 2048;

// Bytes a request moves at no less than this rate: its deadline is
// request_timeout plus ObjectTransferTime(bytes) — a 32 MiB object gets 32 s
// more, a marker nothing noticeable. The S3 backend sets its deadlines so;
// the daemon's shutdown waits as long for an upload in flight.
inline constexpr uint64_t kObjectTransferBytesPerSecond = 1024 * 1024;
inline std::chrono::milliseconds ObjectTransferTime(uint64_t bytes) {
  return std::chrono::milliseconds(bytes * 1000 / kObjectTransferBytesPerSecond);
}

struct PutObjectRequest {
  std::string key{};
  // Must stay valid until the Put's awaitable completes; a caller retrying a
  // failed Put passes the same bytes again.
  std::string_view body{};
  std::string content_type = "application/octet-stream";
  std::string content_encoding{};  // "gzip" for .gz objects, else empty
  ObjectMetadata metadata{};
};

struct ObjectInfo {
  std::string key{};
  uint64_t size = 0;
  std::string etag{};  // as the store reports it, quotes removed; "" for directories
  std::chrono::system_clock::time_point last_modified{};
};

// ListObjectsV2: keys in ascending byte order, starting after `start_after`
// (or the continuation token of the previous page), under `prefix`.
struct ListObjectsRequest {
  std::string prefix{};
  std::string start_after{};
  // From ListObjectsPage::next_continuation_token; opaque. When set,
  // start_after is ignored.
  std::string continuation_token{};
  // "" lists every key under the prefix; "/" rolls keys up into
  // common_prefixes at the next '/' after the prefix (one "directory"
  // level). The directory backend supports only these two.
  std::string delimiter{};
  uint32_t max_keys = 1000;  // objects + common prefixes per page, 1..1000
};

struct ListObjectsPage {
  std::vector<ObjectInfo> objects{};
  std::vector<std::string> common_prefixes{};  // each ends with the delimiter
  // Empty on the last page.
  std::string next_continuation_token{};
};

struct GetObjectRequest {
  std::string key{};
  // A larger object fails with RESOURCE_EXHAUSTED before its body is read
  // into memory.
  uint64_t max_bytes = 256ull * 1024 * 1024;
};

struct StoredObject {
  std::string body{};  // as stored: gzip bytes stay gzip bytes
  std::string content_type{};
  std::string content_encoding{};
  ObjectMetadata metadata{};
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // Writes one whole object. Bounded by the store's deadline
  // (request_timeout + size / 1 MiB/s per request for S3). Large S3 objects
  // go multipart; a multipart upload that fails is aborted.
  virtual asio::awaitable<absl::Status> Put(PutObjectRequest request) = 0;

  // Reads one whole object with its metadata.
  virtual asio::awaitable<absl::StatusOr<StoredObject>> Get(GetObjectRequest request) = 0;

  // One page of keys.
  virtual asio::awaitable<absl::StatusOr<ListObjectsPage>> List(ListObjectsRequest request) = 0;

  // "s3://bucket/prefix (endpoint ...)" or "dir:///path"; no secrets.
  virtual std::string Describe() const = 0;
};

// The label an ObjectStore attached to `status` (see above), or "" when it
// has none (OK, or not a store error).
std::string ObjectStoreErrorReason(const absl::Status& status);

// A store error with a reason label (for backends and tests).
absl::Status ObjectStoreError(absl::StatusCode code, std::string_view reason,
                              std::string_view message);

}  // namespace rayagg
