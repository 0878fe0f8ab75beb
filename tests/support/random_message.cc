#include "support/random_message.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace rayagg::testing {

int RandomMessageFiller::RepeatedCount() {
  const int roll = Uniform(0, 9);
  if (roll < 3) return 0;
  if (roll < 8) return Uniform(1, 3);
  return Uniform(4, 8);
}

void RandomMessageFiller::Fill(google::protobuf::Message& message, int depth) {
  namespace pb = google::protobuf;
  const pb::Descriptor* d = message.GetDescriptor();
  const pb::Reflection* r = message.GetReflection();
  if (d->full_name() == "google.protobuf.Timestamp") {
    FillTimestamp(message);
    return;
  }
  for (int i = 0; i < d->field_count(); ++i) {
    const pb::FieldDescriptor* f = d->field(i);
    if (f->real_containing_oneof() != nullptr) continue;  // below
    if (f->message_type() != nullptr && !f->is_map() && depth >= max_depth) continue;
    if (f->is_repeated()) {
      const int n = RepeatedCount();
      for (int k = 0; k < n; ++k) AddRandom(message, f, depth);
      if (n > 0) covered.insert(f);
    } else if (f->has_presence()) {
      if (Percent(55)) {
        SetRandom(message, f, depth);
        covered.insert(f);
      }
    } else if (Percent(80)) {
      SetRandom(message, f, depth);
      covered.insert(f);
    }
  }
  for (int i = 0; i < d->real_oneof_decl_count(); ++i) {
    const pb::OneofDescriptor* o = d->oneof_decl(i);  // real oneofs come first;
    if (Percent(30)) continue;
    const pb::FieldDescriptor* f = o->field(Uniform(0, o->field_count() - 1));
    if (f->message_type() != nullptr && depth >= max_depth) continue;
    SetRandom(message, f, depth);
    covered.insert(f);
  }
  (void)r;
}

int64_t RandomMessageFiller::RandomInt64() {
  switch (Uniform(0, 9)) {
    case 0:
      return 0;
    case 1:
      return std::numeric_limits<int64_t>::min();
    case 2:
      return std::numeric_limits<int64_t>::max();
    case 3:
      return -1;
    case 4:
      return (int64_t{1} << 53) + 1;
    case 5:
      return -static_cast<int64_t>(Uniform(1, 1000000));
    case 6:
      return Uniform(0, 1000);
    default:
      return static_cast<int64_t>(rng_());
  }
}

uint64_t RandomMessageFiller::RandomUInt64() {
  switch (Uniform(0, 6)) {
    case 0:
      return 0;
    case 1:
      return std::numeric_limits<uint64_t>::max();
    case 2:
      return uint64_t{1} << 63;
    case 3:
      return static_cast<uint64_t>(Uniform(0, 1000));
    default:
      return rng_();
  }
}

int32_t RandomMessageFiller::RandomInt32() {
  switch (Uniform(0, 7)) {
    case 0:
      return 0;
    case 1:
      return std::numeric_limits<int32_t>::min();
    case 2:
      return std::numeric_limits<int32_t>::max();
    case 3:
      return -1;
    case 4:
      return Uniform(-1000, 1000);
    default:
      return static_cast<int32_t>(rng_());
  }
}

uint32_t RandomMessageFiller::RandomUInt32() {
  switch (Uniform(0, 4)) {
    case 0:
      return 0;
    case 1:
      return std::numeric_limits<uint32_t>::max();
    case 2:
      return static_cast<uint32_t>(Uniform(0, 1000));
    default:
      return static_cast<uint32_t>(rng_());
  }
}

