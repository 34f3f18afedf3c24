// judgestat/record_fields.hpp: the loader's field parsers (records/fields.hpp) for records held
// in memory.
#include "judgestat/record_fields.hpp"

#include <iterator>
#include <utility>

#include "records/fields.hpp"

namespace judgestat {

const std::vector<std::string>& required_record_columns() {
  static const std::vector<std::string> columns(std::begin(loading::kRequiredColumns),
                                                std::end(loading::kRequiredColumns));
  return columns;
}

Record default_record(int64_t line) { return loading::empty_record(line); }

RecordColumn::RecordColumn(std::string name)
    : name_(std::move(name)), field_(static_cast<uint8_t>(loading::field_of(name_))) {}

bool RecordColumn::is_probability() const { return field_ == static_cast<uint8_t>(loading::Field::kProbability); }

bool RecordColumn::is_ignored() const { return field_ == static_cast<uint8_t>(loading::Field::kIgnored); }

std::string RecordColumn::probability_label() const { return is_probability() ? name_.substr(2) : std::string(); }

void RecordColumn::set(Record& record, std::string_view text, const std::string& source) const {
  if (is_probability() || is_ignored()) return;
  if (field_ == static_cast<uint8_t>(loading::Field::kCovariate)) {
    if (name_.size() == 2) loading::fail(source, record.line, name_, "expected a name after 'x.', as in 'x.length'");
    record.covariate_names.push_back(name_.substr(2));
    record.covariate_values.emplace_back(loading::trim(text));
    return;
  }
  loading::set_field(record, static_cast<loading::Field>(field_), text, {source, record.line, name_});
}

double RecordColumn::probability(std::string_view text, const std::string& source, Record& record) const {
  return loading::parse_probability(text, {source, record.line, name_}, record.nan_probability);
}

}  // namespace judgestat
