// CSV records: the header's columns and roles, then one RecordView per row.
#include "records/read_csv.hpp"

#include <algorithm>
#include <cstring>

namespace judgestat::loading {

CsvRecordReader::CsvRecordReader(std::string_view text, const std::string& file, const std::string& item_column)
    : reader_(text, file), file_(file) {
  int64_t line = 0;
  if (!reader_.next_row(fields_, line)) {
    fail(file, 1, "judge",
         "expected a header row (judge,item,gold,verdict,…) followed by one record per line, "
         "got an empty file; write the header and the records");
  }
  // Header: the role of every column; the p.<label> columns in header order.
  for (std::string_view raw_name : fields_) {
    std::string name(trim(raw_name));
    Field role = field_of(name);
    if (role != Field::kIgnored && std::find(names_.begin(), names_.end(), name) != names_.end()) {
      fail(file, line, name, "appears twice in the header; keep one of the two columns");
    }
    probability_slot_.push_back(-1);
    if (role == Field::kProbability) {
      if (name.size() == 2) fail(file, line, name, "expected a label after 'p.', as in 'p.A'");
      probability_slot_.back() = static_cast<int>(prob_labels_.size());
      prob_labels_.push_back(name.substr(2));
    } else if (role == Field::kCovariate) {
      if (name.size() == 2) fail(file, line, name, "expected a name after 'x.', as in 'x.length'");
      probability_slot_.back() = static_cast<int>(covariate_names_.size());
      covariate_names_.push_back(name.substr(2));
    }
    names_.push_back(std::move(name));
    roles_.push_back(role);
  }
  for (const char* required : kRequiredColumns) {
    if (std::find(names_.begin(), names_.end(), required) == names_.end()) {
      fail(file, line, required,
           "required column is missing (the header names " + join(names_, ",") + "); add a '" + required + "' column");
    }
  }
  if (!item_column.empty()) {
    const auto found = std::find(names_.begin(), names_.end(), item_column);
    if (found == names_.end()) {
      fail(file, line, item_column,
           "the item-level column asked for is missing (the header names " + join(names_, ",") +
               "); add the column or correct its name");
    }
    item_column_ = static_cast<int>(found - names_.begin());
  }
  reader_.set_column_names(names_);
  probs_.resize(prob_labels_.size());
  covariate_views_.resize(covariate_names_.size());
  last_line_ = line;
}

bool CsvRecordReader::next(RecordView& record) {
  int64_t line = 0;
  if (!reader_.next_row(fields_, line)) {
    if (!read_a_record_) {
      fail(file_, last_line_ + 1, "judge",
           "expected a record after the header, got the end of the file; add one record per "
           "line");
    }
    return false;
  }
  last_line_ = line;
  view_row(fields_, line, record);
  read_a_record_ = true;
  return true;
}

void CsvRecordReader::view_row(const std::vector<std::string_view>& fields, int64_t line, RecordView& record) {
  if (fields.size() != names_.size()) {
    const std::string counts =
        "expected " + std::to_string(names_.size()) + " fields as in the header, got " + std::to_string(fields.size());
    if (fields.size() < names_.size()) {
      fail(file_, line, names_[fields.size()],
           counts + " (the row ends before this column); fill in the missing fields");
    }
    throw InputError(file_ + ":" + std::to_string(line) + ": column " + std::to_string(names_.size() + 1) +
                     " (after the last column '" + names_.back() + "'): " + counts +
                     "; quote fields that contain commas or remove the extra fields");
  }
  record = RecordView{};
  record.line = line;
  std::fill(probs_.begin(), probs_.end(), kMissing);
  record.prob_labels = &prob_labels_;
  record.probs = probs_.data();
  record.covariate_names = &covariate_names_;
  record.covariate_views = covariate_views_.data();
  for (size_t k = 0; k < fields.size(); ++k) {
    if (roles_[k] == Field::kIgnored) continue;
    const FieldSource source{file_, line, names_[k]};
    if (roles_[k] == Field::kProbability) {
      probs_[probability_slot_[k]] = parse_probability(fields[k], source, record.nan_probability);
    } else if (roles_[k] == Field::kCovariate) {
      covariate_views_[probability_slot_[k]] = trim(fields[k]);
    } else {
      set_field(record, roles_[k], fields[k], source);
    }
  }
  if (item_column_ >= 0) record.item_column = fields[item_column_];
}

size_t count_lines(std::string_view text) {
  // memchr skips to each line break many bytes at a time.
  size_t lines = 0;
  const char* at = text.data();
  const char* const end = at + text.size();
  while ((at = static_cast<const char*>(std::memchr(at, '\n', static_cast<size_t>(end - at))))) {
    ++lines;
    ++at;
  }
  return lines;
}

std::vector<Record> read_csv(std::string_view text, const std::string& file, const std::string& item_column) {
  CsvRecordReader reader(text, file, item_column);
  std::vector<Record> records;
  records.reserve(count_lines(text));
  RecordView record;
  while (reader.next(record)) records.push_back(record_of(record));
  return records;
}

}  // namespace judgestat::loading