double RandomMessageFiller::RandomDouble() {
  switch (Uniform(0, 17)) {
    case 0:
      return 0.0;
    case 1:
      return -0.0;
    case 2:
      return std::numeric_limits<double>::quiet_NaN();
    case 3:
      return std::numeric_limits<double>::infinity();
    case 4:
      return -std::numeric_limits<double>::infinity();
    case 5:
      return std::numeric_limits<double>::max();
    case 6:
      return std::numeric_limits<double>::lowest();
    case 7:
      return std::numeric_limits<double>::min();
    case 8:
      return std::numeric_limits<double>::denorm_min();
    case 9:
      return 0.1;
    case 10:
      return 1.0 / 3.0;
    case 11:
      return static_cast<double>(Uniform(0, 64));  // typical resource amounts
    case 12:
      return 1e21;
    case 13:
      return 1e-7;
    case 14:
      return static_cast<double>(Uniform(-100000, 100000)) / 1000.0;
    default: {
      // Random bit pattern, NaNs excluded (covered above).
      double value = 0;
      do {
        const uint64_t bits = rng_();
        std::memcpy(&value, &bits, sizeof(value));
      } while (std::isnan(value));
      return value;
    }
  }
}

void RandomMessageFiller::AppendUtf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

uint32_t RandomMessageFiller::RandomCodePoint() {
  static constexpr uint32_t kSpecial[] = {
      '"',  '\\',  '/',    '\'',   '<',    '>',    '&',    0x7F,    0x80,     0x9F,   0xAD,
      0xE9, 0x600, 0x2028, 0x2029, 0xFEFF, 0xFFFD, 0xFFFF, 0x1F600, 0x10FFFF, 0x65E5, 0x672C};
  switch (Uniform(0, 9)) {
    case 0:
      return static_cast<uint32_t>(Uniform(0, 0x1F));  // control characters, NUL too
    case 1:
      return kSpecial[Uniform(0, sizeof(kSpecial) / sizeof(kSpecial[0]) - 1)];
    case 2: {
      uint32_t cp = 0;
      do {
        cp = static_cast<uint32_t>(Uniform(0x80, 0x10FFFF));
      } while (cp >= 0xD800 && cp <= 0xDFFF);
      return cp;
    }
    default:
      return static_cast<uint32_t>(Uniform(0x20, 0x7E));
  }
}

std::string RandomMessageFiller::RandomString() {
  std::string s;
  int length = 0;
  switch (Uniform(0, 9)) {
    case 0:
      return s;
    case 1:
      length = Uniform(200, 3000);
      break;  // stack-trace sized
    default:
      length = Uniform(1, 24);
      break;
  }
  const bool plain = Percent(50);
  for (int i = 0; i < length; ++i) {
    AppendUtf8(plain ? static_cast<uint32_t>(Uniform(0x20, 0x7E)) : RandomCodePoint(), s);
  }
  return s;
}

std::string RandomMessageFiller::RandomBytes() {
  const int length = Percent(20) ? Uniform(0, 3) : Uniform(0, 40);
  std::string s(static_cast<size_t>(length), '\0');
  for (char& c : s) c = static_cast<char>(rng_());
  return s;
}

int RandomMessageFiller::RandomEnum(const google::protobuf::EnumDescriptor* e) {
  if (Percent(10)) {
    static constexpr int kUnknown[] = {-1, 1000, std::numeric_limits<int32_t>::min(),
                                       std::numeric_limits<int32_t>::max(), 99};
    for (int attempt = 0; attempt < 5; ++attempt) {
      const int v = kUnknown[Uniform(0, 4)];
      if (e->FindValueByNumber(v) == nullptr) return v;
    }
  }
  return e->value(Uniform(0, e->value_count() - 1))->number();
}

void RandomMessageFiller::FillTimestamp(google::protobuf::Message& ts) {
  const auto* d = ts.GetDescriptor();
  const auto* r = ts.GetReflection();
  int64_t seconds = 0;
  int32_t nanos = 0;
  if (Uniform(0, 999) < bad_timestamp_per_mille) {
    switch (Uniform(0, 3)) {
      case 0:
        seconds = 253402300800;
        break;
      case 1:
        seconds = -62135596801;
        break;
      case 2:
        nanos = -1;
        break;
      default:
        nanos = 1000000000;
        break;
    }
  } else {
    switch (Uniform(0, 5)) {
      case 0:
        seconds = 0;
        break;
      case 1:
        seconds = -62135596800;
        break;  // 0001-01-01
      case 2:
        seconds = 253402300799;
        break;  // 9999-12-31
      case 3:
        seconds = -static_cast<int64_t>(Uniform(1, 1000000000));
        break;
      default:
        seconds = std::uniform_int_distribution<int64_t>(-62135596800, 253402300799)(rng_);
    }
    switch (Uniform(0, 4)) {
      case 0:
        nanos = 0;
        break;
      case 1:
        nanos = Uniform(0, 999) * 1000000;
        break;
      case 2:
        nanos = Uniform(0, 999999) * 1000;
        break;
      case 3:
        nanos = 999999999;
        break;
      default:
        nanos = Uniform(0, 999999999);
    }
  }
  r->SetInt64(&ts, d->FindFieldByNumber(1), seconds);
  r->SetInt32(&ts, d->FindFieldByNumber(2), nanos);
  covered.insert(d->FindFieldByNumber(1));
  covered.insert(d->FindFieldByNumber(2));
}

