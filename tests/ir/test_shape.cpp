// tensorjit::Shape (tensorjit/shape.hpp): std::vector<std::int64_t>'s answers under random edits,
// in place up to 8 entries and on the heap beyond, through copies, moves and self-insertions; and
// the conversions user code relies on.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include <tensorjit/shape.hpp>

using tensorjit::Shape;

namespace {

void check_same(const Shape& shape, const std::vector<std::int64_t>& truth) {
  REQUIRE(shape.size() == truth.size());
  REQUIRE(shape.empty() == truth.empty());
  REQUIRE(shape.capacity() >= shape.size());
  for (std::size_t i = 0; i < truth.size(); ++i) REQUIRE(shape[i] == truth[i]);
  REQUIRE(std::vector<std::int64_t>(shape) == truth);
}

}  // namespace

TEST_CASE("a Shape agrees with std::vector under random edits, in place and on the heap") {
  std::mt19937_64 random(20261207);
  for (int round = 0; round < 400; ++round) {
    Shape shape;
    std::vector<std::int64_t> truth;
    // Rounds aim at lengths around the inline capacity, and some far past it.
    const std::size_t limit = round % 4 == 0 ? 40 : 12;
    for (int step = 0; step < 60; ++step) {
      const std::int64_t value = static_cast<std::int64_t>(random() % 1000) - 500;
      const std::size_t at = truth.empty() ? 0 : random() % (truth.size() + 1);
      switch (random() % 9) {
        case 0:
        case 1:
          if (truth.size() < limit) {
            shape.push_back(value);
            truth.push_back(value);
          }
          break;
        case 2:
          if (truth.size() < limit) {
            shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(at), value);
            truth.insert(truth.begin() + static_cast<std::ptrdiff_t>(at), value);
          }
          break;
        case 3:
          if (!truth.empty() && at < truth.size()) {
            shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(at));
            truth.erase(truth.begin() + static_cast<std::ptrdiff_t>(at));
          }
          break;
        case 4: {
          const std::size_t count = random() % (limit + 1);
          shape.resize(count, value);
          truth.resize(count, value);
          break;
        }
        case 5:
          if (2 * truth.size() <= limit) {  // inserting a Shape's own entries into itself
            const auto copy = truth;
            shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(at), shape.begin(), shape.end());
            truth.insert(truth.begin() + static_cast<std::ptrdiff_t>(at), copy.begin(), copy.end());
          }
          break;
        case 6: {
          Shape copied = shape;  // copy, then move back: both must leave the same entries
          shape = std::move(copied);
          break;
        }
        case 7: {
          Shape moved(std::move(shape));
          check_same(moved, truth);
          shape = moved;
          break;
        }
        default:
          if (!truth.empty()) {
            shape.erase(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(at / 2));
            truth.erase(truth.begin(), truth.begin() + static_cast<std::ptrdiff_t>(at / 2));
          }
      }
      check_same(shape, truth);
    }
  }
}

TEST_CASE("a Shape keeps up to 8 entries in place and moves longer ones to the heap") {
  Shape shape{1, 2, 3, 4, 5, 6, 7, 8};
  const std::int64_t* in_place = shape.data();
  CHECK(shape.capacity() == Shape::kInlineCapacity);
  shape.push_back(9);
  CHECK(shape.data() != in_place);
  CHECK(shape.capacity() > Shape::kInlineCapacity);
  // A move takes the heap array; the source is left empty and usable.
  const std::int64_t* heap = shape.data();
  Shape moved(std::move(shape));
  CHECK(moved.data() == heap);
  CHECK(shape.empty());  // NOLINT(bugprone-use-after-move): a moved-from Shape is empty by contract
  shape.push_back(4);
  CHECK(shape == Shape{4});
  CHECK(moved == Shape{1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(moved.at(8) == 9);
  CHECK_THROWS_AS(moved.at(9), std::out_of_range);
}

TEST_CASE("a Shape converts to and from std::vector and to std::span, and compares as a sequence") {
  const std::vector<std::int64_t> extents{2, 3, 4};
  const Shape shape = extents;
  const std::vector<std::int64_t> back = shape;
  CHECK(back == extents);
  const std::span<const std::int64_t> span = shape;
  CHECK(span.size() == 3);
  CHECK(span.data() == shape.data());
  CHECK(Shape{2, 3} < Shape{2, 4});
  CHECK(Shape{2, 3} < Shape{2, 3, 1});
  CHECK(Shape{} == Shape());
  CHECK(Shape(3, 7) == Shape{7, 7, 7});
  CHECK(Shape(2) == Shape{0, 0});
}
