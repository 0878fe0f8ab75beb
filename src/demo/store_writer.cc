#include "demo/store_writer.h"

#include <time.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "demo/sim_events.h"
#include "demo/sim_expectation.h"
#include "http/gzip.h"
#include "objstore/event_route.h"
#include "rayagg/event_json_encoder.h"

namespace rayagg::demo {
namespace {

// An object's JSON is handed to gzip in pieces of this size: each piece is
// flushed, so larger pieces compress better; memory holds one per stream.
constexpr size_t kPieceBytes = 256 * 1024;

std::string HourStamp(int64_t ns) {
  const time_t seconds = static_cast<time_t>(ns / 1'000'000'000);
  tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::snprintf(text, sizeof(text), "%04d-%02d-%02d-%02d", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour);
  return text;
}

absl::Status WriteFile(const std::filesystem::path& path, const std::string& bytes) {
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  if (error) return absl::InternalError("cannot create " + path.parent_path().string());
  // As the dir:// store does: a reader sees the whole object or none.
  const std::filesystem::path tmp = path.string() + ".writing.tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) return absl::InternalError("cannot write " + tmp.string());
  }
  std::filesystem::rename(tmp, path, error);
  if (error) return absl::InternalError("cannot rename into " + path.string());
  return absl::OkStatus();
}

}  // namespace

struct StoreWriter::Stream {
  std::string node_hex;
  std::string json;        // not yet given to gzip
  std::string compressed;  // the open object so far
  std::unique_ptr<GzipStreamEncoder> gzip;
  uint64_t events = 0;
  int64_t first_ns = 0;
};

StoreWriter::StoreWriter(std::string root, std::string session_prefix, uint64_t events_per_object)
    : root_(std::move(root)),
      session_prefix_(std::move(session_prefix)),
      events_per_object_(std::max<uint64_t>(events_per_object, 1)),
      encoder_(MakeFastJsonEncoder({})) {}

StoreWriter::~StoreWriter() = default;

absl::StatusOr<std::unique_ptr<StoreWriter>> StoreWriter::Open(std::string root,
                                                               std::string ray_namespace,
                                                               std::string cluster_name,
                                                               std::string session_name,
                                                               uint64_t events_per_object) {
  if (!std::filesystem::is_directory(root)) {
    return absl::FailedPreconditionError("the store directory " + root + " does not exist");
  }
  // The marker first, as the sink writes it before a session's first object.
  const std::string marker =
      "cluster-metadata/raycluster/" + ray_namespace + "_" + cluster_name + "/" + session_name;
  if (absl::Status s = WriteFile(std::filesystem::path(root) / marker, ""); !s.ok()) return s;
  const std::string prefix =
      "cluster-history/raycluster/" + ray_namespace + "/" + cluster_name + "/" + session_name + "/";
  return std::unique_ptr<StoreWriter>(new StoreWriter(std::move(root), prefix, events_per_object));
}

absl::Status StoreWriter::Add(const ray::rpc::events::RayEvent& event) {
  SerializeDeterministic(event, serialized_);
  // The sink's routing rule, on the same bytes.
  absl::StatusOr<EventRoute> route = ScanEventRoute(serialized_);
  if (!route.ok()) return route.status();
  const std::string node_hex = HexId(route->node_id);
  std::string directory = session_prefix_ + node_hex + "/";
  directory += route->job_id.empty() ? std::string("node_events/")
                                     : "job_events/" + HexId(route->job_id) + "/";
  std::unique_ptr<Stream>& stream = streams_[directory];
  if (!stream) {
    stream = std::make_unique<Stream>();
    stream->node_hex = node_hex;
  }
  if (stream->events == 0) {
    stream->gzip = std::make_unique<GzipStreamEncoder>();
    stream->first_ns = route->timestamp_nanos;
  }
  const size_t before = stream->json.size();
  if (absl::Status s = encoder_->AppendEvent(serialized_, stream->json); !s.ok()) return s;
  stream->json.push_back('\n');
  json_bytes_ += stream->json.size() - before;
  ++stream->events;
  if (stream->events >= events_per_object_) return Cut(directory, *stream);
  if (stream->json.size() >= kPieceBytes) return Feed(*stream, false);
  return absl::OkStatus();
}

absl::Status StoreWriter::Feed(Stream& stream, bool finish) {
  absl::Status status = stream.gzip->Add(stream.json, finish, stream.compressed);
  stream.json.clear();
  return status;
}

absl::Status StoreWriter::Cut(const std::string& directory, Stream& stream) {
  if (stream.events == 0) return absl::OkStatus();
  if (absl::Status s = Feed(stream, true); !s.ok()) return s;
  // <node>-<YYYY-MM-DD-HH>-<unixNano>.jsonl.gz, names rising as the sink's do.
  const int64_t name_ns = std::max(stream.first_ns, last_name_ns_ + 1);
  last_name_ns_ = name_ns;
  const std::string key = directory + stream.node_hex + "-" + HourStamp(name_ns) + "-" +
                          std::to_string(name_ns) + ".jsonl.gz";
  if (absl::Status s = WriteFile(std::filesystem::path(root_) / key, stream.compressed); !s.ok()) {
    return s;
  }
  ++objects_;
  stored_bytes_ += stream.compressed.size();
  stream.compressed.clear();
  stream.gzip.reset();
  stream.events = 0;
  return absl::OkStatus();
}

absl::Status StoreWriter::Finish() {
  for (auto& [directory, stream] : streams_) {
    if (absl::Status s = Cut(directory, *stream); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace rayagg::demo
