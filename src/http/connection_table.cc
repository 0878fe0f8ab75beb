#include "http/connection_table.h"

namespace rayagg {

void ConnectionTable::Add(uint64_t id, beast::tcp_stream* stream) {
  open_[id] = Connection{.stream = stream};
}

void ConnectionTable::Remove(uint64_t id) {
  EndWait(id);
  open_.erase(id);
}

beast::tcp_stream* ConnectionTable::Find(uint64_t id) const {
  auto it = open_.find(id);
  return it == open_.end() ? nullptr : it->second.stream;
}

void ConnectionTable::BeginWait(uint64_t id, Wait wait) {
  auto it = open_.find(id);
  if (it == open_.end()) return;
  EndWait(id);
  it->second.ticket = next_ticket_++;
  it->second.wait = wait;
  Candidates(wait)[it->second.ticket] = id;
}

void ConnectionTable::EndWait(uint64_t id) {
  auto it = open_.find(id);
  if (it == open_.end() || it->second.ticket == 0) return;
  Candidates(it->second.wait).erase(it->second.ticket);
  it->second.ticket = 0;
}

std::optional<ConnectionTable::Victim> ConnectionTable::TakeOldestWaiting() {
  for (Wait wait : {Wait::kIdle, Wait::kRequest}) {
    std::map<uint64_t, uint64_t>& candidates = Candidates(wait);
    if (candidates.empty()) continue;
    auto oldest = candidates.begin();
    const Victim victim{.id = oldest->second, .ticket = oldest->first, .wait = wait};
    // The connection keeps its ticket: IsStillWaiting tells whether this
    // wait is still the one under way when the close runs.
    candidates.erase(oldest);
    return victim;
  }
  return std::nullopt;
}

std::vector<std::pair<uint64_t, beast::tcp_stream*>> ConnectionTable::All() const {
  std::vector<std::pair<uint64_t, beast::tcp_stream*>> all;
  all.reserve(open_.size());
  for (const auto& [id, connection] : open_) all.emplace_back(id, connection.stream);
  return all;
}

bool ConnectionTable::IsStillWaiting(const Victim& victim) const {
  auto it = open_.find(victim.id);
  return it != open_.end() && it->second.ticket == victim.ticket;
}

}  // namespace rayagg
