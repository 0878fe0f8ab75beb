// ray-task-history's index build and query benchmark (docs/PERFORMANCE.md
// "Task history"): writes a realistic session of --tasks tasks as gzip JSONL
// objects to a scratch directory (before the clock starts), then indexes it
// the way the indexer does (objects folded in batches of --batch-max-bytes,
// one transaction per batch) on one thread, and reports
//   - tasks per CPU second, with the CPU split into gunzip / parse / reduce /
//     database (gunzip and parse timed in passes of their own after the
//     build: nothing is timed per event inside it);
//   - peak RSS while indexing;
//   - index bytes per task, and per KB of stack-trace text;
//   - all of the above twice, back to back: without the search's texts,
//     then with them (the index the queries run on);
//   - p50/p99 of 100 warm runs of each listed query (nothing indexing), and
//     of the search's page 1 and exact count.
//
// Per task, as Ray reports one: a TASK_DEFINITION_EVENT and a lifecycle
// event with PENDING_ARGS_AVAIL..SUBMITTED_TO_WORKER from the owner, a
// RUNNING lifecycle and a FINISHED/FAILED lifecycle from the executor (4
// events); 1 task in --failed-every fails with a Python stack trace of 2 to
// 30 frames (0.3 to 4.5 KB, 2.3 KB on average, nearly all distinct).
// 1 task in --retry-every is retried (half of those twice): its earlier
// attempts fail with WORKER_DIED and a one-line message, its last attempt
// ends as any task does, so the index holds tasks of 1, 2 and 3 attempts.
// Owner and executor events go to different objects, and the executor's
// trail the owner's by 30,000 tasks; objects are read in name order, so a
// task whose start and end fall in different batches merges with its stored
// row (the benchmark prints how many rows were updated).
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/text.h"
#include "flags.h"
#include "history/api/answer_json.h"
#include "history/api/queries.h"
#include "history/api/search.h"
#include "history/api/sql_clause.h"
#include "history/api/task_fields.h"
#include "history/fold/object_decoder.h"
#include "history/fold/object_folder.h"
#include "history/fold/record_codec.h"
#include "history/fold/reducer.h"
#include "history/index/index_schema.h"
#include "history/index/index_writer.h"
#include "http/gzip.h"
#include "json/event_json_parser.h"
#include "rayagg/event_json_encoder.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg::bench {
namespace {

using history::FoldedSession;
using ray::rpc::events::RayEvent;

int64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

int64_t PeakRssKb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

void SetTime(google::protobuf::Timestamp* t, int64_t ns) {
  t->set_seconds(ns / 1'000'000'000);
  t->set_nanos(static_cast<int32_t>(ns % 1'000'000'000));
}

std::string Id(uint64_t value, size_t bytes) {
  std::string id(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) id[i] = static_cast<char>((value >> ((i % 8) * 8)) ^ (i * 29));
  return id;
}

// 1 task in `failed_every` fails, spread over the functions.
bool IsFailed(uint64_t task, uint64_t failed_every) {
  uint64_t h = task * 0x9E3779B97F4A7C15ULL;
  h ^= h >> 29;
  return (h * 0xBF58476D1CE4E5B9ULL >> 32) % failed_every == 0;
}

// The task's function: 16 of the 40 read shards (40 % of the tasks), the
// rest train or evaluate.
std::string FunctionOf(uint64_t task) {
  const uint64_t f = task % 40;
  return f < 16 ? "read_shard_" + std::to_string(f)
                : (f < 32 ? "train_step_" : "evaluate_") + std::to_string(f);
}

// A Python stack trace as Ray reports one: 2 to 30 frames of library and
// project code (several hundred bytes to a few KB), the task's own function
// among them, and an exception naming the failing record (so nearly every
// trace is distinct).
std::string StackTrace(uint64_t task) {
  static const char* const kModules[] = {
      "torch/utils/data/dataloader",  "pandas/core/frame",      "pyarrow/parquet/core",
      "ray/data/_internal/execution", "numpy/core/fromnumeric", "project/io/readers",
      "project/model/layers",         "project/train/loop",     "fsspec/implementations/s3"};
  static const char* const kFunctions[] = {"__next__",  "_next_data", "fetch",     "read_table",
                                           "forward",   "__call__",   "_apply_op", "collate",
                                           "to_tensor", "merge",      "_get_item", "step"};
  static const char* const kLines[] = {"data = self._next_data()",
                                       "return self.collate_fn(data)",
                                       "table = reader.read()",
                                       "out = layer(out, mask=mask)",
                                       "return func(*args, **kwargs)",
                                       "batch = next(iterator)",
                                       "values = np.asarray(column, dtype=np.float32)",
                                       "loss = criterion(pred, target)"};
  uint64_t state = task * 0x9E3779B97F4A7C15ULL + 7;
  auto next = [&state] {
    state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
    return state * 0x2545F4914F6CDD1DULL;
  };
  std::string trace = "Traceback (most recent call last):\n";
  const int frames = 2 + static_cast<int>(next() % 29);
  const int own = static_cast<int>(next() % static_cast<uint64_t>(frames));
  for (int frame = 0; frame < frames; ++frame) {
    const std::string function =
        frame == own ? FunctionOf(task) : kFunctions[next() % std::size(kFunctions)];
    trace += "  File \"/home/ray/anaconda3/lib/python3.11/site-packages/" +
             std::string(kModules[next() % std::size(kModules)]) + ".py\", line " +
             std::to_string(20 + next() % 2000) + ", in " + function + "\n    " +
             kLines[next() % std::size(kLines)] + "\n";
  }
  char record[16];
  std::snprintf(record, sizeof(record), "r%07llu", static_cast<unsigned long long>(task));
  trace += "ValueError: invalid record " + std::string(record) + " in shard s3://bucket/part-" +
           std::to_string(next() % 512) + ".parquet\n";
  return trace;
}

// Writes the session's objects; returns the stack-trace bytes written.
struct Generated {
  std::vector<std::string> files;
  uint64_t events = 0;
  uint64_t trace_bytes = 0;
  uint64_t failed = 0;
  uint64_t attempts = 0;  // task rows: tasks plus their retries
  uint64_t retried = 0;   // attempts that failed and were retried
  uint64_t json_bytes = 0;
  uint64_t gzip_bytes = 0;
};

class ObjectWriter {
 public:
  ObjectWriter(std::string dir, std::string stream, size_t events_per_object, Generated& out)
      : dir_(std::move(dir)),
        stream_(std::move(stream)),
        per_object_(events_per_object),
        out_(out) {}
  void Add(const RayEvent& event) {
    std::string bytes = event.SerializeAsString();
    if (!encoder_->AppendEvent(bytes, text_).ok()) std::abort();
    text_.push_back('\n');
    ++out_.events;
    if (++count_ == per_object_) Cut();
  }
  void Cut() {
    if (count_ == 0) return;
    std::string gz;
    if (!GzipCompress(text_, gz).ok()) std::abort();
    char name[64];
    std::snprintf(name, sizeof(name), "%08zu-%s.jsonl.gz", serial_++, stream_.c_str());
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary).write(gz.data(), static_cast<std::streamsize>(gz.size()));
    out_.files.push_back(path);
    out_.json_bytes += text_.size();
    out_.gzip_bytes += gz.size();
    text_.clear();
    count_ = 0;
  }

 private:
  const std::string dir_, stream_;
  const size_t per_object_;
  Generated& out_;
  std::unique_ptr<EventJsonEncoder> encoder_ = MakeFastJsonEncoder({});
  std::string text_;
  size_t count_ = 0;
  size_t serial_ = 0;
};

// How many attempts task t has: 1, or 2-3 for one task in `retry_every`
// (chosen by a hash of t, so retries and final failures are independent).
int AttemptsOf(uint64_t t, uint64_t retry_every) {
  if (retry_every == 0) return 1;
  const uint64_t h = (t + 1) * 0x9E3779B97F4A7C15ULL;
  if ((h >> 32) % retry_every != 0) return 1;
  return 2 + static_cast<int>((h >> 20) & 1);
}

Generated Generate(const std::string& dir, uint64_t tasks, uint64_t failed_every,
                   uint64_t retry_every, uint64_t events_per_object) {
  Generated out;
  ObjectWriter owner(dir, "owner", events_per_object, out);
  ObjectWriter executor(dir, "exec", events_per_object, out);
  const int64_t start = 1'780'000'000'000'000'000;
  const std::string runtime_env =
      R"({"pip":["torch==2.3.0","pandas==2.2.2"],"env_vars":{"OMP_NUM_THREADS":"1"},"working_dir":"s3://bucket/pkg.zip"})";
  auto base = [&](RayEvent::EventType type, int64_t at, uint64_t seq) {
    RayEvent event;
    event.set_event_id(Id(seq * 7 + static_cast<uint64_t>(type), 28));
    event.set_event_type(type);
    event.set_source_type(RayEvent::CORE_WORKER);
    event.set_severity(RayEvent::INFO);
    event.set_session_name("session_2026-06-01_00-00-00_000000_1");
    SetTime(event.mutable_timestamp(), at);
    return event;
  };
  // Executor events trail the owner's by `lag` tasks: a task's end lands in
  // a later object than its start. Attempt a of a task is created 3 ms after
  // attempt a - 1.
  const uint64_t lag = 30'000;
  auto executor_events = [&](uint64_t t) {
    const std::string task_id = Id(t * 2654435761ULL + 1, 24);
    const uint64_t node = t % 50;
    const int attempts = AttemptsOf(t, retry_every);
    for (int attempt = 0; attempt < attempts; ++attempt) {
      const int64_t created = start + static_cast<int64_t>(t) * 40'000 + attempt * 3'000'000;
      const uint64_t seq = t * 4 + static_cast<uint64_t>(attempt);
      RayEvent running = base(RayEvent::TASK_LIFECYCLE_EVENT, created + 5'000'000, seq);
      auto* r = running.mutable_task_lifecycle_event();
      r->set_task_id(task_id);
      r->set_task_attempt(attempt);
      r->set_job_id(Id(1 + t % 4, 4));
      r->set_node_id(Id(1000 + node, 28));
      r->set_worker_id(Id(5000 + t % 2000, 28));
      r->set_worker_pid(static_cast<int32_t>(10000 + t % 2000));
      auto* rt = r->add_state_transitions();
      rt->set_state(ray::rpc::RUNNING);
      SetTime(rt->mutable_timestamp(), created + 5'000'000);
      r->mutable_task_log_info()->set_stdout_file("worker-" + std::to_string(t % 2000) + ".out");
      r->mutable_task_log_info()->set_stdout_start(static_cast<int64_t>(t * 100));
      executor.Add(running);
      const bool last = attempt == attempts - 1;
      const bool failed = !last || IsFailed(t, failed_every);
      const int64_t ended =
          created + 5'000'000 + static_cast<int64_t>((t * 7919 + attempt) % 2'000'000'000);
      RayEvent end = base(RayEvent::TASK_LIFECYCLE_EVENT, ended, seq);
      auto* e = end.mutable_task_lifecycle_event();
      e->set_task_id(task_id);
      e->set_task_attempt(attempt);
      e->set_job_id(Id(1 + t % 4, 4));
      e->set_node_id(Id(1000 + node, 28));
      e->set_worker_id(Id(5000 + t % 2000, 28));
      e->set_worker_pid(static_cast<int32_t>(10000 + t % 2000));
      auto* et = e->add_state_transitions();
      et->set_state(failed ? ray::rpc::FAILED : ray::rpc::FINISHED);
      SetTime(et->mutable_timestamp(), ended);
      e->mutable_task_log_info()->set_stdout_end(static_cast<int64_t>(t * 100 + 80));
      if (failed && !last) {
        e->mutable_ray_error_info()->set_error_type(ray::rpc::WORKER_DIED);
        e->mutable_ray_error_info()->set_error_message(
            "The worker died unexpectedly while executing this task.");
        ++out.retried;
      } else if (failed) {
        const std::string trace = StackTrace(t);
        e->mutable_ray_error_info()->set_error_type(ray::rpc::TASK_EXECUTION_EXCEPTION);
        e->mutable_ray_error_info()->set_error_message(trace);
        out.trace_bytes += trace.size();
        ++out.failed;
      }
      executor.Add(end);
    }
  };
  for (uint64_t t = 0; t < tasks; ++t) {
    const std::string task_id = Id(t * 2654435761ULL + 1, 24);
    const int attempts = AttemptsOf(t, retry_every);
    out.attempts += static_cast<uint64_t>(attempts);
    for (int attempt = 0; attempt < attempts; ++attempt) {
      const int64_t created = start + static_cast<int64_t>(t) * 40'000 + attempt * 3'000'000;
      const uint64_t seq = t * 4 + static_cast<uint64_t>(attempt);
      RayEvent def = base(RayEvent::TASK_DEFINITION_EVENT, created, seq);
      auto* d = def.mutable_task_definition_event();
      d->set_task_id(task_id);
      d->set_task_attempt(attempt);
      d->set_task_type(ray::rpc::NORMAL_TASK);
      d->set_language(ray::rpc::PYTHON);
      auto* f = d->mutable_task_func()->mutable_python_function_descriptor();
      f->set_module_name("project.pipeline");
      f->set_function_name(FunctionOf(t));
      f->set_function_hash("a1b2c3d4");
      d->set_task_name(FunctionOf(t));
      (*d->mutable_required_resources())["CPU"] = 1;
      d->set_job_id(Id(1 + t % 4, 4));
      d->set_parent_task_id(Id(t / 1000 + 3, 24));
      d->set_serialized_runtime_env(runtime_env);
      owner.Add(def);
      RayEvent pending = base(RayEvent::TASK_LIFECYCLE_EVENT, created, seq);
      auto* p = pending.mutable_task_lifecycle_event();
      p->set_task_id(task_id);
      p->set_task_attempt(attempt);
      p->set_job_id(Id(1 + t % 4, 4));
      int64_t at = created;
      for (auto state : {ray::rpc::PENDING_ARGS_AVAIL, ray::rpc::PENDING_NODE_ASSIGNMENT,
                         ray::rpc::SUBMITTED_TO_WORKER}) {
        auto* transition = p->add_state_transitions();
        transition->set_state(state);
        SetTime(transition->mutable_timestamp(), at);
        at += 1'000'000;
      }
      owner.Add(pending);
    }
    if (t >= lag) executor_events(t - lag);
  }
  for (uint64_t t = tasks > lag ? tasks - lag : 0; t < tasks; ++t) executor_events(t);
  owner.Cut();
  executor.Cut();
  std::sort(out.files.begin(), out.files.end());
  return out;
}

struct Timing {
  std::vector<double> ms;
  void Add(std::chrono::steady_clock::duration d) {
    ms.push_back(std::chrono::duration<double, std::milli>(d).count());
  }
  double Quantile(double q) {
    std::sort(ms.begin(), ms.end());
    return ms[std::min(ms.size() - 1, static_cast<size_t>(q * static_cast<double>(ms.size())))];
  }
};

// The CPU time of gunzip alone, and of gunzip and parse, over every object
// (passes of their own, after the build: timing each event inside the build
// would cost about as much as parsing it).
struct StageTimes {
  int64_t gunzip_ns = 0;
  int64_t gunzip_parse_ns = 0;
};

StageTimes TimeStages(const std::vector<std::string>& files) {
  StageTimes out;
  std::string body;
  EventJsonParser parser;
  EventJsonBatch batch;
  RayEvent event;
  uint64_t parsed = 0;
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    body.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    const int64_t t0 = ThreadCpuNs();
    (void)history::ForEachEventJson(body, 64 << 20, [](std::string_view) {});
    const int64_t t1 = ThreadCpuNs();
    (void)history::ForEachEventJson(body, 64 << 20, [&](std::string_view text) {
      batch.Clear();
      if (parser.ParseOne(text, 0, batch).ok() && !batch.events().empty()) {
        const std::string_view bytes = batch.bytes(batch.events().front());
        event.Clear();
        parsed += event.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) ? 1 : 0;
      }
    });
    const int64_t t2 = ThreadCpuNs();
    out.gunzip_ns += t1 - t0;
    out.gunzip_parse_ns += t2 - t1;
  }
  if (parsed == 0) std::abort();
  return out;
}

// Indexes the session into `index_dir` the way the indexer does, and reports
// the build's CPU, memory and index size.
void BuildIndex(const Flags& flags, const Generated& generated, uint64_t tasks,
                const std::string& index_dir, bool search) {
  // ---- Index build ----
  const int64_t rss_before_kb = PeakRssKb();
  absl::StatusOr<history::OpenedIndex> index =
      history::OpenIndexForWriting(index_dir, flags.Uint("cache-bytes", 64ull << 20),
                                   flags.Uint("mmap-bytes", history::kDefaultMmapBytes));
  if (!index.ok()) {
    std::cerr << index.status() << "\n";
    std::exit(1);
  }
  history::IndexWriter writer(*index->db, search);
  history::SessionIdentity identity{"raycluster", "default", "", "bench",
                                    "session_2026-06-01_00-00-00_000000_1"};
  const int64_t session_id = *writer.EnsureSession(identity, true);
  history::ObjectFolder folder;
  history::FoldTimes times;
  int64_t read_ns = 0, db_ns = 0;
  const uint64_t batch_max = flags.Uint("batch-max-bytes", 64ull << 20);
  const auto wall_start = std::chrono::steady_clock::now();
  const int64_t cpu_start = ThreadCpuNs();
  history::BatchInput batch;
  uint64_t batches = 0;
  history::WriteStats write_totals;
  auto flush = [&] {
    const int64_t t0 = ThreadCpuNs();
    absl::StatusOr<history::WriteStats> written = writer.WriteBatch(session_id, std::move(batch));
    if (!written.ok()) {
      std::cerr << written.status() << "\n";
      std::exit(1);
    }
    db_ns += ThreadCpuNs() - t0;
    write_totals.tasks_inserted += written->tasks_inserted;
    write_totals.tasks_updated += written->tasks_updated;
    write_totals.tasks_unchanged += written->tasks_unchanged;
    batch = history::BatchInput();
    ++batches;
  };
  std::string body;
  for (const std::string& file : generated.files) {
    const int64_t t0 = ThreadCpuNs();
    std::ifstream in(file, std::ios::binary);
    body.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    read_ns += ThreadCpuNs() - t0;
    history::ObjectOutcome outcome;
    outcome.key = file;
    outcome.size = body.size();
    const history::FoldedObject folded = folder.Fold(body, batch.folded, &times);
    outcome.events = folded.events;
    batch.objects.push_back(outcome);
    if (batch.folded.approximate_bytes >= batch_max) flush();
  }
  flush();
  const int64_t cpu_ns = ThreadCpuNs() - cpu_start;
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const int64_t rss_kb = PeakRssKb();
  const StageTimes stages = TimeStages(generated.files);
  const int64_t gunzip_ns = stages.gunzip_ns;
  const int64_t parse_ns = stages.gunzip_parse_ns - stages.gunzip_ns;
  const int64_t fold_ns = times.decode_ns - stages.gunzip_parse_ns;
  const double cpu_s = static_cast<double>(cpu_ns) / 1e9;
  auto share = [&](int64_t ns) {
    return 100.0 * static_cast<double>(ns) / static_cast<double>(cpu_ns);
  };
  std::printf(
      "index build, search %s: %.0f tasks per CPU-second, %.0f attempts per CPU-second (%.1f s "
      "CPU, %.1f s wall, %llu batches)\n",
      search ? "on" : "off", static_cast<double>(tasks) / cpu_s,
      static_cast<double>(generated.attempts) / cpu_s, cpu_s, wall_s,
      static_cast<unsigned long long>(batches));
  std::printf(
      "  shares: read %.1f%%  gunzip %.1f%%  parse %.1f%%  reduce %.1f%%  database %.1f%%  "
      "(gunzip and parse timed in passes of their own, reduce = the rest of the fold)\n",
      share(read_ns), share(gunzip_ns), share(parse_ns), share(fold_ns), share(db_ns));
  std::printf("  task rows: %llu inserted, %llu updated, %llu unchanged\n",
              static_cast<unsigned long long>(write_totals.tasks_inserted),
              static_cast<unsigned long long>(write_totals.tasks_updated),
              static_cast<unsigned long long>(write_totals.tasks_unchanged));
  std::printf(
      "  per event: gunzip %.2f us, parse %.2f us, reduce %.2f us; database %.2f us per task\n",
      static_cast<double>(gunzip_ns) / 1e3 / static_cast<double>(generated.events),
      static_cast<double>(parse_ns) / 1e3 / static_cast<double>(generated.events),
      static_cast<double>(fold_ns) / 1e3 / static_cast<double>(generated.events),
      static_cast<double>(db_ns) / 1e3 / static_cast<double>(tasks));
  std::printf("  peak RSS while indexing: %.0f MiB (before: %.0f MiB)\n",
              static_cast<double>(rss_kb) / 1024, static_cast<double>(rss_before_kb) / 1024);
  (void)index->db->Exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const uint64_t index_bytes = std::filesystem::file_size(history::IndexPath(index_dir));
  std::printf(
      "  index: %.1f MiB, %.0f bytes per task, %.0f per attempt (target: <= 1536 per task + 4 "
      "per byte of stack trace = %.1f MiB)\n",
      static_cast<double>(index_bytes) / 1048576,
      static_cast<double>(index_bytes) / static_cast<double>(tasks),
      static_cast<double>(index_bytes) / static_cast<double>(generated.attempts),
      (1536.0 * static_cast<double>(tasks) + 4.0 * static_cast<double>(generated.trace_bytes)) /
          1048576);
  if (search) {
    // The search's own tables and index (dbstat, when SQLite has it).
    absl::StatusOr<history::SqliteStatement> s = index->db->Prepare(
        "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'search%' OR name = "
        "'tasks_by_error_text'");
    if (s.ok() && s->Step().value_or(false)) {
      const double bytes = static_cast<double>(s->Int(0));
      std::printf(
          "  search tables: %.1f MiB, %.2f bytes per byte of stack trace, %.0f bytes per "
          "task\n",
          bytes / 1048576, bytes / static_cast<double>(generated.trace_bytes),
          bytes / static_cast<double>(tasks));
    }
  }
  {
    // Record bytes of failed against finished tasks, per KB of trace.
    // (Failed with the stack trace: attempts that failed and were retried
    // carry a one-line message.)
    absl::StatusOr<history::SqliteStatement> s = index->db->Prepare(strings::Cat(
        "SELECT avg(CASE WHEN raw_state = 12 AND error_type = ",
        static_cast<int>(ray::rpc::TASK_EXECUTION_EXCEPTION),
        " THEN length(record) END), avg(CASE WHEN raw_state = 11 THEN length(record) END) "
        "FROM tasks"));
    if (s.ok() && *s->Step() && generated.failed > 0) {
      const double per_kb_trace =
          (s->Real(0) - s->Real(1)) / (static_cast<double>(generated.trace_bytes) /
                                       static_cast<double>(generated.failed) / 1024);
      std::printf("  stack traces: %.0f index bytes per KB of stack-trace text\n", per_kb_trace);
    }
  }
}

// A warm query run `runs` times after one run that must answer: its p50,
// p99 and max in ms, or nullopt when it fails.
std::optional<Timing> TimeQuery(const std::function<absl::StatusOr<nlohmann::json>()>& run,
                                uint64_t runs) {
  if (!run().ok()) return std::nullopt;
  Timing timing;
  for (uint64_t i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    absl::StatusOr<nlohmann::json> answer = run();
    timing.Add(std::chrono::steady_clock::now() - t0);
    if (!answer.ok()) return std::nullopt;
  }
  return timing;
}

history::QueryParams Params(const std::string& target) {
  return *history::QueryParams::FromTarget(target);
}

// The search (q=) through the API as a page asks for it: page 1 of the task
// list by start time with each row's highlights, and the exact count.
bool RunSearches(history::SqliteDb& db, history::HistoryQueries& queries, int64_t session_id,
                 uint64_t tasks, uint64_t failed_every, uint64_t runs) {
  // A failed task in the middle of the session, and 12 characters of its
  // trace: "ord r<7 digits>", the end of "invalid record r<7 digits>".
  uint64_t failed = tasks / 2;
  while (!IsFailed(failed, failed_every)) ++failed;
  const std::string trace = StackTrace(failed);
  const size_t record = trace.find("invalid record r");
  const std::string twelve = trace.substr(record + 11, 12);
  const std::string task_prefix = history::HexId(Id(failed * 2654435761ULL + 1, 24)).substr(0, 5);
  struct Case {
    const char* name;
    std::string q;
  };
  const std::vector<Case> cases = {
      {"12-char stack-trace substring", twelve},
      {"function substring (40 %)", "d_shard"},
      {"every stack trace (Traceback)", "Traceback"},
      {"task id prefix (5 hex digits)", task_prefix},
  };
  std::printf(
      "search through the API (%llu warm runs each): p50 / p99 / max ms of page 1 (100 rows, "
      "highlighted), of the exact count\n",
      static_cast<unsigned long long>(runs));
  for (const Case& c : cases) {
    std::string escaped;
    for (const unsigned char ch : c.q) {
      char hex[4];
      std::snprintf(hex, sizeof(hex), "%%%02X", ch);
      escaped += std::isalnum(ch) ? std::string(1, static_cast<char>(ch)) : std::string(hex);
    }
    auto page = [&] { return queries.Tasks(Params("/t?limit=100&q=" + escaped)); };
    auto count = [&] { return queries.TaskCount(Params("/c?q=" + escaped)); };
    absl::StatusOr<nlohmann::json> first = page();
    absl::StatusOr<nlohmann::json> total = count();
    absl::StatusOr<history::SearchQuery> query = history::ParseSearch(c.q);
    absl::StatusOr<history::SearchClause> clause =
        query.ok() ? history::BuildSearchClause(db, session_id, *query)
                   : absl::StatusOr<history::SearchClause>(query.status());
    std::optional<Timing> page_ms = TimeQuery(page, runs);
    std::optional<Timing> count_ms = TimeQuery(count, runs);
    if (!first.ok() || !total.ok() || !clause.ok() || !page_ms || !count_ms) {
      std::printf("  %-34s FAILED %s\n", c.name,
                  std::string((!first.ok() ? first : total).status().message()).c_str());
      return false;
    }
    int64_t highlights = 0;
    for (const nlohmann::json& row : (*first)["tasks"]) {
      for (const auto& [field, ranges] : row["matches"].items()) {
        highlights +=
            static_cast<int64_t>(ranges.is_object() ? ranges["matches"].size() : ranges.size());
      }
    }
    const int64_t matches = (*total)["total"].get<int64_t>();
    std::printf("  %-34s page %7.1f %7.1f %7.1f | count %7.1f %7.1f %7.1f\n", c.name,
                page_ms->Quantile(0.5), page_ms->Quantile(0.99), page_ms->Quantile(1.0),
                count_ms->Quantile(0.5), count_ms->Quantile(0.99), count_ms->Quantile(1.0));
    std::printf("  %-34s q=\"%s\": %lld tasks (%.1f %%), page %zu rows, %lld highlights, %s\n", "",
                c.q.c_str(), static_cast<long long>(matches),
                100.0 * static_cast<double>(matches) / static_cast<double>(tasks),
                (*first)["tasks"].size(), static_cast<long long>(highlights),
                clause->listed_tasks >= 0
                    ? "listed by row id"
                    : ("by column, " + std::to_string(clause->count_parts.size()) + " count parts")
                          .c_str());
  }
  return true;
}

// Every sort column x {no filter, one state, one function}, each order: page
// 1 and page 5,000 (100 rows a page; the last page when the filter keeps
// fewer). The deep page's cursor is the keyset of the row before it, found
// once by OFFSET over the same rows (tasks unit: latest attempts).
bool RunSortMatrix(history::SqliteDb& db, history::HistoryQueries& queries, uint64_t runs,
                   double& worst_p99) {
  struct Filter {
    const char* name;
    std::string param;  // "&key=value"
  };
  const std::vector<Filter> filters = {
      {"all", ""}, {"FINISHED", "&state=FINISHED"}, {"one function", "&function=train_step_20"}};
  std::printf(
      "task list, every sort x filter (%llu warm runs each): p99 ms of page 1 / of page 5,000 "
      "(asc, desc)\n",
      static_cast<unsigned long long>(runs));
  for (const history::TaskSort& sort : history::kTaskSorts) {
    std::printf("  %-18s", std::string(sort.name).c_str());
    for (const Filter& filter : filters) {
      for (const std::string order : {"asc", "desc"}) {
        const std::string base =
            "/t?limit=100&sort=" + std::string(sort.name) + "&order=" + order + filter.param;
        // The row before the deep page, by the list's own keys.
        absl::StatusOr<history::TaskFilters> where =
            history::HistoryTaskFilters(Params(base), history::CountUnit::kTasks);
        if (!where.ok()) return false;
        const std::string direction = order == "asc" ? " ASC" : " DESC";
        std::string keys = std::string(sort.column) + direction;
        if (sort.by_start_too) keys += ", t.start_ns" + direction;
        keys += ", t.id" + direction;
        history::SqlClause find;
        find.Sql("SELECT count(*) FROM tasks t WHERE t.session_id = 1").Add(where->clause);
        absl::StatusOr<history::SqliteStatement> counted = history::PrepareClause(db, find);
        if (!counted.ok() || !counted->Step().value_or(false)) return false;
        const int64_t rows = counted->Int(0);
        const int64_t page = std::min<int64_t>(5000, (rows + 99) / 100);
        std::string cursor;
        if (page > 1) {
          history::SqlClause before;
          before
              .Sql("SELECT " + std::string(sort.column) +
                   ", t.start_ns, t.id FROM tasks t WHERE t.session_id = 1")
              .Add(where->clause)
              .Sql(" ORDER BY " + keys + " LIMIT 1 OFFSET ?")
              .Int((page - 1) * 100 - 1);
          absl::StatusOr<history::SqliteStatement> row = history::PrepareClause(db, before);
          if (!row.ok() || !row->Step().value_or(false)) return false;
          const nlohmann::json value =
              sort.text ? nlohmann::json(std::string(row->Text(0))) : nlohmann::json(row->Int(0));
          cursor = "&cursor=" + history::EncodeCursor(nlohmann::json::array(
                                    {sort.name, order, value, row->Int(1), row->Int(2)}));
        }
        std::optional<Timing> first = TimeQuery([&] { return queries.Tasks(Params(base)); }, runs);
        std::optional<Timing> deep =
            TimeQuery([&] { return queries.Tasks(Params(base + cursor)); }, runs);
        if (!first || !deep) {
          std::printf(" FAILED\n");
          return false;
        }
        worst_p99 = std::max({worst_p99, first->Quantile(0.99), deep->Quantile(0.99)});
        std::printf(" %6.1f/%-6.1f", first->Quantile(0.99), deep->Quantile(0.99));
        if (page < 5000 && order == "desc") std::printf("(p%lld)", static_cast<long long>(page));
      }
      std::printf(" |");
    }
    std::printf("\n");
  }
  std::printf("  columns: %s, %s, %s; worst p99 %.1f ms\n", filters[0].name, filters[1].name,
              filters[2].name, worst_p99);
  return true;
}

int Run(int argc, char** argv) {
  Flags flags(argc, argv,
              {"tasks", "dir", "failed-every", "retry-every", "events-per-object",
               "batch-max-bytes", "query-runs", "matrix-runs", "cache-bytes", "mmap-bytes", "keep"},
              "rayagg-task-history-bench [--tasks N] [--dir SCRATCH] [--failed-every 20] "
              "[--retry-every 25 (0: no retries)] "
              "[--events-per-object 20000] [--batch-max-bytes 67108864] [--cache-bytes 67108864] "
              "[--mmap-bytes 2147483648 (0: none)] "
              "[--query-runs 100 (0: none)] [--matrix-runs 20]");
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows as it happens in a log file
  const uint64_t tasks = flags.Uint("tasks", 1'000'000);
  const uint64_t failed_every = flags.Uint("failed-every", 20);
  const uint64_t retry_every = flags.Uint("retry-every", 25);
  const std::string dir = flags.String(
      "dir", (std::filesystem::temp_directory_path() / "rayagg-history-bench").string());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/objects");
  std::cout << "generating " << tasks << " tasks ..." << std::endl;
  const Generated generated = Generate(dir + "/objects", tasks, failed_every, retry_every,
                                       flags.Uint("events-per-object", 20'000));
  std::cout << "session: " << tasks << " tasks, " << generated.attempts << " attempts ("
            << generated.retried << " failed and retried), " << generated.events << " events, "
            << generated.files.size() << " objects, " << generated.json_bytes / 1048576
            << " MiB JSON, " << generated.gzip_bytes / 1048576 << " MiB gzip, " << generated.failed
            << " failed with " << generated.trace_bytes / 1024 << " KiB of stack traces"
            << std::endl;

  // ---- Index build, without and with the search, back to back ----
  BuildIndex(flags, generated, tasks, dir + "/index-no-search", false);
  std::filesystem::remove_all(dir + "/index-no-search");
  BuildIndex(flags, generated, tasks, dir + "/index", true);

  // ---- Queries, warm, nothing indexing (--query-runs 0: none) ----
  const uint64_t runs = flags.Uint("query-runs", 100);
  if (runs == 0) {
    if (!flags.Has("keep")) std::filesystem::remove_all(dir);
    return 0;
  }
  absl::StatusOr<std::unique_ptr<history::SqliteDb>> reader = history::OpenIndexForReading(
      dir + "/index", 64 << 20, flags.Uint("mmap-bytes", history::kDefaultMmapBytes));
  if (!reader.ok()) {
    std::cerr << reader.status() << "\n";
    return 1;
  }
  history::HistoryQueries queries(**reader, {});
  const std::string job = history::HexId(Id(2, 4));
  auto params = [](const std::string& target) { return Params(target); };
  // The cursor of page 5,000 (100 tasks a page).
  std::string cursor;
  for (int page = 1; page < 5000; ++page) {
    absl::StatusOr<nlohmann::json> answer = queries.Tasks(
        params("/t?limit=100&sort=start_time" + (cursor.empty() ? "" : "&cursor=" + cursor)));
    if (!answer.ok() || (*answer)["next_cursor"].is_null()) break;
    cursor = (*answer)["next_cursor"];
  }
  struct Named {
    const char* name;
    std::function<absl::StatusOr<nlohmann::json>()> run;
  };
  const std::vector<Named> suite = {
      {"counts by state", [&] { return queries.Counts(params("/c")); }},
      {"counts for one job", [&] { return queries.Counts(params("/c?job_id=" + job)); }},
      {"group by function", [&] { return queries.Groups(params("/g?by=function")); }},
      {"group by function, one job",
       [&] { return queries.Groups(params("/g?by=function&job_id=" + job)); }},
      {"task list page 1 by start time",
       [&] { return queries.Tasks(params("/t?limit=100&sort=start_time")); }},
      {"task list page 5000 by cursor",
       [&] { return queries.Tasks(params("/t?limit=100&sort=start_time&cursor=" + cursor)); }},
      {"failed tasks page 1", [&] { return queries.Tasks(params("/t?limit=100&state=FAILED")); }},
      {"Ray list_tasks limit 100", [&] { return queries.RayListTasks(params("/r?limit=100")); }},
      {"Ray summarize, one job",
       [&] {
         return queries.RaySummarizeTasks(
             params("/s?filter_keys=job_id&filter_predicates=%3D&filter_values=" + job));
       }},
  };
  std::printf("queries (%llu warm runs each): p50 / p99 / max ms\n",
              static_cast<unsigned long long>(runs));
  for (const Named& query : suite) {
    std::optional<Timing> timing = TimeQuery(query.run, runs);
    if (!timing) {
      std::printf("  %-34s FAILED\n", query.name);
      return 1;
    }
    std::printf("  %-34s %8.2f %8.2f %8.2f\n", query.name, timing->Quantile(0.5),
                timing->Quantile(0.99), timing->Quantile(1.0));
  }
  if (!RunSearches(**reader, queries, 1, tasks, failed_every, runs)) return 1;
  double worst_p99 = 0;
  if (!RunSortMatrix(**reader, queries, flags.Uint("matrix-runs", 20), worst_p99)) return 1;
  if (!flags.Has("keep")) std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace rayagg::bench

int main(int argc, char** argv) { return rayagg::bench::Run(argc, argv); }
