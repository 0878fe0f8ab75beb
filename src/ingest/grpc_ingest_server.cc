#include "ingest/grpc_ingest_server.h"

#include <grpcpp/resource_quota.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>

namespace rayagg {
namespace {

int ClampToInt(int64_t value) {
  return static_cast<int>(std::min<int64_t>(value, std::numeric_limits<int>::max()));
}

}  // namespace

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
  // What one peer may hold (docs/SECURITY.md): streams per connection, all
  // of gRPC's memory, the time to complete the HTTP/2 handshake, and how
  // often it may ping (more often: GOAWAY too_many_pings after two strikes).
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS,
                             static_cast<int>(config_.max_concurrent_streams));
  grpc::ResourceQuota quota("rayagg-grpc-ingest");
  quota.Resize(static_cast<size_t>(config_.memory_limit_bytes));
  builder.SetResourceQuota(quota);
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS,
                             ClampToInt(config_.handshake_timeout.count()));
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                             ClampToInt(config_.keepalive_min_interval.count()));
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 2);
  // Idle senders (Ray's keep their channels open) may ping within the interval.
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  // Our own pings find peers that vanished without closing (a dead node).
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 60'000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 20'000);
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
