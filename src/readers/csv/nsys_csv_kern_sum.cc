#include "readers/csv/nsys_csv_kern_sum.h"

#include "readers/csv/csv_values.h"
#include "readers/csv/nsys_csv_table.h"
#include "readers/input_source.h"

namespace stepstat {

Result<std::vector<KernelSumRow>> ReadNsysGpuKernSum(ByteSource& source,
                                                     std::string_view display_name) {
  ASSIGN_OR_RETURN(auto table,
                   NsysCsvTable::Open(source, display_name, InputKind::kNsysGpuKernSumCsv));
  ASSIGN_OR_RETURN(const int name_col, table->Require({"Name"}));
  ASSIGN_OR_RETURN(const int instances_col, table->Require({"Instances"}));
  struct TimeColumn {
    int column;
    int exponent;
  };
  auto time_column = [&table](std::string_view name) -> Result<TimeColumn> {
    ASSIGN_OR_RETURN(int column, table->Require({name}));
    ASSIGN_OR_RETURN(int exponent, table->TimeExponent(column));
    return TimeColumn{column, exponent};
  };
  ASSIGN_OR_RETURN(const TimeColumn total, time_column("Total Time"));
  ASSIGN_OR_RETURN(const TimeColumn avg, time_column("Avg"));
  ASSIGN_OR_RETURN(const TimeColumn med, time_column("Med"));
  ASSIGN_OR_RETURN(const TimeColumn min, time_column("Min"));
  ASSIGN_OR_RETURN(const TimeColumn max, time_column("Max"));

  // Exact integer nanoseconds; averages and medians keep three decimals (exactly, then
  // as a double) since nsys prints them with a fraction.
  auto parse = [&table](int column, int exponent) -> Result<int64_t> {
    DecimalResult r = ParseScaled(table->fields()[static_cast<size_t>(column)], exponent);
    if (!r.ok()) return table->FieldError(column, DecimalErrorText(*r.error));
    return r.value;
  };
  std::vector<KernelSumRow> rows;
  for (;;) {
    ASSIGN_OR_RETURN(bool more, table->NextRow());
    if (!more) break;
    KernelSumRow row;
    row.name = std::string(table->fields()[static_cast<size_t>(name_col)]);
    ASSIGN_OR_RETURN(row.instances, parse(instances_col, 0));
    ASSIGN_OR_RETURN(row.total_ns, parse(total.column, total.exponent));
    ASSIGN_OR_RETURN(int64_t mean_milli, parse(avg.column, avg.exponent + 3));
    ASSIGN_OR_RETURN(int64_t median_milli, parse(med.column, med.exponent + 3));
    row.mean_ns = static_cast<double>(mean_milli) / 1000.0;
    row.median_ns = static_cast<double>(median_milli) / 1000.0;
    ASSIGN_OR_RETURN(row.min_ns, parse(min.column, min.exponent));
    ASSIGN_OR_RETURN(row.max_ns, parse(max.column, max.exponent));
    rows.push_back(std::move(row));
  }
  if (rows.empty()) {
    return ErrorAt(display_name, table->header_line(), "a cuda_gpu_kern_sum report with no rows");
  }
  return rows;
}

Result<std::vector<KernelSumRow>> ReadKernelSummary(const TraceInput& input) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenInputSource(input));
  return ReadNsysGpuKernSum(*source, input.display_name);
}

}  // namespace stepstat
