// jft_fuzz: a deterministic mutation fuzzer for the entry points that read
// user bytes (see targets.h). No libFuzzer: mutant i of a run is drawn from
// (--seed, i) alone, so any finding is replayed with --only i.
//
//   jft_fuzz --target bytecode|compile_options|all --corpus DIR
//            [--regressions DIR] [--mutants N] [--seconds S] [--seed X]
//            [--input-ms MS] [--save DIR] [--only I] [--replay FILE]
//
// Replays DIR/<target>/* of --regressions first, then mutates the corpus
// (bytecode: every *.mlirbc under --corpus; compile_options: built-in seeds)
// until N mutants or S seconds. An input that breaks the contract, crashes
// (a signal or a sanitizer report) or runs past --input-ms is written to
// --save as <target>-<kind>-<seed>-<i><ext> and the run fails.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "mutator.h"
#include "targets.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

namespace jft::fuzz {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Settings {
  std::string target = "all";
  std::string corpus;
  std::string regressions;
  std::string save = ".";
  std::string replay;
  uint64_t mutants = 1000;
  double seconds = 0;  // 0: no time bound
  uint64_t seed = 1;
  int64_t only = -1;
  int input_ms = 2000;
};

// What a crash handler writes: prepared before each input, read in the handler.
char g_crash_path[4096];
const uint8_t* g_current = nullptr;
size_t g_current_size = 0;

void saveCurrentInput() {
  if (g_current == nullptr || g_crash_path[0] == '\0') return;
  int fd = ::open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  size_t done = 0;
  while (done < g_current_size) {
    ssize_t n = ::write(fd, g_current + done, g_current_size - done);
    if (n <= 0) break;
    done += size_t(n);
  }
  ::close(fd);
  const char note[] = "\njft_fuzz: the input that crashed was saved to ";
  (void)!::write(2, note, sizeof note - 1);
  (void)!::write(2, g_crash_path, std::strlen(g_crash_path));
  (void)!::write(2, "\n", 1);
}

void onFatalSignal(int signal_number) {
  saveCurrentInput();
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

void installCrashHandlers() {
  for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(s, onFatalSignal);
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_set_death_callback(saveCurrentInput);
#endif
}

// Fails the run when one input takes longer than the bound.
class Watchdog {
 public:
  explicit Watchdog(std::chrono::milliseconds limit)
      : limit_(limit), thread_([this] { loop(); }) {}
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void start() { started_ns_.store(Clock::now().time_since_epoch().count()); }
  void stop() { started_ns_.store(0); }

 private:
  void loop() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
      wake_.wait_for(lock, std::chrono::milliseconds(50));
      int64_t started = started_ns_.load();
      if (started == 0) continue;
      auto ran = Clock::now().time_since_epoch() - Clock::duration(started);
      if (ran > limit_) {
        std::string path = std::string(g_crash_path);
        size_t at = path.find("-crash-");
        if (at != std::string::npos) path.replace(at, 7, "-hang-");
        std::strncpy(g_crash_path, path.c_str(), sizeof g_crash_path - 1);
        std::fprintf(stderr, "jft_fuzz: one input ran longer than %lld ms\n",
                     static_cast<long long>(limit_.count()));
        saveCurrentInput();
        std::_Exit(3);
      }
    }
  }
  std::chrono::milliseconds limit_;
  std::atomic<int64_t> started_ns_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

Bytes readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeFile(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

std::vector<fs::path> filesUnder(const std::string& dir, const std::string& extension) {
  std::vector<fs::path> found;
  std::error_code error;
  if (dir.empty() || !fs::is_directory(dir, error)) return found;
  for (const auto& entry : fs::recursive_directory_iterator(dir, error)) {
    if (entry.is_regular_file() &&
        (extension.empty() || entry.path().extension() == extension))
      found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// Runs one input under the crash handler and the watchdog; false on a broken contract.
std::map<std::string, uint64_t> g_outcomes;

bool runOne(const Target& target, const Bytes& bytes, const std::string& label,
            const std::string& save_stem, Watchdog& watchdog) {
  std::snprintf(g_crash_path, sizeof g_crash_path, "%s",
                (save_stem + "-crash-" + label + target.extension).c_str());
  g_current = bytes.data();
  g_current_size = bytes.size();
  watchdog.start();
  std::string outcome;
  std::string broken = target.run(bytes, outcome);
  ++g_outcomes[outcome];
  watchdog.stop();
  g_current = nullptr;
  if (broken.empty()) return true;
  std::string path = save_stem + "-contract-" + label + target.extension;
  writeFile(path, bytes);
  std::cerr << "jft_fuzz: " << target.name << " " << label << ": " << broken
            << "\n  input saved to " << path << "\n";
  return false;
}

int fuzzTarget(const Target& target, const Settings& s, Watchdog& watchdog) {
  std::string save_stem = s.save + "/" + target.name;
  int failures = 0;
  size_t replayed = 0;
  if (!s.replay.empty()) {
    return runOne(target, readFile(s.replay), "replay", save_stem, watchdog) ? 0 : 1;
  }
  for (const fs::path& path :
       filesUnder(s.regressions.empty() ? "" : s.regressions + "/" + target.name, "")) {
    if (!runOne(target, readFile(path), "regression-" + path.stem().string(), save_stem,
                watchdog))
      ++failures;
    ++replayed;
  }
  std::vector<Bytes> corpus;
  if (target.seeds) {
    corpus = target.seeds(s.corpus);
  } else if (target.sectioned) {
    for (const fs::path& path : filesUnder(s.corpus, target.extension))
      corpus.push_back(readFile(path));
  } else {
    corpus = compileOptionsSeeds();
  }
  if (corpus.empty()) {
    std::cerr << "jft_fuzz: " << target.name << ": no corpus files under '" << s.corpus
              << "'\n";
    return 1;
  }
  for (const Bytes& seed : corpus)
    if (!runOne(target, seed, "seed", save_stem, watchdog)) ++failures;

  auto start = Clock::now();
  uint64_t ran = 0;
  g_outcomes.clear();
  for (uint64_t i = s.only >= 0 ? uint64_t(s.only) : 0; i < s.mutants; ++i) {
    if (s.seconds > 0 &&
        std::chrono::duration<double>(Clock::now() - start).count() > s.seconds)
      break;
    Random random(s.seed * 0x100000001b3ull ^ (i + 1) * 0x9e3779b97f4a7c15ull);
    const Bytes& base = corpus[random.below(corpus.size())];
    Mutant mutant = target.sectioned ? mutateBytecode(base, corpus, random)
                                     : mutatePlain(base, corpus, random);
    std::string label = std::to_string(s.seed) + "-" + std::to_string(i);
    if (!runOne(target, mutant.bytes, label, save_stem, watchdog)) {
      std::cerr << "  mutations:" << mutant.how << "\n";
      ++failures;
    }
    ++ran;
    if (s.only >= 0) break;
  }
  double took = std::chrono::duration<double>(Clock::now() - start).count();
  std::cout << "jft_fuzz " << target.name << ": " << replayed << " regressions, "
            << corpus.size() << " seeds, " << ran << " mutants in " << took << " s, "
            << failures << " failures; mutant outcomes:";
  for (const auto& [outcome, count] : g_outcomes)
    std::cout << " " << outcome << " " << count;
  std::cout << "\n";
  return failures == 0 ? 0 : 1;
}

bool parse(int argc, char** argv, Settings& s) {
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) return false;
    std::string value = argv[++i];
    if (flag == "--target")
      s.target = value;
    else if (flag == "--corpus")
      s.corpus = value;
    else if (flag == "--regressions")
      s.regressions = value;
    else if (flag == "--save")
      s.save = value;
    else if (flag == "--replay")
      s.replay = value;
    else if (flag == "--mutants")
      s.mutants = std::stoull(value);
    else if (flag == "--seconds")
      s.seconds = std::stod(value);
    else if (flag == "--seed")
      s.seed = std::stoull(value);
    else if (flag == "--only")
      s.only = std::stoll(value);
    else if (flag == "--input-ms")
      s.input_ms = std::stoi(value);
    else
      return false;
  }
  return true;
}

}  // namespace
}  // namespace jft::fuzz

int main(int argc, char** argv) {
  using namespace jft::fuzz;
  Settings settings;
  if (!parse(argc, argv, settings)) {
    std::cerr << "usage: jft_fuzz --target bytecode|compile_options|all --corpus DIR "
                 "[--regressions DIR] [--mutants N] [--seconds S] [--seed X] "
                 "[--input-ms MS] [--save DIR] [--only I] [--replay FILE]\n";
    return 2;
  }
  if (settings.seconds > 0 && settings.mutants == 1000) settings.mutants = UINT64_MAX;
  installCrashHandlers();
  Watchdog watchdog{std::chrono::milliseconds(settings.input_ms)};
  int status = 0;
  bool matched = false;
  for (const Target& target : targets()) {
    if (settings.target == "all" ? !target.in_all : settings.target != target.name)
      continue;
    matched = true;
    status |= fuzzTarget(target, settings, watchdog);
  }
  if (!matched) {
    std::cerr << "jft_fuzz: no target named '" << settings.target << "'\n";
    return 2;
  }
  return status;
}