void RandomMessageFiller::SetRandom(google::protobuf::Message& m,
                                    const google::protobuf::FieldDescriptor* f, int depth) {
  namespace pb = google::protobuf;
  const pb::Reflection* r = m.GetReflection();
  switch (f->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32:
      r->SetInt32(&m, f, RandomInt32());
      break;
    case pb::FieldDescriptor::CPPTYPE_INT64:
      r->SetInt64(&m, f, RandomInt64());
      break;
    case pb::FieldDescriptor::CPPTYPE_UINT32:
      r->SetUInt32(&m, f, RandomUInt32());
      break;
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      r->SetUInt64(&m, f, RandomUInt64());
      break;
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
      r->SetDouble(&m, f, RandomDouble());
      break;
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
      r->SetFloat(&m, f, static_cast<float>(RandomDouble()));
      break;
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      r->SetBool(&m, f, Percent(50));
      break;
    case pb::FieldDescriptor::CPPTYPE_ENUM:
      r->SetEnumValue(&m, f, RandomEnum(f->enum_type()));
      break;
    case pb::FieldDescriptor::CPPTYPE_STRING:
      r->SetString(&m, f,
                   f->type() == pb::FieldDescriptor::TYPE_BYTES ? RandomBytes() : RandomString());
      break;
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      Fill(*r->MutableMessage(&m, f), depth + 1);
      break;
  }
}

void RandomMessageFiller::AddRandom(google::protobuf::Message& m,
                                    const google::protobuf::FieldDescriptor* f, int depth) {
  namespace pb = google::protobuf;
  const pb::Reflection* r = m.GetReflection();
  switch (f->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32:
      r->AddInt32(&m, f, RandomInt32());
      break;
    case pb::FieldDescriptor::CPPTYPE_INT64:
      r->AddInt64(&m, f, RandomInt64());
      break;
    case pb::FieldDescriptor::CPPTYPE_UINT32:
      r->AddUInt32(&m, f, RandomUInt32());
      break;
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      r->AddUInt64(&m, f, RandomUInt64());
      break;
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
      r->AddDouble(&m, f, RandomDouble());
      break;
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
      r->AddFloat(&m, f, static_cast<float>(RandomDouble()));
      break;
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      r->AddBool(&m, f, Percent(50));
      break;
    case pb::FieldDescriptor::CPPTYPE_ENUM:
      r->AddEnumValue(&m, f, RandomEnum(f->enum_type()));
      break;
    case pb::FieldDescriptor::CPPTYPE_STRING:
      r->AddString(&m, f,
                   f->type() == pb::FieldDescriptor::TYPE_BYTES ? RandomBytes() : RandomString());
      break;
    case pb::FieldDescriptor::CPPTYPE_MESSAGE: {
      pb::Message* element = r->AddMessage(&m, f);
      if (f->is_map()) {
        // Map entries: key and value always set, like protobuf writes them.
        const pb::Descriptor* entry = f->message_type();
        SetRandom(*element, entry->map_key(), depth);
        SetRandom(*element, entry->map_value(), depth);
        covered.insert(entry->map_key());
        covered.insert(entry->map_value());
      } else {
        Fill(*element, depth + 1);
      }
      break;
    }
  }
}

}  // namespace rayagg::testing
