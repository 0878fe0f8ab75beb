#include "history/fold/record_codec.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <optional>

namespace rayagg::history {
namespace {

constexpr uint8_t kTaskFormat = 1;
// A task record above kCompressAbove bytes (one with a stack trace, mostly)
// is stored deflated: kDeflated, the varint size of the plain record, then
// zlib's stream.
constexpr uint8_t kDeflated = 0x7e;
constexpr size_t kCompressAbove = 768;
constexpr size_t kMaxRecordBytes = 256u << 20;
constexpr uint8_t kActorFormat = 2;
constexpr uint8_t kJobFormat = 3;
constexpr uint8_t kNodeFormat = 4;
constexpr uint8_t kWorkerFormat = 5;

class Writer {
 public:
  void U(uint64_t v) {
    while (v >= 0x80) {
      out.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
  }
  void I(int64_t v) { U((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  void S(std::string_view s) {
    U(s.size());
    out.append(s);
  }
  void B(bool b) { out.push_back(b ? 1 : 0); }
  void Put(const std::string& s) { S(s); }
  void Put(int32_t v) { I(v); }
  void Put(int64_t v) { I(v); }
  void Put(bool v) { B(v); }
  void Put(const TaskError& e) {
    I(e.error_type);
    S(e.message);
  }
  void Put(const TaskDefinition& d) {
    I(d.task_type);
    I(d.language);
    S(d.func_name);
    S(d.task_name);
    S(d.job_id);
    S(d.parent_task_id);
    S(d.placement_group_id);
    S(d.actor_id);
    S(d.required_resources);
    S(d.serialized_runtime_env);
    S(d.label_selector);
    S(d.call_site);
    B(d.is_detached_actor);
  }
  void Put(const ActorDefinition& d) {
    for (const std::string* s :
         {&d.job_id, &d.name, &d.ray_namespace, &d.class_name, &d.serialized_runtime_env,
          &d.required_resources, &d.placement_group_id, &d.label_selector, &d.call_site,
          &d.parent_id}) {
      S(*s);
    }
    B(d.is_detached);
  }
  void Put(const JobDefinition& d) {
    S(d.entrypoint);
    S(d.driver_node_id);
    S(d.serialized_runtime_env);
    S(d.metadata);
    I(d.driver_pid);
  }
  void Put(const NodeDefinition& d) {
    for (const std::string* s :
         {&d.ip, &d.hostname, &d.node_name, &d.instance_id, &d.instance_type, &d.labels}) {
      S(*s);
    }
    I(d.start_ns);
  }
  void Put(const WorkerDefinition& d) {
    S(d.node_id);
    I(d.worker_type);
    U(d.pid);
  }
  template <typename T>
  void Put(const Versioned<T>& v) {
    I(v.version);
    if (v.has()) Put(v.value);
  }
  std::string out;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  size_t remaining() const { return in_.size() - pos_; }
  bool at_end() const { return pos_ == in_.size(); }
  uint64_t U() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= in_.size()) return Fail();
      const auto byte = static_cast<uint8_t>(in_[pos_++]);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return v;
    }
    return Fail();
  }
  int64_t I() {
    const uint64_t v = U();
    return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }
  std::string S() {
    const uint64_t size = U();
    if (!ok_ || size > in_.size() - pos_) {
      Fail();
      return "";
    }
    std::string s(in_.substr(pos_, size));
    pos_ += size;
    return s;
  }
  bool B() {
    if (pos_ >= in_.size()) return Fail() != 0;
    return in_[pos_++] != 0;
  }
  void Get(std::string& s) { s = S(); }
  void Get(int32_t& v) { v = static_cast<int32_t>(I()); }
  void Get(int64_t& v) { v = I(); }
  void Get(bool& v) { v = B(); }
  void Get(TaskError& e) {
    e.error_type = static_cast<int32_t>(I());
    e.message = S();
  }
  void Get(TaskDefinition& d) {
    d.task_type = static_cast<int32_t>(I());
    d.language = static_cast<int32_t>(I());
    d.func_name = S();
    d.task_name = S();
    d.job_id = S();
    d.parent_task_id = S();
    d.placement_group_id = S();
    d.actor_id = S();
    d.required_resources = S();
    d.serialized_runtime_env = S();
    d.label_selector = S();
    d.call_site = S();
    d.is_detached_actor = B();
  }
  void Get(ActorDefinition& d) {
    for (std::string* s : {&d.job_id, &d.name, &d.ray_namespace, &d.class_name,
                           &d.serialized_runtime_env, &d.required_resources, &d.placement_group_id,
                           &d.label_selector, &d.call_site, &d.parent_id}) {
      *s = S();
    }
    d.is_detached = B();
  }
  void Get(JobDefinition& d) {
    d.entrypoint = S();
    d.driver_node_id = S();
    d.serialized_runtime_env = S();
    d.metadata = S();
    d.driver_pid = I();
  }
  void Get(NodeDefinition& d) {
    for (std::string* s :
         {&d.ip, &d.hostname, &d.node_name, &d.instance_id, &d.instance_type, &d.labels}) {
      *s = S();
    }
    d.start_ns = I();
  }
  void Get(WorkerDefinition& d) {
    d.node_id = S();
    d.worker_type = static_cast<int32_t>(I());
    d.pid = static_cast<uint32_t>(U());
  }
  template <typename T>
  void Get(Versioned<T>& v) {
    v.version = I();
    if (v.has()) Get(v.value);
  }
  // Bounds a count read from the bytes by what the bytes can hold.
  size_t Count() {
    const uint64_t n = U();
    if (n > in_.size() - pos_) {
      Fail();
      return 0;
    }
    return static_cast<size_t>(n);
  }

 private:
  uint64_t Fail() {
    ok_ = false;
    pos_ = in_.size();
    return 0;
  }
  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

absl::Status Finish(const Reader& reader, std::string_view what) {
  if (!reader.ok() || !reader.at_end()) {
    return absl::DataLossError(std::string("stored ") + std::string(what) + " record is corrupt");
  }
  return absl::OkStatus();
}

bool Format(Reader& reader, uint8_t expected) { return reader.U() == expected && reader.ok(); }

}  // namespace

std::string EncodeRecord(const TaskRecord& r) {
  Writer w;
  w.U(kTaskFormat);
  w.S(r.task_id);
  w.I(r.attempt);
  w.Put(r.definition);
  w.U(r.transitions.size());
  int64_t previous = 0;
  for (const TaskTransition& t : r.transitions) {
    w.I(t.state);
    w.I(t.time_ns - previous);  // sorted by time: small deltas
    previous = t.time_ns;
  }
  w.Put(r.lifecycle_job_id);
  w.Put(r.node_id);
  w.Put(r.worker_id);
  w.Put(r.worker_pid);
  w.Put(r.error);
  w.Put(r.actor_repr_name);
  w.Put(r.is_debugger_paused);
  w.Put(r.stdout_file);
  w.Put(r.stderr_file);
  w.Put(r.stdout_start);
  w.Put(r.stdout_end);
  w.Put(r.stderr_start);
  w.Put(r.stderr_end);
  w.U(r.profile.size());
  for (const ProfileSpan& s : r.profile) {
    w.S(s.event_name);
    w.I(s.start_ns);
    w.I(s.end_ns);
    w.S(s.extra_data);
    w.S(s.component_type);
    w.S(s.component_id);
    w.S(s.node_ip);
  }
  if (w.out.size() <= kCompressAbove) return std::move(w.out);
  Writer packed;
  packed.U(kDeflated);
  packed.U(w.out.size());
  const size_t header = packed.out.size();
  // compress2() sets up zlib's window and hash table for 32 KiB and clears
  // them on every call: for a record of a few KB that costs several times
  // the compression itself. A window just large enough for the record (and
  // a hash table to match) compresses it about as well; inflate reads the
  // window size from the stream's header, so older records still decode.
  int window_bits = 9;
  while (window_bits < MAX_WBITS && (size_t{1} << window_bits) < w.out.size()) ++window_bits;
  const int mem_level = std::max(1, window_bits - 7);
  z_stream stream{};
  if (deflateInit2(&stream, 1, Z_DEFLATED, window_bits, mem_level, Z_DEFAULT_STRATEGY) != Z_OK) {
    return std::move(w.out);
  }
  const uLong bound = deflateBound(&stream, static_cast<uLong>(w.out.size()));
  packed.out.resize(header + bound);
  stream.next_in = reinterpret_cast<Bytef*>(w.out.data());
  stream.avail_in = static_cast<uInt>(w.out.size());
  stream.next_out = reinterpret_cast<Bytef*>(packed.out.data() + header);
  stream.avail_out = static_cast<uInt>(bound);
  const int rc = deflate(&stream, Z_FINISH);
  const size_t produced = stream.total_out;
  deflateEnd(&stream);
  if (rc != Z_STREAM_END || header + produced >= w.out.size()) return std::move(w.out);
  packed.out.resize(header + produced);
  return std::move(packed.out);
}

absl::Status DecodeRecord(std::string_view bytes, TaskRecord& r) {
  std::string inflated;
  if (!bytes.empty() && static_cast<uint8_t>(bytes[0]) == kDeflated) {
    Reader header(bytes);
    header.U();
    const uint64_t size = header.U();
    const size_t used = bytes.size() - header.remaining();
    if (!header.ok() || size > kMaxRecordBytes) {
      return absl::DataLossError("stored task record is corrupt");
    }
    inflated.resize(size);
    uLongf produced = static_cast<uLongf>(size);
    if (uncompress(reinterpret_cast<Bytef*>(inflated.data()), &produced,
                   reinterpret_cast<const Bytef*>(bytes.data() + used),
                   static_cast<uLong>(bytes.size() - used)) != Z_OK ||
        produced != size) {
      return absl::DataLossError("stored task record is corrupt");
    }
    bytes = inflated;
  }
  Reader in(bytes);
  r = TaskRecord();
  if (!Format(in, kTaskFormat)) return absl::DataLossError("stored task record is corrupt");
  r.task_id = in.S();
  r.attempt = static_cast<int32_t>(in.I());
  in.Get(r.definition);
  const size_t transitions = in.Count();
  r.transitions.reserve(transitions);
  int64_t previous = 0;
  for (size_t i = 0; i < transitions && in.ok(); ++i) {
    TaskTransition t;
    t.state = static_cast<int32_t>(in.I());
    previous += in.I();
    t.time_ns = previous;
    r.transitions.push_back(t);
  }
  in.Get(r.lifecycle_job_id);
  in.Get(r.node_id);
  in.Get(r.worker_id);
  in.Get(r.worker_pid);
  in.Get(r.error);
  in.Get(r.actor_repr_name);
  in.Get(r.is_debugger_paused);
  in.Get(r.stdout_file);
  in.Get(r.stderr_file);
  in.Get(r.stdout_start);
  in.Get(r.stdout_end);
  in.Get(r.stderr_start);
  in.Get(r.stderr_end);
  const size_t spans = in.Count();
  for (size_t i = 0; i < spans && in.ok(); ++i) {
    ProfileSpan s;
    s.event_name = in.S();
    s.start_ns = in.I();
    s.end_ns = in.I();
    s.extra_data = in.S();
    s.component_type = in.S();
    s.component_id = in.S();
    s.node_ip = in.S();
    r.profile.push_back(std::move(s));
  }
  return Finish(in, "task");
}

std::string EncodeRecord(const ActorRecord& r) {
  Writer w;
  w.U(kActorFormat);
  w.S(r.actor_id);
  w.Put(r.definition);
  w.U(r.transitions.size());
  for (const ActorTransition& t : r.transitions) {
    w.I(t.state);
    w.I(t.time_ns);
    w.S(t.node_id);
    w.S(t.worker_id);
    w.S(t.repr_name);
    w.U(t.pid);
    w.I(t.port);
    w.I(t.restart_reason);
    w.S(t.death_cause);
  }
  return std::move(w.out);
}

absl::Status DecodeRecord(std::string_view bytes, ActorRecord& r) {
  Reader in(bytes);
  r = ActorRecord();
  if (!Format(in, kActorFormat)) return absl::DataLossError("stored actor record is corrupt");
  r.actor_id = in.S();
  in.Get(r.definition);
  const size_t n = in.Count();
  for (size_t i = 0; i < n && in.ok(); ++i) {
    ActorTransition t;
    t.state = static_cast<int32_t>(in.I());
    t.time_ns = in.I();
    t.node_id = in.S();
    t.worker_id = in.S();
    t.repr_name = in.S();
    t.pid = static_cast<uint32_t>(in.U());
    t.port = static_cast<int32_t>(in.I());
    t.restart_reason = static_cast<int32_t>(in.I());
    t.death_cause = in.S();
    r.transitions.push_back(std::move(t));
  }
  return Finish(in, "actor");
}

std::string EncodeRecord(const JobRecord& r) {
  Writer w;
  w.U(kJobFormat);
  w.S(r.job_id);
  w.Put(r.definition);
  w.U(r.transitions.size());
  for (const JobTransition& t : r.transitions) {
    w.I(t.state);
    w.I(t.time_ns);
    w.S(t.message);
    w.S(t.error_type);
    w.B(t.exit_code.has_value());
    if (t.exit_code) w.I(*t.exit_code);
  }
  return std::move(w.out);
}

absl::Status DecodeRecord(std::string_view bytes, JobRecord& r) {
  Reader in(bytes);
  r = JobRecord();
  if (!Format(in, kJobFormat)) return absl::DataLossError("stored job record is corrupt");
  r.job_id = in.S();
  in.Get(r.definition);
  const size_t n = in.Count();
  for (size_t i = 0; i < n && in.ok(); ++i) {
    JobTransition t;
    t.state = static_cast<int32_t>(in.I());
    t.time_ns = in.I();
    t.message = in.S();
    t.error_type = in.S();
    if (in.B()) t.exit_code = static_cast<int32_t>(in.I());
    r.transitions.push_back(std::move(t));
  }
  return Finish(in, "job");
}

std::string EncodeRecord(const NodeRecord& r) {
  Writer w;
  w.U(kNodeFormat);
  w.S(r.node_id);
  w.Put(r.definition);
  w.U(r.transitions.size());
  for (const NodeTransition& t : r.transitions) {
    w.I(t.state);
    w.I(t.time_ns);
    w.I(t.death_reason);
    w.S(t.death_message);
    w.S(t.resources);
  }
  return std::move(w.out);
}

absl::Status DecodeRecord(std::string_view bytes, NodeRecord& r) {
  Reader in(bytes);
  r = NodeRecord();
  if (!Format(in, kNodeFormat)) return absl::DataLossError("stored node record is corrupt");
  r.node_id = in.S();
  in.Get(r.definition);
  const size_t n = in.Count();
  for (size_t i = 0; i < n && in.ok(); ++i) {
    NodeTransition t;
    t.state = static_cast<int32_t>(in.I());
    t.time_ns = in.I();
    t.death_reason = static_cast<int32_t>(in.I());
    t.death_message = in.S();
    t.resources = in.S();
    r.transitions.push_back(std::move(t));
  }
  return Finish(in, "node");
}

std::string EncodeRecord(const WorkerRecord& r) {
  Writer w;
  w.U(kWorkerFormat);
  w.S(r.worker_id);
  w.Put(r.definition);
  w.Put(r.job_id);
  w.U(r.transitions.size());
  for (const WorkerTransition& t : r.transitions) {
    w.I(t.state);
    w.I(t.time_ns);
    w.I(t.exit_type);
    w.S(t.exit_detail);
  }
  return std::move(w.out);
}

absl::Status DecodeRecord(std::string_view bytes, WorkerRecord& r) {
  Reader in(bytes);
  r = WorkerRecord();
  if (!Format(in, kWorkerFormat)) return absl::DataLossError("stored worker record is corrupt");
  r.worker_id = in.S();
  in.Get(r.definition);
  in.Get(r.job_id);
  const size_t n = in.Count();
  for (size_t i = 0; i < n && in.ok(); ++i) {
    WorkerTransition t;
    t.state = static_cast<int32_t>(in.I());
    t.time_ns = in.I();
    t.exit_type = static_cast<int32_t>(in.I());
    t.exit_detail = in.S();
    r.transitions.push_back(std::move(t));
  }
  return Finish(in, "worker");
}

}  // namespace rayagg::history
