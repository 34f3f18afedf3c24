// Issue 26 part 7: a load is planned before it is read. Inputs that are not regular files are
// refused, a line longer than 16 MiB is refused naming it, and the memory a load needs (the
// file, its records, the matrix) is checked against the budget (JUDGESTAT_MEMORY_LIMIT here, so
// that the tests need no large file) before each step allocates it. Also: texts with NUL
// characters stay distinct and are shown escaped in messages.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "judgestat/records.hpp"
#include "records/input.hpp"
#include "records/memory.hpp"
#include "records/numbering.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::thrown_message;

using testing_support::contains;
using testing_support::temp_path;
std::string write_text(const std::string& name, const std::string& text) {
  return testing_support::write_temp(name, text);
}

/// Sets JUDGESTAT_MEMORY_LIMIT for the scope of a test.
class MemoryLimit {
 public:
  explicit MemoryLimit(const std::string& value) { ::setenv("JUDGESTAT_MEMORY_LIMIT", value.c_str(), 1); }
  ~MemoryLimit() { ::unsetenv("JUDGESTAT_MEMORY_LIMIT"); }
};

/// `n` records of judge j on items 0..n-1 with probabilities, 1 order: one cell per record.
std::string records_text(int n) {
  std::string text = "judge,item,gold,verdict,p.A,p.B\n";
  for (int k = 0; k < n; ++k) text += "j,i" + std::to_string(k) + (k % 2 ? ",A,A,0.75,0.25\n" : ",B,B,0.25,0.75\n");
  return text;
}

TEST(LoadPlanning, CharacterDeviceIsRefusedBeforeReading) {
  // /dev/zero would be read for ever (4.2 GB before failing in the review); named like records
  // through a symlink, it is refused by what it is.
  const std::string zero = temp_path("zero.csv");
  std::remove(zero.c_str());
  ASSERT_EQ(::symlink("/dev/zero", zero.c_str()), 0);
  const std::string message = thrown_message<InputError>([&] { load_item_matrix(zero); });
  std::remove(zero.c_str());
  EXPECT_EQ(message.rfind(zero + ": is a character device, not a regular file", 0), 0u) << message;
}

TEST(LoadPlanning, SymlinkToARegularFileIsRead) {
  const std::string target = write_text("target.csv", records_text(3));
  const std::string link = temp_path("link.csv");
  std::remove(link.c_str());
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  EXPECT_EQ(load_item_matrix(link).records, 3);
  std::remove(link.c_str());
}

TEST(LoadPlanning, OverLongLineNamesFileLineAndColumn) {
  std::string line(loading::kMaxLineBytes, 'x');  // exactly the limit: accepted by the length check
  EXPECT_NO_THROW(loading::check_line_lengths("judge\n" + line + "\n", "f.csv"));
  line.push_back('x');
  const std::string text = "judge,item,gold,verdict\nj,a,A,A\n" + line + "\nj,b,A,A\n";
  EXPECT_EQ(thrown_message<InputError>([&] { loading::check_line_lengths(text, "f.csv"); }),
            "f.csv:3: column 16777217: the line is longer than 16 MiB, the most a line of records may hold; this "
            "is no records file, or a field holds a whole document (leave it out of the records)");
  // A file is checked before it is parsed (the CSV reader would call the line a field count error).
  const std::string path = write_text("long.csv", text);
  const std::string message = thrown_message<InputError>([&] { load_item_matrix(path); });
  std::remove(path.c_str());
  EXPECT_EQ(message.rfind(path + ":3: column 16777217: the line is longer than 16 MiB", 0), 0u) << message;
}

TEST(LoadPlanning, MemoryLimitParsesSuffixesAndRefusesNonsense) {
  {
    MemoryLimit limit("1.5K");
    const loading::MemoryBudget budget = loading::memory_budget();
    EXPECT_EQ(budget.bytes, 1536.0);
    EXPECT_EQ(budget.source, "JUDGESTAT_MEMORY_LIMIT");
  }
  {
    MemoryLimit limit("2GB");
    EXPECT_EQ(loading::memory_budget().bytes, 2.0 * 1024 * 1024 * 1024);
  }
  MemoryLimit limit("lots");
  const std::string message = thrown_message<UsageError>([] { loading::memory_budget(); });
  EXPECT_TRUE(contains(message, "JUDGESTAT_MEMORY_LIMIT: expected a number of bytes")) << message;
  EXPECT_TRUE(contains(message, "got 'lots'")) << message;
}

TEST(LoadPlanning, FileLargerThanTheBudgetIsRefusedBeforeReading) {
  const std::string path = write_text("r.csv", records_text(100));
  MemoryLimit limit("1000");  // the file is 2,9xx bytes
  const std::string message = thrown_message<InputError>([&] { load_item_matrix(path); });
  EXPECT_EQ(message.rfind(path + ": loading needs about ", 0), 0u) << message;
  EXPECT_TRUE(contains(message, "(the file alone, before parsing) but 1e-06 GB is available (JUDGESTAT_MEMORY_LIMIT)"))
      << message;
}

