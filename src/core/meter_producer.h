// The write end of one side of a two-sided meter (OverlapMeter, StepOverlapMeter): the only
// way to feed that side. A meter hands out one producer per side, each to the one thread
// that feeds it, so "which thread writes which side" is in the types, not in prose:
//   - move-only, so a side cannot be fed through two copies;
//   - bound to the first thread that adds through it; another thread using it is a
//     programming error that stops the process at once (a meter whose side two threads
//     feed can take components out of order or wait for itself);
//   - an empty Add returns at once: it never takes the lock and never blocks;
//   - Close() is idempotent and the destructor closes, so a producer that returns early
//     (an error, a cancelled read) still releases the other side.
#pragma once

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <thread>
#include <utility>

namespace stepstat {

/// A two-sided meter's bookkeeping of who feeds it (the meter's lock guards it): each side is
/// handed out once, and no thread feeds both sides of a bounded meter (it could wait for
/// itself). A misuse is a programming error, never bad input: it stops the process.
class MeterSides {
 public:
  explicit MeterSides(const char* meter) : meter_(meter) {}
  void Take(int side) {
    if (taken_[side]) Misuse("a side was handed out twice");
    taken_[side] = true;
  }
  void Feeding(int side, bool bounded) {
    std::thread::id self = std::this_thread::get_id();
    if (feeder_[side] == std::thread::id()) feeder_[side] = self;
    if (bounded && feeder_[1 - side] == self) {
      Misuse("one thread feeds both sides of a bounded meter (it could wait for itself)");
    }
  }

 private:
  [[noreturn]] void Misuse(const char* what) const {
    std::fprintf(stderr, "stepstat: internal error: %s: %s\n", meter_, what);
    std::abort();
  }
  const char* meter_;
  bool taken_[2] = {false, false};
  std::thread::id feeder_[2];
};

/// Stops the process when an object meant for one thread is used from a second one.
class OneThreadCheck {
 public:
  OneThreadCheck() = default;
  OneThreadCheck(OneThreadCheck&& other) noexcept : owner_(other.owner_.load()) {}
  OneThreadCheck& operator=(OneThreadCheck&& other) noexcept {
    owner_ = other.owner_.load();
    return *this;
  }

  /// Binds to the calling thread on first use; aborts if called later from another thread.
  void Check(const char* what) {
    std::thread::id self = std::this_thread::get_id();
    std::thread::id expected{};
    if (owner_.compare_exchange_strong(expected, self) || expected == self) return;
    std::fprintf(stderr, "stepstat: internal error: %s used from two threads\n", what);
    std::abort();
  }

 private:
  std::atomic<std::thread::id> owner_{};
};

/// `Meter` provides `bool Add(Side, std::span<const Item>)` (false: out of order),
/// `void Close(Side)`, `bool aborted()` and a nested `Item` type.
template <typename Meter>
class MeterProducer {
 public:
  using Item = typename Meter::Item;
  using Side = typename Meter::Side;

  MeterProducer() = default;
  MeterProducer(Meter& meter, Side side) : meter_(&meter), side_(side) {}
  MeterProducer(MeterProducer&& other) noexcept
      : meter_(std::exchange(other.meter_, nullptr)),
        side_(other.side_),
        thread_(std::move(other.thread_)) {}
  MeterProducer& operator=(MeterProducer&& other) noexcept {
    if (this != &other) {
      Close();
      meter_ = std::exchange(other.meter_, nullptr);
      side_ = other.side_;
      thread_ = std::move(other.thread_);
    }
    return *this;
  }
  MeterProducer(const MeterProducer&) = delete;
  MeterProducer& operator=(const MeterProducer&) = delete;
  ~MeterProducer() { Close(); }

  /// Adds the next items of this side; false when one starts before an earlier one (the
  /// input is not sorted). May block while this side is too far ahead of the other.
  bool Add(std::span<const Item> items) {
    if (items.empty() || meter_ == nullptr) return true;
    thread_.Check("a meter producer");
    return meter_->Add(side_, items);
  }
  bool Add(const Item& item) { return Add(std::span(&item, 1)); }

  /// No more items on this side. Never blocks.
  void Close() {
    if (meter_ != nullptr) std::exchange(meter_, nullptr)->Close(side_);
  }

  bool open() const { return meter_ != nullptr; }
  /// The meter was aborted: the other side failed and this side's work is wasted.
  bool cancelled() const { return meter_ != nullptr && meter_->aborted(); }

 private:
  Meter* meter_ = nullptr;
  Side side_{};
  OneThreadCheck thread_;
};

}  // namespace stepstat
