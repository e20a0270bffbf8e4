// Order statistics of the n_base·n_cand differences cand_j − base_i without listing them
// all: 10k steps against 10k would be 10⁸ doubles.
#pragma once

#include <cstdint>
#include <span>

namespace stepstat {

/// The k-th smallest (from 0) of every cand[j] − base[i]; both spans sorted ascending, non-
/// empty, k < size product. Randomized selection over the implicitly sorted rows (Monahan
/// 1984): O((m + n) log(mn)) expected time, O(m) memory. The value is one of the computed
/// differences, bit for bit.
double KthPairwiseDifference(std::span<const double> base, std::span<const double> cand,
                             uint64_t k);

}  // namespace stepstat
