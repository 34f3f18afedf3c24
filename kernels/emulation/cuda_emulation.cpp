// The CPU runtime's scheduler (cuda_emulation.hpp): CUDA threads as ucontext fibers, a block at
// a time, warps run one at a time until each of their lanes waits at __syncthreads or has
// exited; warp operations are completed when every lane their mask names has reached them.
#include "cuda_emulation.hpp"

#include <sys/mman.h>
#include <ucontext.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "mma_reference.hpp"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define JS_EMULATION_TSAN 1
#endif
#if __has_feature(address_sanitizer)
#define JS_EMULATION_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define JS_EMULATION_TSAN 1
#endif
#if defined(__SANITIZE_ADDRESS__)
#define JS_EMULATION_ASAN 1
#endif

#if defined(JS_EMULATION_TSAN)
extern "C" {
void* __tsan_get_current_fiber(void);
void* __tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void* fiber);
void __tsan_switch_to_fiber(void* fiber, unsigned flags);
void __tsan_acquire(void* addr);
void __tsan_release(void* addr);
void AnnotateIgnoreReadsBegin(const char* file, int line);
void AnnotateIgnoreReadsEnd(const char* file, int line);
void AnnotateIgnoreWritesBegin(const char* file, int line);
void AnnotateIgnoreWritesEnd(const char* file, int line);
}
#endif
#if defined(JS_EMULATION_ASAN)
extern "C" {
void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, size_t size);
void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old, size_t* size_old);
}
#endif

