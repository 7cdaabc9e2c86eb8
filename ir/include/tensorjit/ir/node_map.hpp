// A map keyed by the address of a heap object (a node, a buffer), with open addressing in one array
// whose first 16 slots live inside the map. Every eval walks its graph a few times (order, plan
// key, last readers) and keeps its values in such maps; with std::unordered_map's allocation per
// entry, or even one allocation per map, those walks cost more than a small kernel does. An eval
// of a few nodes allocates nothing for its maps.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <tensorjit/ir/node.hpp>

namespace tensorjit::ir {

template <class Key, class Value>
class AddressMap {
 public:
  explicit AddressMap(std::size_t expected = 0) {
    if (2 * expected > kInlineSlots) heap_.resize(capacity_for(expected));
  }

  // The value of `key`, or null when it has none.
  Value* find(const Key* key) {
    Slot& slot = slots()[probe(key)];
    return slot.first ? &slot.second : nullptr;
  }
  const Value* find(const Key* key) const { return const_cast<AddressMap*>(this)->find(key); }
  bool contains(const Key* key) const { return find(key) != nullptr; }

  // Adds `key` with `value` unless present; returns its value and whether it was added.
  std::pair<Value*, bool> insert(const Key* key, Value value) {
    std::size_t index = probe(key);
    if (slots()[index].first) return {&slots()[index].second, false};
    if (2 * (size_ + 1) > capacity()) {
      grow();
      index = probe(key);
    }
    slots()[index] = Slot{key, std::move(value)};
    ++size_;
    return {&slots()[index].second, true};
  }

  // The value of `key`, default-constructed first when absent.
  Value& operator[](const Key* key) { return *insert(key, Value{}).first; }

  // Removes `key` if present. The slots after it that probed past it move back (backward-shift
  // deletion), so no probe ever stops early at a hole.
  void erase(const Key* key) {
    Slot* s = slots();
    const std::size_t mask = capacity() - 1;
    std::size_t hole = probe(key);
    if (!s[hole].first) return;
    for (std::size_t next = (hole + 1) & mask; s[next].first; next = (next + 1) & mask) {
      const std::size_t home = home_of(s[next].first);
      // `next` stays when its home lies cyclically in (hole, next].
      const bool stays = hole < next ? (home > hole && home <= next) : (home > hole || home <= next);
      if (stays) continue;
      s[hole] = std::move(s[next]);
      hole = next;
    }
    s[hole] = Slot{};
    --size_;
  }

  std::size_t size() const { return size_; }

 private:
  using Slot = std::pair<const Key*, Value>;
  static constexpr std::size_t kInlineSlots = 16;

  static std::size_t capacity_for(std::size_t expected) {
    std::size_t capacity = kInlineSlots;
    while (capacity < 2 * expected) capacity *= 2;
    return capacity;
  }

  Slot* slots() { return heap_.empty() ? inline_.data() : heap_.data(); }
  const Slot* slots() const { return heap_.empty() ? inline_.data() : heap_.data(); }
  std::size_t capacity() const { return heap_.empty() ? kInlineSlots : heap_.size(); }

  // Heap objects are at least 16 bytes apart: the low bits carry nothing.
  std::size_t home_of(const Key* key) const {
    return (reinterpret_cast<std::uintptr_t>(key) >> 4) * 0x9E3779B97F4A7C15ull >> 20 & (capacity() - 1);
  }

  // The slot holding `key`, or the empty slot where it would go (linear probing; the table is at
  // most half full, so one always exists).
  std::size_t probe(const Key* key) const {
    const Slot* s = slots();
    const std::size_t mask = capacity() - 1;
    std::size_t index = home_of(key);
    while (s[index].first && s[index].first != key) index = (index + 1) & mask;
    return index;
  }

  void grow() {
    std::vector<Slot> old(capacity() * 2);
    old.swap(heap_);
    // `old` now holds the previous heap slots, or nothing when they were the inline ones.
    Slot* from = old.empty() ? inline_.data() : old.data();
    const std::size_t count = old.empty() ? kInlineSlots : old.size();
    for (std::size_t i = 0; i < count; ++i)
      if (from[i].first) {
        heap_[probe(from[i].first)] = std::move(from[i]);
        from[i] = Slot{};
      }
  }

  std::array<Slot, kInlineSlots> inline_{};
  std::vector<Slot> heap_;  // empty while the inline slots suffice
  std::size_t size_ = 0;
};

template <class Value>
using NodeMap = AddressMap<Node, Value>;

}  // namespace tensorjit::ir
