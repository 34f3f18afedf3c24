// Issue #19's loader defects, each reproduced: numbers past a double's range (docs/statistics.md
// §1: a number that parses but is infinite makes the record invalid), repeated JSONL keys, folders
// and FIFOs as input (read like stdin then; refused since issue 26), dense matrices far larger than the input, fees
// that sum past a double, JSON nested deeper than the bound.
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "judgestat/records.hpp"
#include "records/json_depth.hpp"
#include "test_support.hpp"

namespace judgestat {
namespace {

using testing_support::thrown_message;

using testing_support::contains;
using testing_support::temp_path;
std::string write_text(const std::string& name, const std::string& text) {
  return testing_support::write_temp(name, text);
}

TEST(LoadHardening, ProbabilityPastDoubleRangeIsInvalidNotBadInput) {
  // 1e400 reads as +inf: the record is invalid (counted); 1e-400 underflows to 0, so p = (1, 0)
  // sums to 1 and the record is valid.
  const ItemMatrix m = load_item_matrix(
      write_text("r.csv", "judge,item,gold,verdict,p.A,p.B\nj,overflow,A,A,1e400,0\nj,underflow,A,A,1,1e-400\n"));
  EXPECT_EQ(m.verdict[m.cell(0, 0, 0, 0)], kInvalid);
  EXPECT_EQ(m.verdict[m.cell(0, 1, 0, 0)], 0);  // label A
  EXPECT_EQ(m.invalid, 1);
  EXPECT_TRUE(std::isinf(m.prob[m.cell(0, 0, 0, 0) * 2 + 0]));
  EXPECT_EQ(m.prob[m.cell(0, 1, 0, 0) * 2 + 1], 0.0);
}

TEST(LoadHardening, JsonlProbabilityPastDoubleRangeIsInvalid) {
  const ItemMatrix m = load_item_matrix(write_text(
      "r.jsonl", "{\"judge\":\"j\",\"item\":\"i\",\"gold\":\"A\",\"verdict\":\"A\",\"p.A\":1e400,\"p.B\":0}\n"));
  EXPECT_EQ(m.verdict[m.cell(0, 0, 0, 0)], kInvalid);
  EXPECT_EQ(m.invalid, 1);
}

TEST(LoadHardening, RepeatedJsonlKeyIsBadInput) {
  const std::string path =
      write_text("r.jsonl", "{\"judge\":\"j\",\"item\":\"i\",\"gold\":\"A\",\"gold\":\"B\",\"verdict\":\"A\"}\n");
  const std::string message = thrown_message<InputError>([&] { load_item_matrix(path); });
  EXPECT_TRUE(contains(message, path + ":1: column 'gold': the key occurs twice")) << message;
}

TEST(LoadHardening, FolderAsInputIsNamed) {
  const std::string dir = temp_path("folder.csv");
  ::mkdir(dir.c_str(), 0755);
  const std::string message = thrown_message<InputError>([&] { load_item_matrix(dir); });
  EXPECT_EQ(message, dir + ": is a folder; give the path of a file in it");
}

TEST(LoadHardening, FifoIsRefusedBeforeReading) {
  // Issue 26: a FIFO has no size to plan a load from and may never end; it is refused without
  // being opened (no writer is needed for the test to end).
  const std::string fifo = temp_path("pipe.csv");
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string message = thrown_message<InputError>([&] { load_item_matrix(fifo); });
  std::remove(fifo.c_str());
  EXPECT_EQ(message.rfind(fifo + ": is a named pipe (FIFO) or pipe, not a regular file", 0), 0u) << message;
  EXPECT_TRUE(contains(message, "piped to - for stdin")) << message;
}

TEST(LoadHardening, MostlyEmptyDenseMatrixIsRefusedWithTheNumbers) {
  // 6000 items and one record of order 1023: 6000 × 1024 cells (2 labels: 50 bytes each, 307 MB)
  // for 6001 records, a thousand cells per record.
  std::string text = "judge,item,gold,verdict,order\n";
  for (int k = 0; k < 6000; ++k) text += "j,i" + std::to_string(k) + (k % 2 ? ",B" : ",A") + ",B,0\n";
  text += "j,i0,A,A,1023\n";
  const std::string path = write_text("sparse.csv", text);
  const std::string message = thrown_message<InputError>([&] { load_item_matrix(path); });
  EXPECT_TRUE(
      contains(message, "1 judges x 6000 items x 1024 orders x 1 variants = 6.144e+06 cells (0.3 GB with 2 labels)"))
      << message;
  EXPECT_TRUE(contains(message, "for 6001 records")) << message;
  EXPECT_TRUE(contains(message, "the largest, 1023, is on line 6002")) << message;
}

TEST(LoadHardening, FeesSummingPastADoubleAreBadInput) {
  const std::string path = write_text("fees.csv", "judge,item,gold,verdict,fee_usd\nj,a,A,A,1e308\nj,b,A,A,1e308\n");
  const std::string message = thrown_message<InputError>([&] { load_item_matrix(path); });
  EXPECT_TRUE(contains(message, path + ":3: column 'fee_usd': the fees of judge \"j\" sum past")) << message;
}

TEST(LoadHardening, JsonDepthBoundNamesLineColumnAndLimit) {
  EXPECT_NO_THROW(check_json_depth(std::string(256, '[') + std::string(256, ']'), "f.json"));
  // Brackets inside strings do not count, escaped quotes do not end them.
  EXPECT_NO_THROW(check_json_depth("[\"" + std::string(1000, '[') + "\\\"\"]", "f.json"));
  const std::string deep = "{\"a\":\n  " + std::string(300, '[');
  const std::string message = thrown_message<InputError>([&] { check_json_depth(deep, "f.json", 7); });
  // Level 257 is the 256th '[' on the second line (the object is level 1), column 3 + 255.
  EXPECT_EQ(message.rfind("f.json:8: column 258: JSON nested deeper than 256 levels", 0), 0u) << message;
}

}  // namespace
}  // namespace judgestat