namespace judgestat::emulation {
namespace {

// Happens-before edges for ThreadSanitizer (no-ops otherwise): fibers switch without
// synchronising, so only these order one CUDA thread's accesses before another's.
void hb_release(void* token) {
#if defined(JS_EMULATION_TSAN)
  __tsan_release(token);
#else
  (void)token;
#endif
}
// The scheduler's own accesses (the fibers' posted operands and results, states, the shared
// memory's fill) are not the kernels': TSan ignores them, so that the scheduler, which sees
// every CUDA thread, orders none of them after another.
void ignore_scheduler_accesses(bool ignore) {
#if defined(JS_EMULATION_TSAN)
  if (ignore) {
    AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
    AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  } else {
    AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
    AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
  }
#else
  (void)ignore;
#endif
}
void hb_acquire(void* token) {
#if defined(JS_EMULATION_TSAN)
  __tsan_acquire(token);
#else
  (void)token;
#endif
}

enum class State : int { kRunnable, kWarpOp, kBarrier, kExited };

constexpr size_t kStackBytes = size_t(256) << 10;  // sanitizers' frames are large
constexpr int kWarpSize = 32;

struct Fiber {
  ucontext_t context{};
  void* stack = nullptr;
  void* tsan_fiber = nullptr;
  void* asan_fake_stack = nullptr;
  ThreadPosition position{};
  State state = State::kRunnable;
  // The sync point the fiber waits at.
  WarpOpKind kind = WarpOpKind::kSyncWarp;
  unsigned mask = 0;
  int arg = 0, width = 32, line = 0;
  const char* file = "";
  uint32_t in[kMaxWarpOpWords] = {};
  uint32_t out[4] = {};
  int slot_token = 0;  // TSan: orders a stack's reuse by the next block's fiber
};

/// One block's happens-before tokens (distinct addresses per block, so blocks stay unordered).
struct BlockTokens {
  char start = 0, end = 0;
  char barrier[2] = {};
  char warp[kWarpSize][2] = {};
};

struct Runtime {
  std::vector<std::unique_ptr<Fiber>> fibers;  // reused across blocks (stacks are kept)
  ucontext_t scheduler{};
  void* scheduler_tsan = nullptr;
  const void* scheduler_stack_bottom = nullptr;
  size_t scheduler_stack_size = 0;
  Fiber* current = nullptr;
  unsigned char* shared = nullptr;
  BlockTokens* tokens = nullptr;
  unsigned barrier_generation = 0;
  unsigned warp_generation[1024 / kWarpSize] = {};
  const std::function<void()>* body = nullptr;
  bool running = false;
};

thread_local Runtime runtime;
bool g_planted_race = false;

[[noreturn]] void misuse_outside_kernel(const char* what) {
  std::fprintf(stderr, "CUDA emulation: %s called outside a kernel\n", what);
  std::abort();
}

// ---- Switching ---------------------------------------------------------------------------------

void switch_to_fiber(Fiber& fiber) {
  runtime.current = &fiber;
#if defined(JS_EMULATION_TSAN)
  __tsan_switch_to_fiber(fiber.tsan_fiber, 1 /* __tsan_switch_to_fiber_no_sync */);
#endif
#if defined(JS_EMULATION_ASAN)
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, fiber.stack, kStackBytes);
#endif
  swapcontext(&runtime.scheduler, &fiber.context);
#if defined(JS_EMULATION_ASAN)
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
  runtime.current = nullptr;
}

void switch_to_scheduler(Fiber& fiber, bool exiting) {
#if defined(JS_EMULATION_TSAN)
  __tsan_switch_to_fiber(runtime.scheduler_tsan, 1);
#endif
#if defined(JS_EMULATION_ASAN)
  __sanitizer_start_switch_fiber(exiting ? nullptr : &fiber.asan_fake_stack, runtime.scheduler_stack_bottom,
                                 runtime.scheduler_stack_size);
#else
  (void)exiting;
#endif
  swapcontext(&fiber.context, &runtime.scheduler);
#if defined(JS_EMULATION_ASAN)
  __sanitizer_finish_switch_fiber(fiber.asan_fake_stack, nullptr, nullptr);
#endif
}

void fiber_entry() {
  Fiber& fiber = *runtime.current;
#if defined(JS_EMULATION_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, &runtime.scheduler_stack_bottom, &runtime.scheduler_stack_size);
#endif
  hb_acquire(&fiber.slot_token);
  hb_acquire(&runtime.tokens->start);
  try {
    (*runtime.body)();
  } catch (...) {
    std::fprintf(stderr, "CUDA emulation: a kernel thread threw an exception\n");
    std::abort();  // nothing can unwind across the fiber's stack
  }
  fiber.state = State::kExited;
  hb_release(&runtime.tokens->end);
  hb_release(&fiber.slot_token);
  switch_to_scheduler(fiber, true);
  std::abort();  // an exited fiber is never resumed
}

Fiber& fiber_for_slot(size_t slot) {
  while (runtime.fibers.size() <= slot) {
    auto fiber = std::make_unique<Fiber>();
    fiber->stack =
        mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (fiber->stack == MAP_FAILED) throw std::runtime_error("CUDA emulation: cannot map a fiber stack");
#if defined(JS_EMULATION_TSAN)
    fiber->tsan_fiber = __tsan_create_fiber(0);
#endif
    runtime.fibers.push_back(std::move(fiber));
  }
  return *runtime.fibers[slot];
}

// ---- Warp operations ---------------------------------------------------------------------------

std::string site(const Fiber& f) { return std::string(f.file) + ":" + std::to_string(f.line); }

const char* kind_name(WarpOpKind kind) {
  static const char* names[] = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync",
                                "__any_sync",  "__all_sync",     "__syncwarp",       "mma.sync"};
  return names[static_cast<int>(kind)];
}

std::string where(const Fiber& f) {
  const ThreadPosition& p = f.position;
  return "block (" + std::to_string(p.block_idx.x) + "," + std::to_string(p.block_idx.y) + "," +
         std::to_string(p.block_idx.z) + ") thread " + std::to_string(p.thread_idx.x);
}

std::string state_text(const Fiber& f) {
  switch (f.state) {
    case State::kExited:
      return "has exited";
    case State::kBarrier:
      return "waits at __syncthreads at " + site(f);
    case State::kWarpOp:
      return "waits at " + std::string(kind_name(f.kind)) + " (mask 0x" +
             [&] {
               char hex[16];
               std::snprintf(hex, sizeof hex, "%08x", f.mask);
               return std::string(hex);
             }() +
             ") at " + site(f);
    default:
      return "is running";
  }
}

[[noreturn]] void divergence(const Fiber& waiting, const Fiber& other, const std::string& why) {
  throw std::runtime_error("CUDA emulation: warp divergence: " + where(waiting) + " " + state_text(waiting) +
                           ", but lane " + std::to_string(other.position.thread_idx.x % kWarpSize) + " (" +
                           where(other) + ") " + state_text(other) + (why.empty() ? "" : " (" + why + ")"));
}

