// The spool under a fault-injecting file system, checked against a
// reference model of what must survive (docs/DELIVERY.md, "What an
// acknowledgement means"). Random runs of appends, coalesced parts,
// releases and injected faults (short, failed and torn writes, ENOSPC, EIO,
// failed fsyncs, failed directory fsyncs, failed segment creation), each
// ended by a clean stop, a crash of the process or a power loss, then
// recovered and compared with the model:
//   - every record acknowledged while the spool was healthy is recovered
//     after a crash of the process (or a clean stop);
//   - after a power loss, every such record the writer reported synced is
//     recovered (so a failed fsync must never be retried on the same file);
//   - nothing is recovered that was not appended, and nothing twice;
//   - recovery always completes, and the next run appends above it.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "spool/spool.h"
#include "support/manual_clock.h"
#include "support/simulated_file_system.h"
#include "unit/spool/spool_test_util.h"

namespace rayagg::spool {
namespace {

using rayagg::test::SimulatedFileSystem;
using test::ReadAll;
using test::Record;
using test::TestStream;

constexpr const char* kDirectory = "/var/spool";

struct ModelRecord {
  Record record;
  uint64_t run = 0;
  uint64_t end = 0;            // stream position after it, in its run
  bool acked_healthy = false;  // acknowledged while the spool was healthy
  // A power loss may take it even once recovered (docs/SPOOL.md): it was
  // written before a failed fsync and not written again, because the
  // process died first or memory had let it go (Linux may have marked its
  // pages clean: a later fsync, recovery's too, does not write them).
  bool power_unsafe = false;
};

class Listener final : public SpoolListener {
 public:
  explicit Listener(TestStream& stream) : stream_(stream) {}
  void OnDurable(uint64_t position) override { stream_.DropBefore(position); }
  void OnEvict(const SegmentInfo&) override { ++evictions; }
  void OnHealthChanged(SpoolHealth now, const std::string&) override { health = now; }
  void OnProblem(const std::string&) override { ++problems; }
  SpoolHealth health = SpoolHealth::kHealthy;
  int evictions = 0;
  int problems = 0;

