// Owns the gRPC server that serves GrpcIngestService.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>

#include "absl/status/statusor.h"
#include "ingest/grpc_ingest_service.h"
#include "rayagg/config.h"

namespace rayagg {

class GrpcIngestServer {
 public:
  // `auth`: Ray's token check (IngestAuthConfig), applied to every call.
  // `clock` outlives the server.
  GrpcIngestServer(const GrpcConfig& config, EventAppender& appender, IngestCounters& counters,
                   spdlog::logger& logger, const IngestAuthConfig& auth, Clock& clock);
  ~GrpcIngestServer();

  // Binds and starts serving; returns the bound port (the OS's pick for port 0).
  absl::StatusOr<int> Start();

  // Stops accepting calls; in-flight calls get until `deadline` to finish.
  void Shutdown(std::chrono::system_clock::time_point deadline);

 private:
  const GrpcConfig config_;
  spdlog::logger& logger_;
  GrpcIngestService service_;
  std::unique_ptr<grpc::Server> server_;
};

// "host:port", bracketing IPv6 literals.
std::string JoinHostPort(const std::string& host, int port);

}  // namespace rayagg
