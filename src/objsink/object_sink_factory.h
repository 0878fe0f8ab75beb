// Builds an ObjectSink from a validated sink config (url s3://… or
// dir:///…): its store on the sink's strand, its cluster identity and its
// camelCase encoder. The daemon calls this for object-store URLs and
// MakeSink (sinks/sink_factory.h) for the rest.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "objsink/object_sink.h"

namespace rayagg {

// `executor` is a strand of the sink's own; `clock` outlives the sink.
// `spool_dir` (config.spool.dir, "" without a spool): where the sink keeps
// its writer id and numbering across restarts (objsink/writer_state.h);
// without it each process is a new writer.
absl::StatusOr<std::unique_ptr<ObjectSink>> MakeObjectSink(asio::any_io_executor executor,
                                                           const SinkConfig& config,
                                                           EventReader& reader,
                                                           spdlog::logger& logger, Clock& clock,
                                                           const std::string& spool_dir = "");

}  // namespace rayagg