/// Lane `lane`'s source for a shuffle, or -1 for "its own value" (CUDA's out-of-segment rule).
int shuffle_source(const Fiber& f, int lane) {
  const int width = f.width, segment = lane / width * width;
  switch (f.kind) {
    case WarpOpKind::kShfl:
      return segment + ((f.arg % width) + width) % width;
    case WarpOpKind::kShflUp:
      return lane - segment < f.arg ? -1 : lane - f.arg;
    case WarpOpKind::kShflDown:
      return lane - segment + f.arg >= width ? -1 : lane + f.arg;
    default: {  // xor
      const int source = lane ^ f.arg;
      return source >= segment + width ? -1 : source;
    }
  }
}

/// Completes the operation the lanes of `mask` wait at (all of them do); `lanes` is the warp.
void complete_warp_op(Fiber* const* lanes, unsigned mask) {
  const Fiber& first = *lanes[__builtin_ctz(mask)];
  const WarpOpKind kind = first.kind;
  if (kind == WarpOpKind::kMma) {
    int32_t d[32][4];
    uint32_t a[32][4], b[32][2];
    for (int l = 0; l < kWarpSize; ++l) {
      for (int i = 0; i < 4; ++i) a[l][i] = lanes[l]->in[i], d[l][i] = int32_t(lanes[l]->in[6 + i]);
      b[l][0] = lanes[l]->in[4];
      b[l][1] = lanes[l]->in[5];
    }
    mma_m16n8k32_u8_warp(d, a, b);
    for (int l = 0; l < kWarpSize; ++l)
      for (int i = 0; i < 4; ++i) lanes[l]->out[i] = uint32_t(d[l][i]);
    return;
  }
  uint32_t ballot = 0;
  for (int l = 0; l < kWarpSize; ++l)
    if (mask >> l & 1u && lanes[l]->in[0] != 0) ballot |= 1u << l;
  for (int l = 0; l < kWarpSize; ++l) {
    if (!(mask >> l & 1u)) continue;
    Fiber& f = *lanes[l];
    switch (kind) {
      case WarpOpKind::kBallot:
        f.out[0] = ballot;
        break;
      case WarpOpKind::kAny:
        f.out[0] = ballot != 0;
        break;
      case WarpOpKind::kAll:
        f.out[0] = ballot == mask;
        break;
      case WarpOpKind::kSyncWarp:
        break;
      default: {
        const int source = shuffle_source(f, l);
        if (source >= 0 && !(mask >> source & 1u))
          divergence(f, *lanes[source], "the shuffle reads a lane its mask does not name");
        const Fiber& from = source < 0 ? f : *lanes[source];
        f.out[0] = from.in[0];
        f.out[1] = from.in[1];
      }
    }
  }
}

/// Completes every warp operation of the warp whose lanes have all arrived; throws when a lane
/// waits at one that cannot complete. Returns whether any completed.
bool resolve_warp(Fiber* const* lanes, int n_lanes, int warp) {
  bool completed = false;
  unsigned done = 0;
  for (int l = 0; l < n_lanes; ++l) {
    Fiber& f = *lanes[l];
    if (f.state != State::kWarpOp || (done >> l & 1u)) continue;
    if (!(f.mask >> l & 1u)) divergence(f, f, "its mask does not name the lane itself");
    for (int j = 0; j < kWarpSize; ++j) {
      if (!(f.mask >> j & 1u)) continue;
      if (j >= n_lanes)
        throw std::runtime_error("CUDA emulation: " + where(f) + " names lane " + std::to_string(j) +
                                 ", which the block does not have, at " + site(f));
      const Fiber& g = *lanes[j];
      if (g.state != State::kWarpOp || g.kind != f.kind || g.mask != f.mask || g.width != f.width || g.line != f.line ||
          std::strcmp(g.file, f.file) != 0)
        divergence(f, g, "every lane a mask names must reach the same operation");
    }
    complete_warp_op(lanes, f.mask);
    for (int j = 0; j < kWarpSize; ++j)
      if (f.mask >> j & 1u) lanes[j]->state = State::kRunnable;
    done |= f.mask;
    completed = true;
  }
  // Every lane waiting now posted in the same generation (TSan token); the next operations post
  // in the other one, so a lane that resumes first cannot order itself before a later one.
  if (completed) ++runtime.warp_generation[warp];
  return completed;
}

