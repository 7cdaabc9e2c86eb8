// The address map every eval keeps its walks and values in (ir/node_map.hpp): the same answers as
// std::unordered_map under random inserts, lookups and erases, across the move from its inline
// slots to the heap and back through copies and moves.
#include <doctest/doctest.h>

#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include <tensorjit/ir/node_map.hpp>

using tensorjit::ir::AddressMap;

namespace {

struct Object {
  char bytes[16];
};

using Map = AddressMap<Object, std::string>;

void check_same(const Map& map, const std::unordered_map<const Object*, std::string>& truth,
                const std::vector<std::unique_ptr<Object>>& keys) {
  REQUIRE(map.size() == truth.size());
  for (const auto& key : keys) {
    const std::string* found = map.find(key.get());
    const auto it = truth.find(key.get());
    REQUIRE((found != nullptr) == (it != truth.end()));
    if (found) REQUIRE(*found == it->second);
  }
}

}  // namespace

TEST_CASE("an address map agrees with std::unordered_map under random inserts and erases") {
  for (int key_count : {3, 8, 9, 40, 700}) {
    CAPTURE(key_count);
    std::vector<std::unique_ptr<Object>> keys;
    for (int i = 0; i < key_count; ++i) keys.push_back(std::make_unique<Object>());
    std::mt19937 random(static_cast<unsigned>(key_count));
    Map map(key_count % 2 ? 0 : static_cast<std::size_t>(key_count));  // inline first, or sized up front
    std::unordered_map<const Object*, std::string> truth;
    for (int step = 0; step < 20 * key_count; ++step) {
      const Object* key = keys[random() % keys.size()].get();
      switch (random() % 4) {
        case 0:
        case 1: {
          const std::string value = std::to_string(step);
          const auto [slot, added] = map.insert(key, value);
          const auto [it, truth_added] = truth.emplace(key, value);
          REQUIRE(added == truth_added);
          REQUIRE(*slot == it->second);
          break;
        }
        case 2:
          map.erase(key);
          truth.erase(key);
          break;
        default:
          map[key] += "x";
          truth[key] += "x";
      }
      if (step % 97 == 0) check_same(map, truth, keys);
    }
    check_same(map, truth, keys);
    const Map copy = map;
    check_same(copy, truth, keys);
    const Map moved = std::move(map);
    check_same(moved, truth, keys);
    // Emptied by erases, it takes new keys again.
    Map emptied = moved;
    for (const auto& key : keys) emptied.erase(key.get());
    CHECK(emptied.size() == 0);
    for (const auto& key : keys) CHECK_FALSE(emptied.contains(key.get()));
    CHECK(emptied.insert(keys[0].get(), "again").second);
    CHECK(*emptied.find(keys[0].get()) == "again");
  }
}

namespace {

// Counts the values alive, to show which slots hold one.
struct Counted {
  static inline int alive = 0;
  int payload = 0;
  Counted() { ++alive; }
  explicit Counted(int p) : payload(p) { ++alive; }
  Counted(const Counted& other) : payload(other.payload) { ++alive; }
  Counted(Counted&& other) noexcept : payload(other.payload) { ++alive; }
  Counted& operator=(const Counted&) = default;
  Counted& operator=(Counted&&) noexcept = default;
  ~Counted() { --alive; }
};

}  // namespace

TEST_CASE("an address map holds a value only for each key it holds, through growth, erases, copies and moves") {
  std::vector<std::unique_ptr<Object>> keys;
  for (int i = 0; i < 50; ++i) keys.push_back(std::make_unique<Object>());
  {
    AddressMap<Object, Counted> map;
    CHECK(Counted::alive == 0);  // its 16 inline slots construct nothing
    for (int i = 0; i < 5; ++i) map.insert(keys[static_cast<std::size_t>(i)].get(), Counted(i));
    CHECK(Counted::alive == 5);
    for (int i = 5; i < 50; ++i) map.insert(keys[static_cast<std::size_t>(i)].get(), Counted(i));  // to the heap
    CHECK(Counted::alive == 50);
    for (int i = 0; i < 50; i += 2) map.erase(keys[static_cast<std::size_t>(i)].get());
    CHECK(Counted::alive == 25);
    AddressMap<Object, Counted> copy = map;
    CHECK(Counted::alive == 50);
    AddressMap<Object, Counted> moved = std::move(copy);
    CHECK(Counted::alive == 50);
    for (int i = 1; i < 50; i += 2) CHECK(moved.find(keys[static_cast<std::size_t>(i)].get())->payload == i);
    AddressMap<Object, Counted> small;
    small.insert(keys[0].get(), Counted(7));
    AddressMap<Object, Counted> small_moved = std::move(small);  // inline slots: values moved one by one
    CHECK(small.size() == 0);  // NOLINT(bugprone-use-after-move): a moved-from map is empty by contract
    CHECK(small_moved.find(keys[0].get())->payload == 7);
    CHECK(Counted::alive == 51);
    moved = small_moved;  // copy assignment over a heap map
    CHECK(Counted::alive == 27);
    CHECK(moved.size() == 1);
  }
  CHECK(Counted::alive == 0);
}
