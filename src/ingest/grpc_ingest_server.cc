#include "ingest/grpc_ingest_server.h"

#include <spdlog/spdlog.h>

namespace rayagg {

std::string JoinHostPort(const std::string& host, int port) {
  const bool ipv6_literal = host.find(':') != std::string::npos && host.front() != '[';
  return (ipv6_literal ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

GrpcIngestServer::GrpcIngestServer(const GrpcConfig& config, EventAppender& appender,
                                   IngestCounters& counters, spdlog::logger& logger,
                                   const IngestAuthConfig& auth, Clock& clock)
    : config_(config),
      logger_(logger),
      service_(appender, counters, logger, BearerTokenChecker(auth), clock) {}

GrpcIngestServer::~GrpcIngestServer() {
  if (server_) Shutdown(std::chrono::system_clock::now());
}

absl::StatusOr<int> GrpcIngestServer::Start() {
  const std::string address = JoinHostPort(config_.address, config_.port);
  int bound_port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &bound_port);
  // Oversized requests are refused by gRPC itself with RESOURCE_EXHAUSTED.
  builder.SetMaxReceiveMessageSize(static_cast<int>(config_.max_receive_message_bytes));
  // Like Ray's agent: never share the port with another process.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.RegisterService(&service_);
  server_ = builder.BuildAndStart();
  if (!server_ || bound_port == 0) {
    server_.reset();
    return absl::UnavailableError("cannot listen for gRPC on " + address);
  }
  logger_.info("serving gRPC AddEvents address={} auth={}",
               JoinHostPort(config_.address, bound_port),
               service_.auth_required() ? "ray-token" : "none");
  return bound_port;
}

void GrpcIngestServer::Shutdown(std::chrono::system_clock::time_point deadline) {
  if (!server_) return;
  server_->Shutdown(deadline);
  server_->Wait();
  server_.reset();
}

}  // namespace rayagg
