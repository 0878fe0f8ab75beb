// Writes a simulated session straight into a dir:// store in the KubeRay
// layout the object-store sink writes and ray-task-history indexes
// (docs/OBJECT_STORE.md "Layout"): the session marker, then per node and
// category (node_events, job_events/<job>) gzip'd JSON Lines objects of up
// to `events_per_object` events. For the benchmarks' 1M/10M-task sessions,
// without a daemon in the way: memory holds one open object per stream,
// compressed as it grows.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg {
class EventJsonEncoder;
class GzipStreamEncoder;
}  // namespace rayagg

namespace rayagg::demo {

class StoreWriter {
 public:
  // `root` must exist (as dir:// requires); `ray_namespace` and
  // `cluster_name` name the RayCluster as the sink's cluster.* keys do.
  static absl::StatusOr<std::unique_ptr<StoreWriter>> Open(std::string root,
                                                           std::string ray_namespace,
                                                           std::string cluster_name,
                                                           std::string session_name,
                                                           uint64_t events_per_object);
  ~StoreWriter();

  absl::Status Add(const ray::rpc::events::RayEvent& event);
  // Cuts every open object. Nothing may be added after.
  absl::Status Finish();

  uint64_t objects() const { return objects_; }
  uint64_t stored_bytes() const { return stored_bytes_; }
  uint64_t json_bytes() const { return json_bytes_; }

 private:
  struct Stream;
  StoreWriter(std::string root, std::string session_prefix, uint64_t events_per_object);
  absl::Status Feed(Stream& stream, bool finish);
  absl::Status Cut(const std::string& directory, Stream& stream);

  const std::string root_, session_prefix_;
  const uint64_t events_per_object_;
  std::unique_ptr<EventJsonEncoder> encoder_;
  std::map<std::string, std::unique_ptr<Stream>> streams_;  // by directory key
  std::string serialized_;
  int64_t last_name_ns_ = 0;
  uint64_t objects_ = 0, stored_bytes_ = 0, json_bytes_ = 0;
};

}  // namespace rayagg::demo