/// Runs warp `warp`'s lanes until each waits at __syncthreads or has exited.
void run_warp(std::vector<Fiber*>& block, int warp, Schedule schedule) {
  const int first = warp * kWarpSize;
  const int n_lanes = std::min<int>(kWarpSize, int(block.size()) - first);
  Fiber* const* lanes = block.data() + first;
  for (;;) {
    for (int i = 0; i < n_lanes; ++i) {
      Fiber& f = *lanes[schedule == Schedule::kForward ? i : n_lanes - 1 - i];
      if (f.state == State::kRunnable) switch_to_fiber(f);
    }
    if (!resolve_warp(lanes, n_lanes, warp)) break;
  }
}

// Apart from run_grid: getcontext returns twice, which would make run_grid's locals suspect.
__attribute__((noinline)) void start_fiber(Fiber& f, const ThreadPosition& position) {
  f.position = position;
  f.state = State::kRunnable;
  getcontext(&f.context);
  f.context.uc_stack.ss_sp = f.stack;
  f.context.uc_stack.ss_size = kStackBytes;
  f.context.uc_link = nullptr;
  makecontext(&f.context, fiber_entry, 0);
}

void run_block(const LaunchConfig& config, std::vector<Fiber*>& block, BlockTokens& tokens, unsigned char* shared) {
  runtime.tokens = &tokens;
  runtime.shared = shared;
  runtime.barrier_generation = 0;
  const int n_warps = int((block.size() + kWarpSize - 1) / kWarpSize);
  for (int w = 0; w < n_warps; ++w) runtime.warp_generation[w] = 0;
  hb_release(&tokens.start);
  for (;;) {
    for (int i = 0; i < n_warps; ++i)
      run_warp(block, config.schedule == Schedule::kForward ? i : n_warps - 1 - i, config.schedule);
    const Fiber* at_barrier = nullptr;
    for (const Fiber* f : block) {
      if (f->state != State::kBarrier) continue;
      if (at_barrier && (f->line != at_barrier->line || std::strcmp(f->file, at_barrier->file) != 0))
        throw std::runtime_error(
            "CUDA emulation: threads of one block wait at different __syncthreads: " + where(*at_barrier) + " at " +
            site(*at_barrier) + ", " + where(*f) + " at " + site(*f));
      at_barrier = f;
    }
    if (!at_barrier) return;  // every thread has exited
    ++runtime.barrier_generation;
    for (Fiber* f : block)
      if (f->state == State::kBarrier) f->state = State::kRunnable;
  }
}

/// After a misuse: the block's fibers stay where they stopped (each at a sync point, whose token
/// it released) and are restarted by the next launch; the caller takes their writes as done.
void abandon_block(std::vector<Fiber*>& block, std::vector<BlockTokens>& tokens) {
  for (BlockTokens& t : tokens) {
    hb_acquire(&t.end);
    for (char& token : t.barrier) hb_acquire(&token);
    for (auto& warp : t.warp)
      for (char& token : warp) hb_acquire(&token);
  }
#if defined(JS_EMULATION_TSAN)
  for (Fiber* f : block)
    if (f->state != State::kExited) {  // its TSan fiber still holds the abandoned call stack
      __tsan_destroy_fiber(f->tsan_fiber);
      f->tsan_fiber = __tsan_create_fiber(0);
    }
#else
  (void)block;
#endif
  runtime.running = false;
  runtime.current = nullptr;
  ignore_scheduler_accesses(false);
}

}  // namespace

const ThreadPosition& current_position() {
  if (!runtime.current) misuse_outside_kernel("threadIdx/blockIdx/blockDim/gridDim");
  return runtime.current->position;
}

unsigned char* dynamic_shared_memory() {
  if (!runtime.current) misuse_outside_kernel("dynamic shared memory");
  return runtime.shared;
}

