#include "objsink/object_assembler.h"

#include <algorithm>
#include <limits>
#include <span>
#include <string_view>
#include <utility>

#include "http/gzip.h"
#include "objstore/event_route.h"

namespace rayagg {
namespace {

// A writer meets few sessions; past this many the "seen" set starts over,
// which at worst logs an unusual session name once more.
constexpr size_t kMaxRememberedSessions = 4096;

std::string GroupKey(const ObjectGroup& group) {
  std::string key = group.session;
  key.push_back('\0');
  key += group.node_id_hex;
  key.push_back('\0');
  key += group.category.job_id_hex;
  return key;
}

}  // namespace

ObjectMetadata CutObject::Manifest(std::string_view writer) const {
  ObjectMetadata manifest{
      {"rayagg-writer", std::string(writer)},
      {"rayagg-seq-first", std::to_string(seq_first)},
      {"rayagg-seq-last", std::to_string(seq_last)},
      {"rayagg-events", std::to_string(events())},
      {"rayagg-first-event-ns", std::to_string(first_event_nanos)},
      {"rayagg-last-event-ns", std::to_string(last_event_nanos)},
      {"rayagg-drops", std::to_string(writer_drops)},
  };
  if (sender_dropped_task_attempts > 0) {
    manifest.emplace_back("rayagg-dropped-task-attempts",
                          std::to_string(sender_dropped_task_attempts));
  }
  if (!void_ranges.empty()) manifest.emplace_back("rayagg-seq-void", FormatSeqRanges(void_ranges));
  return manifest;
}

ObjectAssembler::ObjectAssembler(EventReader& reader, EventReader::CursorId cursor, Options options,
                                 std::unique_ptr<EventJsonEncoder> encoder, DropCounters& drops)
    : reader_(reader),
      cursor_(cursor),
      options_(std::move(options)),
      encoder_(std::move(encoder)),
      drops_(drops),
      next_seq_(std::max<uint64_t>(options_.first_seq, 1)) {}

ObjectAssembler::ReadReport ObjectAssembler::Read(size_t max_events, SteadyTime now,
                                                  WallTime wall_now) {
  ReadReport report;
  read_.Clear();
  const EventReader::ReadResult read = reader_.Read(cursor_, max_events, read_);
  report.events = read_.size();
  if (read_.empty()) {
    // Only positions the cursor skips: nothing will upload them.
    if (!read.range.empty()) reader_.Release(cursor_, read.range.begin, read.range.end);
    return report;
  }
  if (read.range.begin < read_.position(0)) {
    reader_.Release(cursor_, read.range.begin, read_.position(0));
  }
  // Units: the events at one position and the skipped positions after them.
  size_t first = 0;
  while (first < read_.size()) {
    const uint64_t position = read_.position(first);
    size_t last = first;
    while (last < read_.size() && read_.position(last) == position) ++last;
    const uint64_t end = last < read_.size() ? read_.position(last) : read.range.end;
    units_[position] = Unit{.end = end, .remaining = last - first};
    for (size_t i = first; i < last; ++i) File(read_, i, position, now, wall_now, report);
    first = last;
  }
  return report;
}

void ObjectAssembler::File(const EventBatch& events, size_t index, uint64_t unit, SteadyTime now,
                           WallTime wall_now, ReadReport& report) {
  const int32_t type = events.event_type(index);
  const uint32_t received = events.received_count(index);
  auto drop = [&](DropReason reason) {
    drops_.Add(reason, type, received);
    Done(unit);
  };
  absl::StatusOr<EventRoute> route = ScanEventRoute(events.bytes(index));
  if (!route.ok()) {
    ++report.encode_errors;
    if (report.first_encode_error.empty()) {
      report.first_encode_error = std::string(route.status().message());
    }
    drop(DropReason::kEncodeError);
    return;
  }
  if (!kuberay::IsValidSessionName(route->session_name)) {
    ++report.bad_session;
    drop(DropReason::kBadSession);
    return;
  }
  std::string node =
      route->node_id.empty() ? options_.default_node_id_hex : kuberay::HexId(route->node_id);
  if (node.empty()) {
    ++report.no_node;
    drop(DropReason::kNoNode);
    return;
  }
  line_.clear();
  if (absl::Status encoded = encoder_->AppendEvent(events.bytes(index), line_); !encoded.ok()) {
    ++report.encode_errors;
    if (report.first_encode_error.empty()) {
      report.first_encode_error = std::string(encoded.message());
    }
    drop(DropReason::kEncodeError);
    return;
  }
  line_.push_back('\n');

  if (sessions_seen_.count(std::string(route->session_name)) == 0) {
    if (sessions_seen_.size() >= kMaxRememberedSessions) sessions_seen_.clear();
    sessions_seen_.emplace(route->session_name);
    if (!kuberay::ParseRaySessionName(route->session_name).has_value()) {
      report.unusual_sessions.emplace_back(route->session_name);
    }
  }

  ObjectGroup group{
      .session = std::string(route->session_name),
      .node_id_hex = std::move(node),
      .category = {.job_id_hex =
                       route->job_id.empty() ? std::string() : kuberay::HexId(route->job_id)}};
  const std::string key = GroupKey(group);
  auto it = open_.find(key);
  if (it != open_.end() && !it->second.types.empty() &&
      it->second.json_size + line_.size() > options_.limits.max_bytes) {
    Cut(key);
    it = open_.end();
  }
  if (it == open_.end()) {
    OpenObject opened{.group = std::move(group),
                      .due = now + options_.limits.max_age,
                      .created = UniqueCreationTime(wall_now)};
    it = open_.emplace(key, std::move(opened)).first;
  }
  OpenObject& object = it->second;
  AppendJson(object, line_);
  object.types.push_back(type);
  object.received.push_back(received);
  object.units.push_back(unit);
  const int64_t nanos = route->timestamp_nanos;
  if (object.types.size() == 1) {
    object.first_event_nanos = object.last_event_nanos = nanos;
  } else {
    object.first_event_nanos = std::min(object.first_event_nanos, nanos);
    object.last_event_nanos = std::max(object.last_event_nanos, nanos);
  }
  open_bytes_ += line_.size();
  held_bytes_ += line_.size();
}

void ObjectAssembler::AppendJson(OpenObject& object, std::string_view line) {
  if (object.json.empty() ||
      object.json.back().capacity() - object.json.back().size() < line.size()) {
    std::string& piece = object.json.emplace_back();
    piece.reserve(std::max<size_t>(
        line.size(), std::clamp<size_t>(object.json_size, kMinJsonPiece, kMaxJsonPiece)));
  }
  object.json.back() += line;
  object.json_size += line.size();
}

WallTime ObjectAssembler::UniqueCreationTime(WallTime wall_now) {
  // Object names end in the creation time's nanoseconds: two objects of one
  // directory opened in the same nanosecond (a coarse clock, a manual one)
  // would collide, so each creation time is later than the last.
  int64_t nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(wall_now.time_since_epoch()).count();
  nanos = std::max(nanos, last_created_nanos_ + 1);
  last_created_nanos_ = nanos;
  return WallTime(std::chrono::duration_cast<WallTime::duration>(std::chrono::nanoseconds(nanos)));
}

void ObjectAssembler::Cut(const std::string& group_key) {
  auto it = open_.find(group_key);
  if (it == open_.end()) return;
  OpenObject object = std::move(it->second);
  open_.erase(it);
  open_bytes_ -= object.json_size;
  held_bytes_ -= object.json_size;

  CutObject cut;
  cut.json_bytes = object.json_size;
  cut.gzip = options_.limits.gzip;
  if (cut.gzip) {
    const std::vector<std::string_view> parts(object.json.begin(), object.json.end());
    if (GzipCompress(std::span<const std::string_view>(parts), gzip_scratch_).ok()) {
      // A copy of just the compressed bytes: GzipCompress sizes its output
      // to deflateBound (about the JSON's size, zero-filled, so resident)
      // and shrinking keeps that capacity, which held about the JSON's size
      // for every object awaiting upload while counting only its compressed
      // size (issue 16: 1.3 GB after 60 s of the store down).
      cut.body = std::string(gzip_scratch_.data(), gzip_scratch_.size());
    } else {
      cut.gzip = false;  // zlib out of memory: store it as it is
    }
  }
  if (!cut.gzip) {
    if (object.json.size() == 1) {
      cut.body = std::move(object.json.front());
    } else {
      cut.body.reserve(object.json_size);
      for (const std::string& piece : object.json) cut.body += piece;
    }
  }
  object.json.clear();
  cut.group = std::move(object.group);
  cut.created = object.created;
  cut.key = kuberay::EventObjectKey(options_.cluster, cut.group.session, cut.group.node_id_hex,
                                    cut.group.category, cut.created, cut.gzip);
  cut.types = std::move(object.types);
  cut.received = std::move(object.received);
  cut.units = std::move(object.units);
  cut.seq_first = next_seq_;
  cut.seq_last = next_seq_ + cut.types.size() - 1;
  next_seq_ += cut.types.size();
  cut.first_event_nanos = object.first_event_nanos;
  cut.last_event_nanos = object.last_event_nanos;
  cut.writer_drops = drops_.Total();
  held_bytes_ += CutHeldBytes(cut);
  cut_.push_back(std::move(cut));
}

uint64_t ObjectAssembler::CutHeldBytes(const CutObject& object) {
  return object.body.size() + object.events() * kHeldBytesPerCutEvent;
}

void ObjectAssembler::CutDue(SteadyTime now) {
  std::vector<std::string> due;
  for (const auto& [key, object] : open_) {
    if (object.due <= now) due.push_back(key);
  }
  for (const std::string& key : due) Cut(key);
}

void ObjectAssembler::CutForBudget() {
  while (!open_.empty() && held_bytes_ >= options_.limits.max_open_bytes) {
    auto largest = std::max_element(open_.begin(), open_.end(), [](const auto& a, const auto& b) {
      return a.second.json_size < b.second.json_size;
    });
    Cut(largest->first);
  }
}

void ObjectAssembler::CutAll() {
  while (!open_.empty()) Cut(open_.begin()->first);
}

std::optional<SteadyTime> ObjectAssembler::NextDue() const {
  std::optional<SteadyTime> next;
  for (const auto& [key, object] : open_) {
    if (!next || object.due < *next) next = object.due;
  }
  return next;
}

CutObject ObjectAssembler::TakeCut() {
  CutObject object = std::move(cut_.front());
  cut_.pop_front();
  return object;
}

void ObjectAssembler::Done(uint64_t unit) {
  auto it = units_.find(unit);
  if (it == units_.end()) return;  // a bug; never released twice
  if (--it->second.remaining == 0) {
    reader_.Release(cursor_, unit, it->second.end);
    units_.erase(it);
  }
}

void ObjectAssembler::Finish(const CutObject& object) {
  for (uint64_t unit : object.units) Done(unit);
  held_bytes_ -= CutHeldBytes(object);
}

void ObjectAssembler::Keep(const CutObject& object) { held_bytes_ -= CutHeldBytes(object); }

void ObjectAssembler::Rekey(CutObject& object, WallTime wall_now) {
  object.created = UniqueCreationTime(std::max(wall_now, object.created));
  object.key =
      kuberay::EventObjectKey(options_.cluster, object.group.session, object.group.node_id_hex,
                              object.group.category, object.created, object.gzip);
}

void ObjectAssembler::CountDropped(const std::vector<int32_t>& types,
                                   const std::vector<uint32_t>& received, DropReason reason) {
  for (size_t i = 0; i < types.size(); ++i) drops_.Add(reason, types[i], received[i]);
}

void ObjectAssembler::DropAll(DropReason reason) {
  for (auto& [key, object] : open_) {
    CountDropped(object.types, object.received, reason);
    for (uint64_t unit : object.units) Done(unit);
    held_bytes_ -= object.json_size;
  }
  open_.clear();
  open_bytes_ = 0;
  while (!cut_.empty()) {
    const CutObject object = TakeCut();
    CountDropped(object.types, object.received, reason);
    Finish(object);
  }
  EventBatch unread;
  while (true) {
    unread.Clear();
    const EventReader::ReadResult read = reader_.Read(cursor_, 4096, unread);
    if (read.range.empty()) break;
    for (size_t i = 0; i < unread.size(); ++i) {
      drops_.Add(reason, unread.event_type(i), unread.received_count(i));
    }
    reader_.Release(cursor_, read.range.begin, read.range.end);
  }
}

}  // namespace rayagg
