// Numbering records: from CSV bytes through RecordViews, or from Records.
#include "records/numbering.hpp"

#include "records/read_csv.hpp"

namespace judgestat::loading {

NumberedRecords number_csv(std::string_view text, const std::string& file, const std::string& item_column) {
  CsvRecordReader reader(text, file, item_column);
  NumberedRecords numbered;
  numbered.records.reserve(count_lines(text));
  RecordView record;
  while (reader.next(record)) numbered.add(record);
  return numbered;
}

NumberedRecords number_records(const std::vector<Record>& records) {
  NumberedRecords numbered;
  numbered.records.reserve(records.size());
  for (const Record& record : records) numbered.add(view_of(record));
  return numbered;
}

}  // namespace judgestat::loading