 private:
  TestStream& stream_;
};

enum class Ending { kStop, kCrash, kPowerLoss, kPowerLossTorn };

class FaultModelTest : public ::testing::TestWithParam<std::tuple<SyncMode, OnWriteError>> {
 protected:
  void RunSeed(uint32_t seed);
};

SimulatedFileSystem::Fault RandomFault(std::mt19937& random) {
  using Op = SimulatedFileSystem::Op;
  SimulatedFileSystem::Fault fault;
  fault.skip = static_cast<int>(random() % 3);
  fault.times = 1 + static_cast<int>(random() % 2);
  fault.error = random() % 2 == 0 ? EIO : ENOSPC;
  switch (random() % 7) {
    case 0:
      fault.op = Op::kAppend;
      break;
    case 1:
      fault.op = Op::kAppend;
      fault.short_write = true;
      fault.short_bytes = random() % 40;
      break;
    case 2:
      fault.op = Op::kAppend;
      fault.torn = true;
      break;
    case 3:
      fault.op = Op::kSync;
      break;
    case 4:
      fault.op = Op::kSyncDirectory;
      break;
    case 5:
      fault.op = Op::kOpen;
      fault.path_contains = ".seg";
      break;
    default:
      fault.op = Op::kSync;
      fault.times = 4;  // long enough to take the spool down
      break;
  }
  return fault;
}

void FaultModelTest::RunSeed(uint32_t seed) {
  const auto [sync, on_error] = GetParam();
  // RAYAGG_TRACE_SEED=N prints what seed N does, step by step.
  const char* trace_seed = std::getenv("RAYAGG_TRACE_SEED");
  const bool trace = trace_seed != nullptr && std::to_string(seed) == trace_seed;
  auto log = [&](const std::string& line) {
    if (trace) std::fprintf(stderr, "%s\n", line.c_str());
  };
  std::mt19937 random(seed);
  SimulatedFileSystem fs;
  std::map<std::pair<uint64_t, uint8_t>, ModelRecord> model;  // (sequence, part) -> record
  rayagg::test::ManualClock clock;
  uint64_t released = 0;       // the sink's released position, as the spool resumes it
  uint64_t ever_released = 0;  // below this, segments may have been deleted
  for (uint64_t run = 0; run < 4; ++run) {
    SpoolOptions options{.directory = kDirectory,
                         .max_bytes = 1 << 30,
                         .segment_bytes = 1500,
                         .sync = sync,
                         .sync_interval = std::chrono::milliseconds(100),
                         .on_write_error = on_error,
                         .retry_interval = std::chrono::milliseconds(1000)};
    absl::StatusOr<std::unique_ptr<Spool>> opened = Spool::Open(fs, clock, options, "test");
    ASSERT_TRUE(opened.ok()) << opened.status();
    Spool& spool = **opened;
    spool.Recover(nullptr);
    log("run " + std::to_string(run) + " opened: first sequence " +
        std::to_string(spool.first_sequence()));
    for (const SegmentInfo& segment : spool.segments().Snapshot()) {
      log("  segment " + std::to_string(segment.number) + " bytes " +
          std::to_string(segment.file_bytes) + " entries " + std::to_string(segment.first_entry) +
          ".." + std::to_string(segment.last_entry));
    }
    // What recovery found, against the model.
    DiskReadResult totals;
    const std::vector<Record> found = ReadAll(fs, spool.segments(), released, &totals);
    std::set<std::pair<uint64_t, uint8_t>> seen;
    for (const Record& record : found) {
      const auto key = std::make_pair(record.sequence, record.part);
      ASSERT_TRUE(seen.insert(key).second)
          << "read twice: " << record.sequence << "/" << int(record.part) << " seed " << seed;
      auto it = model.find(key);
      ASSERT_NE(it, model.end()) << "invented record " << record.sequence << " seed " << seed;
      ASSERT_EQ(it->second.record, record) << "seed " << seed;
    }
    for (const auto& [key, expected] : model) {
      if (!expected.acked_healthy || key.first < ever_released) continue;
      ASSERT_TRUE(seen.contains(key))
          << "lost acknowledged record " << key.first << "/" << int(key.second) << " of run "
          << expected.run << ", seed " << seed;
    }
    // What was not found (where the reader looked) is gone for good, and
    // what was found must stay: recovery made it durable. Below the
    // resume position records may still be on disk (released, not yet
    // deleted) and come back if a power loss takes the ledger back.
    for (auto it = model.begin(); it != model.end();) {
      if (seen.contains(it->first)) {
        it->second.acked_healthy = true;
        ++it;
      } else if (it->first.first >= released) {
        it = model.erase(it);
      } else {
        it->second.acked_healthy = false;
        ++it;
      }
    }
    const std::optional<uint64_t> ledger_position =
        spool.ledger().positions.empty() ? std::nullopt
                                         : std::optional(spool.ledger().positions[0].second);
    if (ledger_position) {
      EXPECT_LE(*ledger_position, ever_released);
    }
    released = ledger_position.value_or(0);
    for (const auto& [key, record] : model) {
      EXPECT_LT(key.first, spool.first_sequence()) << "a new run must start above the old one";
    }

    const int sync_failures_before = fs.injected(SimulatedFileSystem::Op::kSync);
    TestStream stream(256);
    Listener listener(stream);
    spool.StartManual(stream, listener, 0);
    uint64_t next_sequence = spool.first_sequence();
    // Entries that may still take parts: sequence, parts so far, type (a
    // part always has its entry's type).
    std::vector<std::tuple<uint64_t, uint8_t, int32_t>> recent;
    auto acknowledge = [&](std::vector<ModelRecord*> records) {
      return [&spool, records](absl::Status status) {
        if (!status.ok()) return;
        const bool healthy = spool.health() == SpoolHealth::kHealthy;
        for (ModelRecord* record : records) record->acked_healthy = healthy;
      };
    };
    const int steps = 40 + static_cast<int>(random() % 40);
    for (int step = 0; step < steps; ++step) {
      switch (random() % 8) {
        case 0:
        case 1:
        case 2: {  // a request of 1-3 events
          std::vector<ModelRecord*> request;
          const int events = 1 + static_cast<int>(random() % 3);
          for (int i = 0; i < events; ++i) {
            Record record{
                .event_type = static_cast<int32_t>(random() % 4),
                .payload = std::string(1 + random() % 120, static_cast<char>('a' + random() % 26))};
            if (!recent.empty() && random() % 3 == 0) {
              auto& [sequence, parts, type] = recent[random() % recent.size()];
              if (parts < kMaxPart) {
                record.sequence = sequence;
                record.part = ++parts;
                record.event_type = type;
              }
            }
            if (record.part == 0) {
              record.sequence = next_sequence++;
              recent.emplace_back(record.sequence, 0, record.event_type);
              if (recent.size() > 4) recent.erase(recent.begin());
            }
            const uint64_t end = stream.Add(record);
            log("append " + std::to_string(record.sequence) + "/" + std::to_string(record.part) +
                " end " + std::to_string(end));
            ModelRecord& stored = model[{record.sequence, record.part}];
            stored = ModelRecord{.record = record, .run = run, .end = end};
            request.push_back(&stored);
          }
          spool.Submit(stream.end(), acknowledge(request));
          break;
        }
        case 3: {
          const auto fault = RandomFault(random);
          log("fault op " + std::to_string(static_cast<int>(fault.op)) + " skip " +
              std::to_string(fault.skip) + " times " + std::to_string(fault.times) +
              (fault.short_write ? " short" : "") + (fault.torn ? " torn" : ""));
          fs.Inject(fault);
          break;
        }
        case 4: {  // the sink released up to a recent entry
          if (next_sequence > spool.first_sequence() && random() % 2 == 0) {
            released = std::max(released, spool.first_sequence() +
                                              random() % (next_sequence - spool.first_sequence()));
            ever_released = std::max(ever_released, released);
            spool.UpdatePositions({{"sink", released}}, released);
          }
          break;
        }
        case 5:  // memory let go of data not yet durable (only allowed while down)
          if (spool.health() == SpoolHealth::kMemory) {
            const uint64_t before = stream.end() / 2;
            // Those not synced are "in memory again" and now gone from it:
            // no promise is left (they may still be in a segment), for
            // them nor for the parts of their entries.
            std::set<uint64_t> gone_entries;
            for (auto& [key, record] : model) {
              if (record.run == run && record.end <= before &&
                  record.end > spool.synced_position()) {
                record.acked_healthy = false;
                record.power_unsafe = true;  // if some segment still has it
                if (key.second == 0) gone_entries.insert(key.first);
              }
            }
            for (auto& [key, record] : model) {
              if (record.run == run && gone_entries.contains(key.first)) {
                record.acked_healthy = false;
              }
            }
            stream.DropBefore(before);
            recent.clear();  // the log only coalesces into entries it still holds
          }
          break;
        default:
          clock.Advance(std::chrono::milliseconds(random() % 700));
          spool.Pump();
          log("pump: health " + std::string(SpoolHealthName(spool.health())) + " written " +
              std::to_string(spool.written_position()) + " synced " +
              std::to_string(spool.synced_position()));
          if (trace) {
            for (const std::string& path : fs.Paths()) {
              log("    " + path + " " + std::to_string(fs.Contents(path).size()));
            }
          }
          break;
      }
    }
    spool.Pump();
    const uint64_t synced = spool.synced_position();
    const Ending ending = static_cast<Ending>(random() % 4);
    log("end of run " + std::to_string(run) + ": ending " + std::to_string(int(ending)) +
        " synced " + std::to_string(synced));
    const bool fsync_failed = fs.injected(SimulatedFileSystem::Op::kSync) > sync_failures_before;
    if (fsync_failed && ending != Ending::kPowerLoss && ending != Ending::kPowerLossTorn) {
      for (auto& [key, record] : model) {
        if (record.run == run && record.end > synced) record.power_unsafe = true;
      }
    }
    if (ending == Ending::kStop) {
      fs.ClearFaults();
      spool.Stop();
    } else {
      spool.Abandon();
      fs.ClearFaults();
      if (ending == Ending::kCrash) {
        fs.CrashProcess();
      } else {
        fs.LosePower(ending == Ending::kPowerLossTorn);
        // Only what the writer had synced must survive a power loss.
        for (auto& [key, record] : model) {
          if ((record.run == run && record.end > synced) || record.power_unsafe) {
            record.acked_healthy = false;
          }
        }
      }
    }
    if (sync == SyncMode::kNever && ending >= Ending::kPowerLoss) {
      for (auto& [key, record] : model) {
        if (record.run == run) record.acked_healthy = false;  // no promise
      }
    }
    if (ending >= Ending::kPowerLoss) {
      // The ledger is never fsync'd: a power loss may take it back.
      released = 0;
    }
  }
}

TEST_P(FaultModelTest, AcknowledgedRecordsSurvive) {
  // RAYAGG_FAULT_SEEDS=N runs more seeds (a longer search).
  const char* seeds = std::getenv("RAYAGG_FAULT_SEEDS");
  const uint32_t last = seeds != nullptr ? static_cast<uint32_t>(std::atoi(seeds)) : 60;
  for (uint32_t seed = 1; seed <= last; ++seed) {
    RunSeed(seed);
    if (HasFatalFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Modes, FaultModelTest,
    ::testing::Combine(::testing::Values(SyncMode::kInterval, SyncMode::kAlways, SyncMode::kNever),
                       ::testing::Values(OnWriteError::kMemory, OnWriteError::kRefuse)));

}  // namespace
}  // namespace rayagg::spool
