// A pool of threads over numbered tasks, for work that splits into independent pieces
// (one trace per rank).
//
// Concurrency contract. RunIndexed(count, threads, task) runs task(0) .. task(count - 1),
// each exactly once, on min(threads, count) threads: the caller's and the ones it starts.
// - Shared between the threads: one atomic counter, from which each thread claims its next
//   task number. Nothing else: task(i) owns slot i of whatever the caller set aside for the
//   results and must touch no other mutable state without its own lock.
// - The caller reads the slots after RunIndexed returns: it has joined every thread, and a
//   join orders everything that thread did before the read.
// - What can block: a task, inside its own work (reading files, the two reader threads of
//   one summary, which wait only for each other); and the caller, joining. No task waits for
//   another task or for the pool, and the joins wait only for threads that wait on nothing
//   of the pool, so no two waits can wait for each other.
// Tasks are claimed in number order: a caller that numbers the largest first keeps the
// threads busy to the end.
#pragma once

#include <cstddef>
#include <functional>

namespace stepstat {

void RunIndexed(size_t count, size_t threads, const std::function<void(size_t)>& task);

}  // namespace stepstat
