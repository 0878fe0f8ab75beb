#include "spool/ledger.h"

#include <cstring>

#include "common/text.h"
#include "spool/crc32c.h"
#include "spool/format.h"

namespace rayagg::spool {
namespace {

constexpr std::string_view kLedgerMagic = "RAYAGGLG";
constexpr size_t kSlotHeaderBytes = 32;

void Put32(std::string& out, size_t at, uint32_t value) {
  for (size_t i = 0; i < 4; ++i) out[at + i] = static_cast<char>(value >> (8 * i));
}
void Put64(std::string& out, size_t at, uint64_t value) {
  for (size_t i = 0; i < 8; ++i) out[at + i] = static_cast<char>(value >> (8 * i));
}
uint64_t GetLittle(std::string_view in, size_t at, size_t bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; ++i) {
    value |= static_cast<uint64_t>(static_cast<unsigned char>(in[at + i])) << (8 * i);
  }
  return value;
}

uint32_t SlotCrc(std::string_view slot, size_t list_bytes) {
  return Crc32cExtend(Crc32cExtend(0, slot.data(), 12), slot.data() + 16,
                      kSlotHeaderBytes - 16 + list_bytes);
}

enum class SlotCondition { kIntact, kIncompatible, kDamaged };

SlotCondition DecodeSlot(std::string_view slot, LedgerState& state, uint32_t& version) {
  if (slot.size() < kSlotHeaderBytes || slot.substr(0, 8) != kLedgerMagic) {
    return SlotCondition::kDamaged;
  }
  const uint64_t list_bytes = GetLittle(slot, 24, 4);
  if (list_bytes > slot.size() - kSlotHeaderBytes) return SlotCondition::kDamaged;
  if (GetLittle(slot, 12, 4) != SlotCrc(slot, list_bytes)) return SlotCondition::kDamaged;
  version = static_cast<uint32_t>(GetLittle(slot, 8, 4));
  if (version != kFormatVersion) return SlotCondition::kIncompatible;
  state.generation = GetLittle(slot, 16, 8);
  const uint64_t count = GetLittle(slot, 28, 4);
  std::string_view list = slot.substr(kSlotHeaderBytes, list_bytes);
  state.positions.clear();
  for (uint64_t i = 0; i < count; ++i) {
    if (list.size() < 2) return SlotCondition::kDamaged;
    const size_t name_bytes = GetLittle(list, 0, 2);
    if (list.size() < 2 + name_bytes + 8) return SlotCondition::kDamaged;
    state.positions.emplace_back(std::string(list.substr(2, name_bytes)),
                                 GetLittle(list, 2 + name_bytes, 8));
    list.remove_prefix(2 + name_bytes + 8);
  }
  return list.empty() ? SlotCondition::kIntact : SlotCondition::kDamaged;
}

}  // namespace

absl::StatusOr<std::string> EncodeLedgerSlot(const LedgerState& state) {
  std::string slot(kSlotHeaderBytes, '\0');
  std::memcpy(slot.data(), kLedgerMagic.data(), kLedgerMagic.size());
  Put32(slot, 8, kFormatVersion);
  Put64(slot, 16, state.generation);
  Put32(slot, 28, static_cast<uint32_t>(state.positions.size()));
  for (const auto& [name, position] : state.positions) {
    if (name.size() > 0xFFFF)
      return absl::InvalidArgumentError("sink name too long for the ledger");
    const size_t at = slot.size();
    slot.resize(at + 2 + name.size() + 8);
    slot[at] = static_cast<char>(name.size() & 0xFF);
    slot[at + 1] = static_cast<char>(name.size() >> 8);
    std::memcpy(slot.data() + at + 2, name.data(), name.size());
    Put64(slot, at + 2 + name.size(), position);
  }
  if (slot.size() > kLedgerSlotBytes) {
    return absl::InvalidArgumentError(strings::Cat("the sinks' names take ", slot.size(),
                                                   " bytes; the ledger holds ", kLedgerSlotBytes));
  }
  const size_t list_bytes = slot.size() - kSlotHeaderBytes;
  Put32(slot, 24, static_cast<uint32_t>(list_bytes));
  Put32(slot, 12, SlotCrc(slot, list_bytes));
  return slot;
}

DecodedLedger DecodeLedger(std::string_view file_bytes) {
  DecodedLedger result;
  if (file_bytes.empty()) return result;
  bool any_intact = false;
  bool incompatible = false;
  for (size_t slot = 0; slot < 2; ++slot) {
    const size_t begin = slot * kLedgerSlotBytes;
    if (begin >= file_bytes.size()) break;
    LedgerState state;
    uint32_t version = 0;
    switch (DecodeSlot(file_bytes.substr(begin, kLedgerSlotBytes), state, version)) {
      case SlotCondition::kIntact:
        if (!any_intact || state.generation > result.state.generation) {
          result.state = std::move(state);
        }
        any_intact = true;
        break;
      case SlotCondition::kIncompatible:
        incompatible = true;
        result.version = version;
        break;
      case SlotCondition::kDamaged:
        break;
    }
  }
  if (any_intact) {
    result.condition = LedgerCondition::kValid;
  } else {
    result.condition = incompatible ? LedgerCondition::kIncompatible : LedgerCondition::kCorrupt;
  }
  return result;
}

absl::StatusOr<DecodedLedger> ReadLedger(FileSystem& fs, const std::string& path) {
  absl::StatusOr<std::unique_ptr<File>> file = fs.Open(path, OpenMode::kRead);
  if (!file.ok()) {
    if (absl::IsNotFound(file.status())) return DecodedLedger{};
    return file.status();
  }
  std::string bytes(2 * kLedgerSlotBytes, '\0');
  absl::StatusOr<size_t> got = (*file)->ReadAt(0, bytes.data(), bytes.size());
  if (!got.ok()) return got.status();
  bytes.resize(*got);
  return DecodeLedger(bytes);
}

absl::StatusOr<std::unique_ptr<LedgerWriter>> LedgerWriter::Open(FileSystem& fs,
                                                                 const std::string& path,
                                                                 uint64_t newest_generation) {
  absl::StatusOr<std::unique_ptr<File>> file = fs.Open(path, OpenMode::kReadWrite);
  if (!file.ok()) return file.status();
  return std::unique_ptr<LedgerWriter>(new LedgerWriter(*std::move(file), newest_generation));
}

absl::Status LedgerWriter::Write(const std::vector<std::pair<std::string, uint64_t>>& positions) {
  LedgerState state{.generation = generation_ + 1, .positions = positions};
  absl::StatusOr<std::string> slot = EncodeLedgerSlot(state);
  if (!slot.ok()) return slot.status();
  // The slot the newest state is not in.
  const uint64_t offset = (state.generation % 2) * kLedgerSlotBytes;
  if (absl::Status written = file_->WriteAt(offset, *slot); !written.ok()) return written;
  generation_ = state.generation;
  return absl::OkStatus();
}

}  // namespace rayagg::spool
