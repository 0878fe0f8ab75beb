// The open connections of one HttpServer and which of them wait on their
// peer, so that a listener at its connection limit can close the connection
// that has waited longest instead of refusing a new one (docs/SECURITY.md,
// "Why the oldest waiting connection is closed"). Not thread-safe: the
// server holds its lock around every call.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rayagg/asio.h"

namespace rayagg {

class ConnectionTable {
 public:
  // What a connection waits for. An idle connection (no byte of a request
  // yet) loses nothing when closed, so idle ones are chosen first; one in the
  // middle of a request (header or body arriving) is chosen only when no
  // connection is idle. A connection in a handler or writing is never chosen.
  enum class Wait { kIdle, kRequest };

  struct Victim {
    uint64_t id;
    uint64_t ticket;  // identifies the wait that was chosen; see IsStillWaiting
    Wait wait;
  };

  void Add(uint64_t id, beast::tcp_stream* stream);
  void Remove(uint64_t id);
  // The stream of an open connection, nullptr when `id` is not open.
  beast::tcp_stream* Find(uint64_t id) const;

  // The connection starts (ends) waiting on its peer. Each wait gets a new
  // ticket; tickets grow, so the smallest is the oldest wait.
  void BeginWait(uint64_t id, Wait wait);
  void EndWait(uint64_t id);

  // The connection whose wait began first, idle ones before those in a
  // request; removed from the candidates so it is chosen once. nullopt when
  // no connection waits.
  std::optional<Victim> TakeOldestWaiting();
  // True while the chosen wait has not ended: the connection may be closed.
  bool IsStillWaiting(const Victim& victim) const;

  size_t size() const { return open_.size(); }
  // Connections waiting, and not chosen yet, per kind of wait.
  size_t idle() const { return idle_.size(); }
  size_t in_request() const { return in_request_.size(); }
  // Every open connection (id, stream).
  std::vector<std::pair<uint64_t, beast::tcp_stream*>> All() const;

 private:
  struct Connection {
    beast::tcp_stream* stream = nullptr;
    uint64_t ticket = 0;  // 0: not waiting
    Wait wait = Wait::kIdle;
  };
  std::map<uint64_t, uint64_t>& Candidates(Wait wait) {
    return wait == Wait::kIdle ? idle_ : in_request_;
  }

  std::unordered_map<uint64_t, Connection> open_;
  // ticket -> id of the connections that may be chosen, per kind of wait.
  std::map<uint64_t, uint64_t> idle_;
  std::map<uint64_t, uint64_t> in_request_;
  uint64_t next_ticket_ = 1;
};

}  // namespace rayagg
