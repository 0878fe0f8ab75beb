#include "json/event_json_parser.h"

#include <simdjson.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "json/event_transcoder.h"
#include "json/json_scalars.h"
#include "json/wire_buffer.h"
#include "json/wire_schema.h"
#include "src/ray/protobuf/public/events_base_event.pb.h"

namespace rayagg {
namespace {

using json_internal::EventTranscoder;
using json_internal::Step;
namespace od = simdjson::ondemand;

static_assert(kJsonSpareBytes >= simdjson::SIMDJSON_PADDING);

// Above this, buffers are given back after the parse instead of kept.
constexpr size_t kKeptBufferBytes = 16 * 1024 * 1024;

bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

enum class Shape { kArray, kNotArray, kInvalid };

// A JSON string token at the start of `text`, as nlohmann_json's lexer
// checks it (for bodies that are a bare string: refused either way, only the
// wording differs).
bool StringTokenValid(std::string_view text) {
  size_t i = 1;
  for (; i < text.size() && text[i] != '"'; ++i) {
    if (static_cast<unsigned char>(text[i]) < 0x20) return false;
    if (text[i] == '\\') ++i;
  }
  if (i >= text.size()) return false;
  const std::string_view content = text.substr(1, i - 1);
  std::string unescaped;
  return AppendUnescapedJson(content, unescaped) &&
         simdjson::validate_utf8(unescaped.data(), unescaped.size());
}

// What the body starts with, judged the way the parser before this one did:
// it stopped at the first value that was not an array.
Shape ShapeOf(std::string_view body) {
  size_t i = 0;
  while (i < body.size() && IsJsonSpace(body[i])) ++i;
  if (i == body.size()) return Shape::kInvalid;
  const std::string_view rest = body.substr(i);
  switch (rest.front()) {
    case '[':
      return Shape::kArray;
    case '{':
      return Shape::kNotArray;
    case '"':
      return StringTokenValid(rest) ? Shape::kNotArray : Shape::kInvalid;
    case 't':
      return rest.starts_with("true") ? Shape::kNotArray : Shape::kInvalid;
    case 'f':
      return rest.starts_with("false") ? Shape::kNotArray : Shape::kInvalid;
    case 'n':
      return rest.starts_with("null") ? Shape::kNotArray : Shape::kInvalid;
    default: {
      const size_t length = JsonNumberPrefix(rest);
      if (length == 0) return Shape::kInvalid;
      return ParseJsonNumber(rest.substr(0, length)) ? Shape::kNotArray : Shape::kInvalid;
    }
  }
}

// nlohmann_json skipped a UTF-8 byte order mark at the start.
size_t ByteOrderMarkSize(std::string_view body) { return body.starts_with("\xEF\xBB\xBF") ? 3 : 0; }

// nlohmann_json read a NUL byte as the end of the input: what follows one
// outside a string was ignored ("[]\0anything" was accepted), and one inside
// a string made the text invalid, as the cut-off text is.
size_t LengthBeforeNul(std::string_view text) {
  const void* nul = std::memchr(text.data(), '\0', text.size());
  return nul == nullptr ? text.size()
                        : static_cast<size_t>(static_cast<const char*>(nul) - text.data());
}

}  // namespace

void EventJsonBatch::Clear() {
  events_.clear();
  rejections_.clear();
  wire_size_ = 0;
  if (wire_.size() > kKeptBufferBytes) std::string().swap(wire_);
}

struct EventJsonParser::Impl {
  explicit Impl(std::shared_ptr<const WireSchema> schema_in)
      : schema(std::move(schema_in)), transcoder(*schema) {}

  // Parses `input` (a padded view of the text) into `out`, after what it
  // holds. `one_index`: the text is "[" + one value + "]" (ParseOne) and its
  // element gets this index.
  absl::Status Parse(simdjson::padded_string_view input, EventJsonBatch& out,
                     std::optional<size_t> one_index) {
    const size_t events_before = out.events_.size();
    const size_t rejections_before = out.rejections_.size();
    const size_t wire_before = out.wire_size_;
    WireBuffer wire(out.wire_, out.wire_size_);
    const absl::Status status = Transcode(input, wire, out, one_index);
    if (!status.ok()) {
      out.events_.resize(events_before);
      out.rejections_.resize(rejections_before);
      out.wire_size_ = wire_before;
    } else {
      out.wire_size_ = wire.size();
    }
    if (parser.capacity() > kKeptBufferBytes) ResetParser();
    return status;
  }

