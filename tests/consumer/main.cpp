// Uses only the installed public headers: loads a records file, bootstraps nothing, prints the
// item matrix's size and the backend an ExecTarget on the CPU gives.
#include <cstdio>

#include "judgestat/exec_target.hpp"
#include "judgestat/records.hpp"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const judgestat::ItemMatrix matrix = judgestat::load_item_matrix(argv[1], {});
  judgestat::ExecTarget target;
  target.kind = judgestat::ExecTarget::Kind::kCpu;
  target.threads = 1;
  const auto backend = judgestat::make_backend(target);
  std::printf("records %lld judges %zu backend %s\n", static_cast<long long>(matrix.records), matrix.judges.size(),
              backend->name().c_str());
  return 0;
}
