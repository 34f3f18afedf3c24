// Names from the data may hold '|' or a newline (issue 19, part 7): md and text tables escape them
// so each row stays one line and each md cell one cell; CSV quotes them as RFC 4180 says.
#include <gtest/gtest.h>

#include <string>

#include "report/report.hpp"

namespace judgestat {
namespace {

Table awkward_table() {
  Table table;
  table.header = {"judge", "estimate"};
  table.rows = {{"gpt|4", "0.5000"}, {"two\nlines", "0.2500"}};
  return table;
}

int lines_of(const std::string& text) {
  int lines = 0;
  for (char ch : text) lines += ch == '\n';
  return lines;
}

TEST(TableEscaping, MdKeepsOneCellPerColumnAndOneLinePerRow) {
  const std::string md = awkward_table().render("md");
  EXPECT_EQ(md, "| judge | estimate |\n|---|---|\n| gpt\\|4 | 0.5000 |\n| two\\nlines | 0.2500 |\n");
}

TEST(TableEscaping, TextKeepsOneLinePerRow) {
  const std::string text = awkward_table().render("text");
  EXPECT_EQ(lines_of(text), 4);  // header, rule, two rows
  EXPECT_NE(text.find("gpt|4"), std::string::npos);
  EXPECT_NE(text.find("two\\nlines"), std::string::npos);
}

TEST(TableEscaping, CsvQuotesInsteadOfEscaping) {
  EXPECT_EQ(awkward_table().render("csv"), "judge,estimate\ngpt|4,0.5000\n\"two\nlines\",0.2500\n");
}

}  // namespace
}  // namespace judgestat
