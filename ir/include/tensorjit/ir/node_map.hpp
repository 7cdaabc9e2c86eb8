// A map keyed by node address, with open addressing in one array. Every eval walks its graph a few
// times (order, rewrite of evaluated leaves, plan lookup); with std::unordered_map's allocation per
// entry those walks cost more than a small kernel does. No erase: the walks only add.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <tensorjit/ir/node.hpp>

namespace tensorjit::ir {

template <class Value>
class NodeMap {
 public:
  explicit NodeMap(std::size_t expected = 8) { slots_.resize(capacity_for(expected)); }

  // The value of `key`, or null when it has none.
  Value* find(const Node* key) {
    Slot& slot = slots_[probe(key)];
    return slot.first ? &slot.second : nullptr;
  }
  const Value* find(const Node* key) const { return const_cast<NodeMap*>(this)->find(key); }
  bool contains(const Node* key) const { return find(key) != nullptr; }

  // Adds `key` with `value` unless present; returns its value and whether it was added.
  std::pair<Value*, bool> insert(const Node* key, Value value) {
    std::size_t index = probe(key);
    if (slots_[index].first) return {&slots_[index].second, false};
    if (2 * (size_ + 1) > slots_.size()) {
      grow();
      index = probe(key);
    }
    slots_[index] = Slot{key, std::move(value)};
    ++size_;
    return {&slots_[index].second, true};
  }

  // The value of `key`, default-constructed first when absent.
  Value& operator[](const Node* key) { return *insert(key, Value{}).first; }

  std::size_t size() const { return size_; }

 private:
  using Slot = std::pair<const Node*, Value>;

  static std::size_t capacity_for(std::size_t expected) {
    std::size_t capacity = 16;
    while (capacity < 2 * expected) capacity *= 2;
    return capacity;
  }

  // The slot holding `key`, or the empty slot where it would go (linear probing; the table is at
  // most half full, so one always exists).
  std::size_t probe(const Node* key) const {
    const std::size_t mask = slots_.size() - 1;
    // Nodes are heap objects at least 16 bytes apart: the low bits carry nothing.
    std::size_t index = (reinterpret_cast<std::uintptr_t>(key) >> 4) * 0x9E3779B97F4A7C15ull >> 20 & mask;
    while (slots_[index].first && slots_[index].first != key) index = (index + 1) & mask;
    return index;
  }

  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (auto& slot : old)
      if (slot.first) slots_[probe(slot.first)] = std::move(slot);
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

}  // namespace tensorjit::ir
