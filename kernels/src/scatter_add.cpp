#include <tensorjit/kernels/scatter_add.hpp>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tensorjit::kernels {
namespace {

// Counting sort by destination row while the buckets are at most this many per source row (plus
// a fixed allowance): a count array much larger than the rows costs more to clear and scan than a
// comparison sort of the rows would.
constexpr std::int64_t kBucketsPerRow = 8;
constexpr std::int64_t kBucketAllowance = std::int64_t{1} << 16;

// Each task adds at least this many elements: below it, waking workers costs more than the adds.
constexpr std::int64_t kMinElementsPerTask = std::int64_t{1} << 15;

template <typename Index>
std::int64_t index_at(const void* indices, std::int64_t offset) {
  return static_cast<const Index*>(indices)[offset];
}

// The rows in bucket order: grouped by destination, each group in increasing row.
struct Order {
  std::vector<std::int64_t> rows;         // row numbers, grouped
  std::vector<std::int64_t> group_start;  // first position in `rows` of each group, then rows.size()
};

Order group_by_destination(const std::vector<std::int64_t>& destination, std::int64_t row_length,
                           std::int64_t out_elements) {
  const auto n = static_cast<std::int64_t>(destination.size());
  Order order;
  order.rows.resize(destination.size());
  const std::int64_t buckets = (out_elements + row_length - 1) / row_length;
  if (buckets <= n * kBucketsPerRow + kBucketAllowance) {
    // Stable counting sort over destination rows.
    std::vector<std::int64_t> count(static_cast<std::size_t>(buckets) + 1, 0);
    for (std::int64_t d : destination) ++count[static_cast<std::size_t>(d / row_length) + 1];
    std::partial_sum(count.begin(), count.end(), count.begin());
    for (std::int64_t b = 0; b < buckets; ++b)
      if (count[b + 1] > count[b]) order.group_start.push_back(count[b]);
    std::vector<std::int64_t> next(count.begin(), count.end() - 1);
    for (std::int64_t r = 0; r < n; ++r)
      order.rows[static_cast<std::size_t>(next[static_cast<std::size_t>(destination[r] / row_length)]++)] = r;
  } else {
    std::iota(order.rows.begin(), order.rows.end(), 0);
    std::stable_sort(order.rows.begin(), order.rows.end(),
                     [&](std::int64_t a, std::int64_t b) { return destination[a] < destination[b]; });
    for (std::int64_t p = 0; p < n; ++p)
      if (p == 0 || destination[order.rows[p]] != destination[order.rows[p - 1]]) order.group_start.push_back(p);
  }
  order.group_start.push_back(n);
  return order;
}

// Integers wrap, as the IR's add does (computed unsigned: signed overflow is undefined in C++).
template <typename T> T add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <typename T>
void add_groups(const ScatterAddArgs& args, const Order& order, const std::vector<std::int64_t>& destination,
                std::int64_t first_group, std::int64_t last_group) {
  T* out = static_cast<T*>(args.out);
  const T* values = static_cast<const T*>(args.values);
  const std::int64_t length = args.row_length, stride = args.value_stride;
  for (std::int64_t g = first_group; g < last_group; ++g) {
    for (std::int64_t p = order.group_start[g]; p < order.group_start[g + 1]; ++p) {
      const std::int64_t r = order.rows[p];
      T* to = out + destination[r];
      const T* from = values + args.value_offsets[r];
      // Elementwise adds: the vector width the compiler picks does not change a bit.
      if (stride == 1) {
        for (std::int64_t j = 0; j < length; ++j) to[j] = add(to[j], from[j]);
      } else {
        for (std::int64_t j = 0; j < length; ++j) to[j] = add(to[j], from[j * stride]);
      }
    }
  }
}

struct Tasks {
  const ScatterAddArgs* args;
  const Order* order;
  const std::vector<std::int64_t>* destination;
  std::vector<std::int64_t> cut;  // group ranges, one per task
};

template <typename T>
void run_task(void* context, std::int64_t t) {
  const auto& tasks = *static_cast<const Tasks*>(context);
  add_groups<T>(*tasks.args, *tasks.order, *tasks.destination, tasks.cut[t], tasks.cut[t + 1]);
}

template <typename T>
void add_rows(const ScatterAddArgs& args, const Order& order, const std::vector<std::int64_t>& destination) {
  const auto groups = static_cast<std::int64_t>(order.group_start.size()) - 1;
  const std::int64_t work = args.rows * args.row_length;
  const std::int64_t threads = args.parallel_for.run ? args.parallel_for.threads : 1;
  const std::int64_t n_tasks = std::min<std::int64_t>({threads, groups, work / kMinElementsPerTask});
  if (n_tasks <= 1) {
    add_groups<T>(args, order, destination, 0, groups);
    return;
  }
  // Cut the groups where the rows are shared evenly; a group is never split, so each destination
  // gets its rows on one thread, in order.
  Tasks tasks{&args, &order, &destination, {0}};
  std::int64_t g = 0;
  for (std::int64_t t = 1; t < n_tasks; ++t) {
    const std::int64_t target = args.rows * t / n_tasks;
    while (g < groups && order.group_start[g] < target) ++g;
    tasks.cut.push_back(std::max(g, tasks.cut.back()));
  }
  tasks.cut.push_back(groups);
  args.parallel_for.run(args.parallel_for.context, n_tasks, run_task<T>, &tasks);
}

}  // namespace

ScatterFault scatter_add_rows(const ScatterAddArgs& args) {
  if (args.rows < 0 || args.row_length < 1 || args.extent < 0)
    throw std::invalid_argument("scatter_add_rows: negative rows or extent, or rows of fewer than one element");
  std::vector<std::int64_t> destination(static_cast<std::size_t>(args.rows));
  for (std::int64_t r = 0; r < args.rows; ++r) {
    const std::int64_t index = args.indices_are_i64 ? index_at<std::int64_t>(args.indices, args.index_offsets[r])
                                                    : index_at<std::int32_t>(args.indices, args.index_offsets[r]);
    const std::int64_t k = index < 0 ? index + args.extent : index;
    if (k < 0 || k >= args.extent) return ScatterFault{r, index};
    destination[r] = args.destination_offsets[r] + k * args.axis_stride;
    if (destination[r] < 0 || destination[r] + args.row_length > args.out_elements ||
        destination[r] % args.row_length != 0)
      throw std::invalid_argument("scatter_add_rows: row " + std::to_string(r) + " lands at element " +
                                  std::to_string(destination[r]) + ", outside the " +
                                  std::to_string(args.out_elements) + " elements of out or between its rows of " +
                                  std::to_string(args.row_length));
  }
  const Order order = group_by_destination(destination, args.row_length, args.out_elements);
  switch (args.element) {
    case ScatterElement::f32: add_rows<float>(args, order, destination); break;
    case ScatterElement::f64: add_rows<double>(args, order, destination); break;
    case ScatterElement::i32: add_rows<std::int32_t>(args, order, destination); break;
    case ScatterElement::i64: add_rows<std::int64_t>(args, order, destination); break;
  }
  return {};
}

}  // namespace tensorjit::kernels
