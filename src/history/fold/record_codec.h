// The compact binary form in which the index stores whole records (the
// `record` column), so that a batch can merge with what is stored exactly as
// two in-memory records merge. Varints and length-prefixed strings; a
// leading format byte so that a later layout can still read this one.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "history/fold/task_record.h"

namespace rayagg::history {

std::string EncodeRecord(const TaskRecord& record);
std::string EncodeRecord(const ActorRecord& record);
std::string EncodeRecord(const JobRecord& record);
std::string EncodeRecord(const NodeRecord& record);
std::string EncodeRecord(const WorkerRecord& record);

// DataLoss when the bytes are not a record of that kind.
absl::Status DecodeRecord(std::string_view bytes, TaskRecord& out);
absl::Status DecodeRecord(std::string_view bytes, ActorRecord& out);
absl::Status DecodeRecord(std::string_view bytes, JobRecord& out);
absl::Status DecodeRecord(std::string_view bytes, NodeRecord& out);
absl::Status DecodeRecord(std::string_view bytes, WorkerRecord& out);

}  // namespace rayagg::history