TEST(LoadPlanning, RecordsAndCellsBeyondTheBudgetAreRefusedBeforeParsing) {
  // 2000 records (+ the header line): the text, 2001 numbered records of 40 + 2 × 8 bytes and at
  // least one cell each of 2 (verdict) + 8 (line) + 3 × 8 (fee, latency, rationale_ok) + 2 × 8
  // (probabilities) = 50 bytes, computed here independently of the loader.
  const std::string text = records_text(2000);
  const std::string path = write_text("r.csv", text);
  const double lines = 2001;
  const double needed = static_cast<double>(text.size()) + lines * (40 + 16) + lines * 50;
  EXPECT_EQ(sizeof(loading::NumberedRecord), 40u);  // the figure the estimate and this test use
  {
    MemoryLimit limit(std::to_string(static_cast<long long>(needed) - 1));
    const std::string message = thrown_message<InputError>([&] { load_item_matrix(path); });
    EXPECT_EQ(message.rfind(path + ": loading needs about " + loading::gigabytes(needed) + " (the file's text ", 0), 0u)
        << message;
    EXPECT_TRUE(contains(message, ", 2001 lines of records ")) << message;
  }
  MemoryLimit limit(std::to_string(static_cast<long long>(needed) * 4));
  const ItemMatrix m = load_item_matrix(path);
  EXPECT_EQ(m.records, 2000);
  EXPECT_EQ(m.verdict.size(), 2000u);
}

TEST(LoadPlanning, MatrixBeyondTheBudgetIsRefusedWithItsShape) {
  // Two judges on disjoint items: 4000 records ask for 2 × 4000 cells. The check before parsing
  // counts one cell per record and passes; the matrix with the records held does not fit.
  std::string text = "judge,item,gold,verdict,p.A,p.B\n";
  for (int k = 0; k < 4000; ++k) text += (k < 2000 ? "j1,i" : "j2,i") + std::to_string(k) + ",A,A,0.75,0.25\n";
  const std::string path = write_text("disjoint.csv", text);
  const double lines = 4001;
  const double before_parsing = static_cast<double>(text.size()) + lines * (40 + 16) + lines * 50;
  MemoryLimit limit(std::to_string(static_cast<long long>(before_parsing) + 1));
  const std::string message = thrown_message<InputError>([&] { load_item_matrix(path); });
  EXPECT_EQ(message.rfind(path + ": 2 judges x 4000 items x 1 orders x 1 variants = 8000 cells", 0), 0u) << message;
  EXPECT_TRUE(contains(message, "is available (JUDGESTAT_MEMORY_LIMIT)")) << message;
}

TEST(LoadPlanning, LoadUnderTheBudgetEqualsTheUnlimitedLoad) {
  const std::string path =
      write_text("r.jsonl",
                 "{\"judge\":\"j\",\"item\":\"a\",\"gold\":\"A\",\"verdict\":\"A\",\"fee_usd\":0.5}\n"
                 "{\"judge\":\"j\",\"item\":\"b\",\"gold\":\"B\",\"verdict\":\"A\",\"flag\":1}\n");
  const ItemMatrix unlimited = load_item_matrix(path);
  MemoryLimit limit("1M");
  const ItemMatrix limited = load_item_matrix(path);
  EXPECT_EQ(limited.items, unlimited.items);
  EXPECT_EQ(limited.verdict, unlimited.verdict);
  EXPECT_EQ(limited.fee[0], 0.5);
  EXPECT_TRUE(std::isnan(limited.fee[1]));
  EXPECT_EQ(limited.item_flag, (std::vector<uint8_t>{0, 1}));
}

TEST(LoadPlanning, ItemMismatchIsReportedAfterLaterFieldErrors) {
  // Item-level columns are compared as records are numbered, but a disagreement is reported
  // where a pass over the records meets it: after every row's own field errors.
  const std::string both =
      write_text("r.csv", "judge,item,gold,verdict,fee_usd\nj1,i1,A,A,\nj2,i1,B,A,\nj3,i2,A,A,cheap\n");
  EXPECT_TRUE(contains(thrown_message<InputError>([&] { load_item_matrix(both); }), both + ":4: column 'fee_usd'"));
  const std::string mismatch =
      write_text("m.csv", "judge,item,gold,cluster,verdict\nj1,i1,A,c1,A\nj2,i1,A,c2,A\nj3,i1,B,c1,A\n");
  EXPECT_EQ(thrown_message<InputError>([&] { load_item_matrix(mismatch); }),
            mismatch +
                ":3: column 'cluster': item \"i1\" has cluster \"c2\" here but \"c1\" on line 2; every "
                "record of an item must carry the same cluster, so correct one of the two lines");
}

TEST(LoadPlanning, NulCharactersKeepIdsDistinctAndAreShownEscaped) {
  using namespace std::string_literals;  // "…"s keeps the NULs
  const std::string path =
      write_text("nul.csv", "judge,item,gold,verdict\nj,a\0x,A,A\nj,a\0y,B,A\nj,a,A,B\nj,a\0x,B,B\n"s);
  const std::string message = thrown_message<InputError>([&] { load_item_matrix(path); });
  // The fourth record repeats item a\0x with another gold: the three items stayed apart.
  EXPECT_EQ(message, path +
                         ":5: column 'gold': item \"a\\x00x\" has gold \"B\" here but \"A\" on line 2; every "
                         "record of an item must carry the same gold, so correct one of the two lines");
  const std::string good = write_text("good.csv", "judge,item,gold,verdict\nj,a\0x,A,A\nj,a,A,B\n"s);
  EXPECT_EQ(load_item_matrix(good).items, (std::vector<std::string>{"a\0x"s, "a"}));
}

}  // namespace
}  // namespace judgestat
