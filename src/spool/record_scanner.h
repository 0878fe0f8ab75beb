// Reads the records of one segment file in order, checking each one's
// checksum, for recovery and for sinks reading events the memory cache no
// longer holds. Damage never stops it:
//   - a record whose checksum fails, or bytes that are not a record, form a
//     corrupt region: the scanner finds the next intact record after it (a
//     header whose fields are plausible and whose checksum matches) and
//     reports the region, then goes on;
//   - damage that no intact record follows is the tail: torn (a record cut
//     short by a crash during its write, or zeros the file system left
//     after a power loss) or corrupt (a complete record with a bad
//     checksum). Recovery truncates the file there.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "spool/file_system.h"
#include "spool/format.h"

namespace rayagg::spool {

struct ScannedRecord {
  uint64_t offset = 0;  // of its header in the file
  RecordHeader header;
  std::string_view payload;  // valid until the next call to Next()
};

struct DamagedRegion {
  uint64_t offset = 0;
  uint64_t bytes = 0;
  // Torn: the tail, cut short or zeros; expected after a crash, not counted
  // as corrupt.
  bool torn = false;
  bool tail = false;  // nothing intact follows it
};

class RecordScanner {
 public:
  enum class Step {
    kRecord,   // `record` holds the next intact record
    kDamaged,  // `damage` describes a region that was skipped
    kEnd,      // the range is consumed (or status() is an error)
  };

  // Scans [begin, end) of `file`, which must stay open while scanning.
  RecordScanner(File& file, uint64_t begin, uint64_t end, size_t block_bytes = 1 << 20);

  Step Next(ScannedRecord& record, DamagedRegion& damage);

  // Where scanning continues: just past the last record or region returned.
  uint64_t position() const { return position_; }
  // An I/O error ends the scan; everything returned before it is valid.
  const absl::Status& status() const { return status_; }

 private:
  // Makes [offset, offset + size) readable in the window; false if it does
  // not fit before end_ (or on an I/O error).
  bool Ensure(uint64_t offset, size_t size);
  std::string_view View(uint64_t offset, size_t size) const {
    return std::string_view(window_).substr(offset - window_offset_, size);
  }
  // Whether an intact record starts at `offset`; fills `header`.
  bool IntactAt(uint64_t offset, RecordHeader& header);
  // The offset of the next intact record after `offset`, or end_.
  uint64_t Resync(uint64_t offset);

  File& file_;
  const uint64_t end_;
  const size_t block_bytes_;
  uint64_t position_;
  std::string window_;
  uint64_t window_offset_;
  absl::Status status_;
};

}  // namespace rayagg::spool