bool planted_race() { return g_planted_race; }
void set_planted_race(bool on) { g_planted_race = on; }

WarpOpResult warp_op(WarpOpKind kind, unsigned mask, const uint32_t* in, int n_in, int arg, int width, const char* file,
                     int line) {
  Fiber* f = runtime.current;
  if (!f) misuse_outside_kernel(kind_name(kind));
  if (width <= 0 || width > kWarpSize || (width & (width - 1)) != 0)
    throw std::runtime_error("CUDA emulation: width " + std::to_string(width) + " at " + file + ":" +
                             std::to_string(line) + " is not a power of two up to 32");
  f->kind = kind;
  f->mask = mask;
  f->arg = arg;
  f->width = width;
  f->file = file;
  f->line = line;
  for (int i = 0; i < n_in; ++i) f->in[i] = in[i];
  const int warp = int(f->position.thread_idx.x) / kWarpSize;
  const unsigned generation = runtime.warp_generation[warp];
  f->state = State::kWarpOp;  // every write before the release: the next user of f sees them
  hb_release(&runtime.tokens->warp[warp][generation % 2]);
  switch_to_scheduler(*f, false);
  hb_acquire(&runtime.tokens->warp[warp][generation % 2]);
  WarpOpResult result;
  for (int i = 0; i < 4; ++i) result.word[i] = f->out[i];
  return result;
}

void block_barrier(const char* file, int line) {
  Fiber* f = runtime.current;
  if (!f) misuse_outside_kernel("__syncthreads");
  f->file = file;
  f->line = line;
  const unsigned generation = runtime.barrier_generation;
  f->state = State::kBarrier;
  hb_release(&runtime.tokens->barrier[generation % 2]);
  switch_to_scheduler(*f, false);
  hb_acquire(&runtime.tokens->barrier[generation % 2]);
}

void run_grid(const LaunchConfig& config, const std::function<void()>& thread_body) {
  if (runtime.running) throw std::runtime_error("CUDA emulation: a kernel launched from inside a kernel");
  const dim3 grid = config.grid, block_dim = config.block;
  const size_t threads = size_t(block_dim.x) * block_dim.y * block_dim.z;
  if (threads == 0 || threads > 1024 || block_dim.y != 1 || block_dim.z != 1)
    throw std::runtime_error("CUDA emulation: blocks are 1 to 1024 threads along x");
  const size_t n_blocks = size_t(grid.x) * grid.y * grid.z;
  if (n_blocks == 0) throw std::runtime_error("CUDA emulation: an empty grid");
  // Per block: its shared memory and tokens live until the launch ends (a reused address would
  // order one block after another for TSan).
  std::vector<std::unique_ptr<unsigned char[]>> shared(n_blocks);
  std::vector<BlockTokens> tokens(n_blocks);
#if defined(JS_EMULATION_TSAN)
  if (!runtime.scheduler_tsan) runtime.scheduler_tsan = __tsan_get_current_fiber();
#endif
  runtime.running = true;
  runtime.body = &thread_body;
  ignore_scheduler_accesses(true);
  std::vector<Fiber*> block(threads);
  for (size_t i = 0; i < threads; ++i) block[i] = &fiber_for_slot(i);
  try {
    for (size_t n = 0; n < n_blocks; ++n) {
      const size_t b = config.schedule == Schedule::kForward ? n : n_blocks - 1 - n;
      shared[b].reset(new unsigned char[config.dynamic_shared_bytes + 16]);
      std::memset(shared[b].get(), 0xA5, config.dynamic_shared_bytes + 16);
      const uint3 block_idx{unsigned(b % grid.x), unsigned(b / grid.x % grid.y), unsigned(b / grid.x / grid.y)};
      for (size_t t = 0; t < threads; ++t)
        start_fiber(*block[t], ThreadPosition{uint3{unsigned(t), 0, 0}, block_idx, block_dim, grid});
      run_block(config, block, tokens[b], shared[b].get());
    }
  } catch (...) {
    abandon_block(block, tokens);
    throw;
  }
  runtime.running = false;
  ignore_scheduler_accesses(false);
  for (BlockTokens& t : tokens) hb_acquire(&t.end);
}

}  // namespace judgestat::emulation
