#include "study/atomic_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "report/atomic_file.hpp"

namespace judgestat::study {

// The report room's AtomicFile (temporary file, fsync, rename; removed on failure or SIGINT),
// with the folder created first, as a study writes into folders of its own.
void write_file_atomic(const std::string& path, const std::string& text) {
  const std::filesystem::path target(path);
  std::error_code error;
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), error);
  if (error) throw std::runtime_error("cannot write '" + path + "': cannot create its folder: " + error.message());
  AtomicFile file(path);
  file.write(text);
  file.commit();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace judgestat::study
