// The quick reading of a JSONL row (docs/import.md §1.2; issue 29 item 5): plain JSON parsed into
// the previous row's document, reusing its keys, strings and arrays, so that a log whose lines share
// one shape is read without an allocation per key. Anything unusual (an escape, a byte outside
// ASCII, a fractional or large number, malformed text) is left to nlohmann's parser, which then
// gives the same document, or the same error, as it always did.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "records/json_depth.hpp"
#include "sources/import_map.hpp"

namespace judgestat::mapping {
namespace {

class RowScanner {
 public:
  explicit RowScanner(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  // The text as one JSON object into `row`; false when the quick path does not apply.
  bool object_row(Json& row) {
    skip_space();
    if (p_ == end_ || *p_ != '{' || !object(row)) return false;
    skip_space();
    return p_ == end_;
  }

 private:
  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }

  bool value(Json& slot) {
    if (p_ == end_) return false;
    switch (*p_) {
      case '{':
        return object(slot);
      case '[':
        return array(slot);
      case '"': {
        std::string_view text;
        if (!string(text)) return false;
        if (slot.is_string())
          slot.get_ref<std::string&>().assign(text);  // keeps the string's storage
        else
          slot = std::string(text);
        return true;
      }
      case 't':
        return literal("true", slot, Json(true));
      case 'f':
        return literal("false", slot, Json(false));
      case 'n':
        return literal("null", slot, Json(nullptr));
      default:
        return number(slot);
    }
  }

  bool literal(std::string_view word, Json& slot, Json value) {
    if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) return false;
    p_ += word.size();
    slot = std::move(value);
    return true;
  }

  // A string without escapes, control characters or bytes outside ASCII (those go to nlohmann,
  // which checks their UTF-8); p_ at its opening quote.
  bool string(std::string_view& text) {
    const char* start = ++p_;
    while (p_ != end_ && *p_ != '"') {
      const auto c = static_cast<unsigned char>(*p_);
      if (c < 0x20 || c >= 0x80 || c == '\\') return false;
      ++p_;
    }
    if (p_ == end_) return false;
    text = std::string_view(start, static_cast<size_t>(p_ - start));
    ++p_;
    return true;
  }

  bool number(Json& slot);
  bool object(Json& slot);
  bool array(Json& slot);

  const char* p_;
  const char* end_;
  int depth_ = 0;                     // arrays and objects open; above kMaxJsonDepth, nlohmann's turn
  std::string key_;                   // the current key, a buffer kept between keys
  std::vector<const Json*> present_;  // per open object (a stack): the values its keys gave
};

// An integer as nlohmann stores it: without '-' unsigned, with '-' signed; anything else (a
// fraction, an exponent, a leading zero, one that overflows) is left to nlohmann.
bool RowScanner::number(Json& slot) {
  const char* start = p_;
  if (p_ != end_ && *p_ == '-') ++p_;
  const char* digits = p_;
  while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
  const size_t count = static_cast<size_t>(p_ - digits);
  if (count == 0 || count > 18 || (count > 1 && *digits == '0')) return false;  // 18 digits fit int64
  if (p_ != end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) return false;
  char buffer[24];
  const size_t size = static_cast<size_t>(p_ - start);
  std::memcpy(buffer, start, size);
  buffer[size] = '\0';
  if (*start == '-')
    slot = static_cast<int64_t>(std::strtoll(buffer, nullptr, 10));
  else
    slot = static_cast<uint64_t>(std::strtoull(buffer, nullptr, 10));
  return true;
}

// p_ at '{'. Keys absent from this row but left from the previous one are erased at the end; a key
// given twice is left to nlohmann's reading, which refuses it naming the key (map_rows.cpp).
bool RowScanner::object(Json& slot) {
  if (++depth_ > kMaxJsonDepth) return false;  // check_json_depth then names the line
  if (!slot.is_object()) slot = Json::object();
  auto& members = slot.get_ref<Json::object_t&>();
  const size_t first = present_.size();
  ++p_;
  skip_space();
  bool more = p_ != end_ && *p_ != '}';
  while (more) {
    std::string_view key;
    if (p_ == end_ || *p_ != '"' || !string(key)) return false;
    skip_space();
    if (p_ == end_ || *p_ != ':') return false;
    ++p_;
    skip_space();
    key_.assign(key);
    auto member = members.find(key_);
    if (member == members.end()) member = members.emplace(key_, Json()).first;
    if (!value(member->second)) return false;
    present_.push_back(&member->second);
    skip_space();
    more = p_ != end_ && *p_ == ',';
    if (more) {
      ++p_;
      skip_space();
    }
  }
  if (p_ == end_ || *p_ != '}') return false;
  ++p_;
  const auto given = present_.begin() + static_cast<std::ptrdiff_t>(first);
  std::sort(given, present_.end(), std::less<const Json*>());
  if (std::adjacent_find(given, present_.end()) != present_.end()) return false;  // a key twice
  if (present_.size() - first != members.size())
    for (auto m = members.begin(); m != members.end();)
      m = std::binary_search(given, present_.end(), &m->second, std::less<const Json*>()) ? std::next(m)
                                                                                          : members.erase(m);
  present_.resize(first);
  --depth_;
  return true;
}

// p_ at '['. Elements past this row's are erased.
bool RowScanner::array(Json& slot) {
  if (++depth_ > kMaxJsonDepth) return false;
  if (!slot.is_array()) slot = Json::array();
  auto& elements = slot.get_ref<Json::array_t&>();
  size_t count = 0;
  ++p_;
  skip_space();
  bool more = p_ != end_ && *p_ != ']';
  while (more) {
    if (count == elements.size()) elements.emplace_back();
    if (!value(elements[count++])) return false;
    skip_space();
    more = p_ != end_ && *p_ == ',';
    if (more) {
      ++p_;
      skip_space();
    }
  }
  if (p_ == end_ || *p_ != ']') return false;
  ++p_;
  elements.resize(count);
  --depth_;
  return true;
}

}  // namespace

bool scan_plain_row(std::string_view text, Json& row) { return RowScanner(text).object_row(row); }

}  // namespace judgestat::mapping
