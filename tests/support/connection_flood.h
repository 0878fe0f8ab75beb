// A connection flood for the flood test and bench/flood: many cheap client
// connections held open (idle, or with a request begun and never finished),
// the file limit raised to hold them, and the one-event JSON body a
// well-behaved HTTP ingest sender posts meanwhile. Plain blocking loopback
// sockets, no test framework: the benchmark links this too.
#pragma once

#include <sys/resource.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rayagg::test {

// What a slowloris sender sends and never finishes: a request header cut off.
inline constexpr std::string_view kSlowlorisStart =
    "POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Le";

// Client connections to 127.0.0.1, closed when the object goes.
class Flood {
 public:
  Flood() = default;
  Flood(const Flood&) = delete;
  Flood& operator=(const Flood&) = delete;
  ~Flood();

  // Opens `count` connections to `port`, each sending `first_bytes` (if
  // any). False when a connection cannot be made (errno says why); the
  // connections made so far stay open.
  bool Open(uint16_t port, size_t count, std::string_view first_bytes = "");
  size_t size() const { return fds_.size(); }

 private:
  std::vector<int> fds_;
};

// Raises the soft RLIMIT_NOFILE to `wanted` (if below); false if the hard
// limit is below `wanted`.
bool RaiseFileLimit(rlim_t wanted);

// A JSON array of one TASK_DEFINITION_EVENT as Ray's agent posts it, with an
// event id distinct for each `index` (so none is dropped as a duplicate).
std::string OneEventBody(size_t index);

}  // namespace rayagg::test
