// The ticker behind the progress line.
//
// Threads, and what each owns:
//  - The command's thread starts the ticker (StartProgress), runs the engine and stops the
//    ticker (StopProgress) before it writes anything. It owns `the_line` and the ticker's
//    std::thread object; it writes `stop` under `mutex`.
//  - The engine's reader threads (one or two per call, a pool for ranks) write only the
//    meter: atomic adds (stepstat/progress.h), never a lock.
//  - The ticker thread owns stderr from its start to its end: it alone writes the line, and
//    the command's thread writes stderr only after the join in StopProgress. It reads the
//    meter (atomic loads) and `stop` under `mutex`.
// What can block: the ticker's timed wait on `wake` (up to one update interval, woken
// early by StopProgress) and its write to the terminal (a terminal that is not read, e.g.
// paused with ^S); the command's thread in StopProgress's join.
// Why no two waits wait for each other: the ticker waits only for the clock or `stop`,
// never for the command's thread or a reader; readers never wait on the ticker; the
// command's thread waits only for the ticker to end, which it does at its next wake-up
// because `stop` is set under the mutex before the notify (no lost wake-up).
#include "progress_on_stderr.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "stepstat/output.h"

namespace stepstat::cli {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds kUpdateEvery{250};  // at most 4 redraws a second
constexpr std::chrono::milliseconds kShowAfter{1000};
constexpr std::chrono::milliseconds kLookAgain{20};

// For tests only (tests/progress_pty_test.py): the delay before the line first shows, so
// that a small input shows one. Documented in docs/progress.md.
std::chrono::milliseconds ShowAfter() {
  if (const char* value = std::getenv("STEPSTAT_PROGRESS_AFTER_MS"); value && *value) {
    char* end = nullptr;
    const long ms = std::strtol(value, &end, 10);
    if (*end == '\0' && ms >= 0) return std::chrono::milliseconds(ms);
  }
  return kShowAfter;
}

class Line {
 public:
  Line() : start_(Clock::now()), show_after_(ShowAfter()), thread_([this] { Tick(); }) {}
  ProgressMeter* meter() { return &meter_; }
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

 private:
  void Tick() {
    bool drawn = false;
    // The first draw once the delay has passed and something was counted, then one every
    // kUpdateEvery.
    Clock::time_point next = start_ + show_after_;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait_until(lock, next, [this] { return stop_; });
      if (stop_) break;
      const Clock::time_point now = Clock::now();
      if (now < next) continue;  // woken early
      lock.unlock();  // the terminal may block; StopProgress must still be able to set stop_
      const bool shown = Draw(std::chrono::duration<double>(now - start_).count());
      drawn = drawn || shown;
      lock.lock();
      // Nothing counted yet: look again soon, so the line appears as reading begins.
      next = now + (shown ? kUpdateEvery : kLookAgain);
    }
    if (drawn) {
      std::fputs("\r\x1b[K", stderr);
      std::fflush(stderr);
    }
  }

  // False when there was nothing to say: a command that reads no trace (synth, history)
  // never counts, and shows no line.
  bool Draw(double seconds) const {
    const ProgressSnapshot now = meter_.Snapshot();
    if (now.bytes_read == 0 && now.bytes_total == 0 && now.files_total == 0) return false;
    std::string text = "stepstat: " + ProgressLine(now, seconds);
    // A line longer than the terminal wraps, and "\r" then erases only its last row.
    const size_t columns = StderrColumns();
    if (columns > 1 && text.size() > columns - 1) text.resize(columns - 1);
    std::fputs(("\r" + text + "\x1b[K").c_str(), stderr);
    std::fflush(stderr);
    return true;
  }

  ProgressMeter meter_;
  const Clock::time_point start_;
  const std::chrono::milliseconds show_after_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;   // guarded by mutex_
  std::thread thread_;  // last: starts once every member above is ready
};

std::unique_ptr<Line> the_line;  // the command's thread alone

}  // namespace

void StartProgress(bool show) {
  if (show && the_line == nullptr) the_line = std::make_unique<Line>();
}

ProgressMeter* CommandProgress() { return the_line ? the_line->meter() : nullptr; }

void StopProgress() {
  if (the_line == nullptr) return;
  the_line->Stop();
  the_line.reset();
}

}  // namespace stepstat::cli