  absl::Status Transcode(simdjson::padded_string_view input, WireBuffer& wire, EventJsonBatch& out,
                         std::optional<size_t> one_index) {
    const absl::Status invalid =
        absl::InvalidArgumentError(one_index ? "not valid JSON" : "body is not valid JSON");
    od::document document;
    od::array array;
    simdjson::error_code error = parser.iterate(input).get(document);
    if (!error) error = document.get_array().get(array);
    if (error) return Refusal(error, invalid);
    transcoder.Bind(wire, std::string_view(input.data(), input.size()));
    size_t index = 0;
    for (auto item : array) {
      od::value element;
      if ((error = std::move(item).get(element))) break;
      EventJsonBatch::Event event;
      EventJsonBatch::Rejection rejection;
      const Step step = transcoder.Element(element, one_index.value_or(index), event, rejection);
      if (step == Step::kTooDeep) return TooDeep(input, invalid);
      if (step == Step::kInvalid) return invalid;
      if (step == Step::kOk) {
        out.events_.push_back(event);
      } else {
        out.rejections_.push_back(std::move(rejection));
      }
      ++index;
    }
    if (error) return Refusal(error, invalid);
    // Nothing may follow the array.
    if (document.current_location().error() != simdjson::OUT_OF_BOUNDS) return invalid;
    if (one_index && index != 1) return invalid;
    return absl::OkStatus();
  }

  static absl::Status Refusal(simdjson::error_code error, const absl::Status& invalid) {
    if (error == simdjson::DEPTH_ERROR) return TooDeep(std::string_view(), invalid);
    return invalid;
  }

  // Nesting beyond kMaxJsonDepth stops the transcoder's recursion. Whether
  // the text is valid JSON at all is then told by nlohmann_json's
  // non-recursive checker, so that invalid text keeps the answer it always
  // had; only valid text that deep gets the depth error.
  static absl::Status TooDeep(std::string_view text, const absl::Status& invalid) {
    if (!text.empty() && !nlohmann::json::accept(text.begin(), text.end())) return invalid;
    return absl::InvalidArgumentError("JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                                      " levels");
  }

  void ResetParser() {
    parser = od::parser();
    // simdjson counts the document itself as a level and the transcoder
    // stops only past kMaxJsonDepth: headroom so that simdjson's own depth
    // (checked by its development assertions) is never exceeded first.
    if (parser.allocate(64 * 1024, kMaxJsonDepth + 2) != simdjson::SUCCESS) {
      throw std::bad_alloc();
    }
  }

  std::shared_ptr<const WireSchema> schema;
  EventTranscoder transcoder;
  od::parser parser;
  std::string padded;  // copies of texts given as views
};

EventJsonParser::EventJsonParser() : EventJsonParser(RayEventSchema()) {}

EventJsonParser::EventJsonParser(std::shared_ptr<const WireSchema> schema)
    : impl_(std::make_unique<Impl>(std::move(schema))) {
  impl_->ResetParser();
}

EventJsonParser::~EventJsonParser() = default;

std::shared_ptr<const WireSchema> EventJsonParser::RayEventSchema() {
  return std::make_shared<const WireSchema>(*ray::rpc::events::RayEvent::descriptor());
}

absl::Status EventJsonParser::ParseArray(std::string_view body, EventJsonBatch& out) {
  out.Clear();
  body.remove_prefix(ByteOrderMarkSize(body));
  body = body.substr(0, LengthBeforeNul(body));
  switch (ShapeOf(body)) {
    case Shape::kNotArray:
      return absl::InvalidArgumentError("body is not a JSON array of events");
    case Shape::kInvalid:
      return absl::InvalidArgumentError("body is not valid JSON");
    case Shape::kArray:
      break;
  }
  std::string& padded = impl_->padded;
  padded.reserve(body.size() + kJsonSpareBytes);
  padded.assign(body);
  const absl::Status status =
      impl_->Parse(simdjson::padded_string_view(padded.data(), padded.size(), padded.capacity()),
                   out, std::nullopt);
  if (padded.capacity() > kKeptBufferBytes) std::string().swap(padded);
  return status;
}

absl::Status EventJsonParser::ParseArray(std::string& body, EventJsonBatch& out) {
  out.Clear();
  const size_t skip = ByteOrderMarkSize(body);
  std::string_view text = std::string_view(body).substr(skip);
  text = text.substr(0, LengthBeforeNul(text));
  switch (ShapeOf(text)) {
    case Shape::kNotArray:
      return absl::InvalidArgumentError("body is not a JSON array of events");
    case Shape::kInvalid:
      return absl::InvalidArgumentError("body is not valid JSON");
    case Shape::kArray:
      break;
  }
  if (body.capacity() - body.size() < kJsonSpareBytes) {
    body.reserve(body.size() + kJsonSpareBytes);
  }
  return impl_->Parse(
      simdjson::padded_string_view(body.data() + skip, text.size(), body.capacity() - skip), out,
      std::nullopt);
}

absl::Status EventJsonParser::ParseOne(std::string_view json, size_t index, EventJsonBatch& out) {
  json.remove_prefix(ByteOrderMarkSize(json));
  json = json.substr(0, LengthBeforeNul(json));
  std::string& padded = impl_->padded;
  padded.reserve(json.size() + 2 + kJsonSpareBytes);
  padded.assign("[");
  padded.append(json);
  padded.append("]");
  return impl_->Parse(simdjson::padded_string_view(padded.data(), padded.size(), padded.capacity()),
                      out, index);
}

}  // namespace rayagg
