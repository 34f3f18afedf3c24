// `judgestat items` end to end: CSV and JSONL files read back and compared with the library's
// table, the summary line, an unwritable --out failing before anything is computed and leaving
// no file, and clear errors.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "judgestat/items.hpp"
#include "records/csv.hpp"
#include "test_support.hpp"

using namespace judgestat;

namespace {

using namespace judgestat::testing_support;

// Two judges, two orders, J1 with probabilities; they disagree in order 0 on i2 only.
const char* const kRecords =
    "judge,item,cluster,gold,order,verdict,p.A,p.B\n"
    "J1,i1,c1,A,0,A,0.9,0.1\n"
    "J1,i1,c1,A,1,A,0.6,0.4\n"
    "J1,\"i,2\",c1,B,0,A,0.7,0.3\n"
    "J1,\"i,2\",c1,B,1,B,0.2,0.8\n"
    "J1,i3,c2,A,0,B,0.4,0.6\n"
    "J2,i1,c1,A,0,A,,\n"
    "J2,i1,c1,A,1,A,,\n"
    "J2,\"i,2\",c1,B,0,B,,\n"
    "J2,\"i,2\",c1,B,1,B,,\n"
    "J2,i3,c2,A,0,B,,\n";

std::string read_text(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// A fresh, empty folder of this test's own.
std::string fresh_dir(const std::string& name) {
  const std::string dir = write_temp(name, "") + ".d";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

size_t entries(const std::string& dir) {
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(dir), {}));
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  CsvReader reader(text, "items.csv");
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string_view> fields;
  int64_t line = 0;
  while (reader.next_row(fields, line)) rows.emplace_back(fields.begin(), fields.end());
  return rows;
}

}  // namespace

TEST(ItemsCli, WritesCsvThatReadsBackAsTheTable) {
  const std::string records = write_temp("records.csv", kRecords);
  const ItemsReport expected = run_items(load_item_matrix(records), {});
  const std::string dir = fresh_dir("csv");
  const std::string out = dir + "/items.csv";
  const CliRun r = run_cli("items " + records + " --out " + out);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("items: 3 rows (1 items with disagreeing verdicts)"), std::string::npos) << r.out;
  const std::string text = read_text(out);
  EXPECT_EQ(text, items_csv(expected));
  EXPECT_EQ(entries(dir), 1u);  // no temporary file left beside it

  const auto rows = parse_csv(text);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], expected.columns);
  // i,2: J1 wrong then right (pa ½, q = max(0.45, 0.55)), J2 right in both; one judge wrong.
  EXPECT_EQ(rows[2], (std::vector<std::string>{"i,2", "c1", "default", "", "B", "A", "0", "B", "1", "0.5", "0.55", "0",
                                               "B", "1", "B", "1", "1", "1", "1"}));
  // i3 has no order-1 records: empty verdict, correctness and consistency.
  EXPECT_EQ(rows[3], (std::vector<std::string>{"i3", "c2", "default", "", "A", "B", "0", "", "", "0", "0.6", "", "B",
                                               "0", "", "", "0", "", "2"}));

  // Without --out: the same CSV on stdout.
  const CliRun plain = run_cli("items " + records + " --quiet");
  ASSERT_EQ(plain.status, 0) << plain.out;
  EXPECT_EQ(plain.out, text);
}

TEST(ItemsCli, WritesJsonlThatReadsBackAsTheTable) {
  const std::string records = write_temp("records.csv", kRecords);
  ItemsOptions options;
  options.disagree = true;
  const ItemsReport expected = run_items(load_item_matrix(records), options);
  ASSERT_EQ(expected.rows.size(), 1u);
  for (const std::string extension : {".jsonl", ".json"}) {
    const std::string out = fresh_dir("jsonl" + extension) + "/items" + extension;
    const CliRun r = run_cli("items " + records + " --disagree --quiet --out " + out);
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(r.out, "");  // --quiet: no summary
    const std::string text = read_text(out);
    EXPECT_EQ(text, items_jsonl(expected));
    std::istringstream lines(text);
    std::string line;
    size_t row = 0;
    while (std::getline(lines, line)) {
      ASSERT_LT(row, expected.rows.size());
      const auto object = nlohmann::ordered_json::parse(line);
      ASSERT_EQ(object.size(), expected.columns.size());
      size_t c = 0;
      for (auto it = object.begin(); it != object.end(); ++it, ++c) {
        EXPECT_EQ(it.key(), expected.columns[c]);
        const ItemsValue& value = expected.rows[row][c];
        if (const auto* s = std::get_if<std::string>(&value))
          EXPECT_EQ(it.value(), *s) << it.key();
        else if (const auto* d = std::get_if<double>(&value))
          EXPECT_EQ(it.value().get<double>(), *d) << it.key();
        else
          EXPECT_TRUE(it.value().is_null()) << it.key();
      }
      EXPECT_EQ(object["item"], "i,2");
      EXPECT_EQ(object["J1.q"].get<double>(), 0.55);
      EXPECT_TRUE(object["condition"].is_null());
      ++row;
    }
    EXPECT_EQ(row, 1u);
  }
}

TEST(ItemsCli, UnwritableOutFailsBeforeComputingAndLeavesNoFile) {
  const std::string records = write_temp("records.csv", kRecords);
  const std::string dir = fresh_dir("unwritable");
  const std::string missing = dir + "/no/such/folder/items.csv";
  // The input does not exist either: the output is checked first, so the error names --out.
  // An unwritable output is a usage error (exit 2), checked when the options are read (#19).
  CliRun r = run_cli("items " + dir + "/no_such_input.csv --out " + missing);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--out: cannot write '" + missing + "'"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("no_such_input"), std::string::npos) << r.out;
  // A folder is not a file.
  r = run_cli("items " + records + " --out " + dir);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("is a folder"), std::string::npos) << r.out;
  EXPECT_EQ(entries(dir), 0u);

  // A run that fails after the output was opened leaves neither the file nor a temporary one.
  r = run_cli("items " + records + " --judges nobody --out " + dir + "/items.csv");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("'nobody' does not occur"), std::string::npos) << r.out;
  EXPECT_EQ(entries(dir), 0u);
}

TEST(ItemsCli, ReplacesAnExistingFileWhole) {
  const std::string records = write_temp("records.csv", kRecords);
  const std::string out = fresh_dir("replace") + "/items.csv";
  std::ofstream(out) << std::string(10000, 'x');
  const CliRun r = run_cli("items " + records + " --quiet --out " + out);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(read_text(out), items_csv(run_items(load_item_matrix(records), {})));
}

TEST(ItemsCli, ClearErrors) {
  const std::string records = write_temp("records.csv", kRecords);
  CliRun r = run_cli("items " + records + " --judges J1 --disagree");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--disagree: needs at least two judges"), std::string::npos) << r.out;
  r = run_cli("items " + records + " --variant padded");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--variant: 'padded' does not occur"), std::string::npos) << r.out;
  r = run_cli("items");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("missing FILE"), std::string::npos) << r.out;
  r = run_cli("--help");
  EXPECT_NE(r.out.find("items"), std::string::npos) << r.out;
}
