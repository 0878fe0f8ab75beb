// file:///path sinks: each batch is appended as one line (a JSON array) to a
// file; file:///dev/stdout prints to the console. Meant for a first run
// without a collector and for debugging; writes are synchronous and small.
#pragma once

#include <string>

#include "rayagg/batch_transport.h"

namespace rayagg {

class FileTransport final : public BatchTransport {
 public:
  explicit FileTransport(std::string path);
  ~FileTransport() override;

  asio::awaitable<DeliveryOutcome> Deliver(std::string_view body) override;
  std::string Describe() const override { return "file://" + path_; }

 private:
  DeliveryOutcome Write(std::string_view body);

  std::string path_;
  int fd_ = -1;
};

}  // namespace rayagg
