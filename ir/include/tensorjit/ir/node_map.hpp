// A map keyed by the address of a heap object (a node, a buffer), with open addressing in one array
// whose first 16 slots live inside the map. Every eval walks its graph a few times (order, plan
// key, last readers) and keeps its values in such maps; with std::unordered_map's allocation per
// entry, or even one allocation per map, those walks cost more than a small kernel does. An eval
// of a few nodes allocates nothing for its maps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>

#include <tensorjit/ir/node.hpp>

namespace tensorjit::ir {

template <class Key, class Value>
class AddressMap {
 public:
  explicit AddressMap(std::size_t expected = 0) {
    if (2 * expected > kInlineSlots) {
      heap_capacity_ = capacity_for(expected);
      heap_ = std::make_unique<Slot[]>(heap_capacity_);
    }
  }
  AddressMap(const AddressMap& other) { copy_from(other); }
  AddressMap(AddressMap&& other) noexcept { move_from(other); }
  AddressMap& operator=(const AddressMap& other) {
    if (this != &other) {
      clear();
      copy_from(other);
    }
    return *this;
  }
  AddressMap& operator=(AddressMap&& other) noexcept {
    if (this != &other) {
      clear();
      move_from(other);
    }
    return *this;
  }
  ~AddressMap() { clear(); }

  // The value of `key`, or null when it has none.
  Value* find(const Key* key) {
    Slot& slot = slots()[probe(key)];
    return slot.key ? &slot.value() : nullptr;
  }
  const Value* find(const Key* key) const { return const_cast<AddressMap*>(this)->find(key); }
  bool contains(const Key* key) const { return find(key) != nullptr; }

  // Adds `key` with `value` unless present; returns its value and whether it was added.
  std::pair<Value*, bool> insert(const Key* key, Value value) {
    std::size_t index = probe(key);
    if (slots()[index].key) return {&slots()[index].value(), false};
    if (2 * (size_ + 1) > capacity()) {
      grow();
      index = probe(key);
    }
    slots()[index].construct(key, std::move(value));
    ++size_;
    return {&slots()[index].value(), true};
  }

  // The value of `key`, default-constructed first when absent.
  Value& operator[](const Key* key) { return *insert(key, Value{}).first; }

  // Removes `key` if present. The slots after it that probed past it move back (backward-shift
  // deletion), so no probe ever stops early at a hole.
  void erase(const Key* key) {
    Slot* s = slots();
    const std::size_t mask = capacity() - 1;
    std::size_t hole = probe(key);
    if (!s[hole].key) return;
    s[hole].destroy();
    for (std::size_t next = (hole + 1) & mask; s[next].key; next = (next + 1) & mask) {
      const std::size_t home = home_of(s[next].key);
      // `next` stays when its home lies cyclically in (hole, next].
      const bool stays = hole < next ? (home > hole && home <= next) : (home > hole || home <= next);
      if (stays) continue;
      s[hole].construct(s[next].key, std::move(s[next].value()));
      s[next].destroy();
      hole = next;
    }
    --size_;
  }

  std::size_t size() const { return size_; }

 private:
  // A key, and a value that exists only while the key is set: an empty map constructs and
  // destroys no value (a plan's value table has 16 inline slots of layouts).
  struct Slot {
    const Key* key = nullptr;
    alignas(Value) unsigned char storage[sizeof(Value)];

    Value& value() { return *std::launder(reinterpret_cast<Value*>(storage)); }
    const Value& value() const { return *std::launder(reinterpret_cast<const Value*>(storage)); }
    void construct(const Key* k, Value&& v) {
      ::new (static_cast<void*>(storage)) Value(std::move(v));
      key = k;
    }
    void destroy() {
      value().~Value();
      key = nullptr;
    }
  };
  static constexpr std::size_t kInlineSlots = 16;

  static std::size_t capacity_for(std::size_t expected) {
    std::size_t capacity = kInlineSlots;
    while (capacity < 2 * expected) capacity *= 2;
    return capacity;
  }

  Slot* slots() { return heap_ ? heap_.get() : inline_; }
  const Slot* slots() const { return heap_ ? heap_.get() : inline_; }
  std::size_t capacity() const { return heap_ ? heap_capacity_ : kInlineSlots; }

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
    while (s[index].key && s[index].key != key) index = (index + 1) & mask;
    return index;
  }

  // Destroys every value and returns to the inline slots.
  void clear() noexcept {
    Slot* s = slots();
    for (std::size_t i = 0, n = capacity(); i < n && size_ > 0; ++i)
      if (s[i].key) {
        s[i].destroy();
        --size_;
      }
    heap_.reset();
    heap_capacity_ = 0;
  }

  // Fills this map, empty and on its inline slots, with copies of `other`'s entries, each in the
  // same slot (of a heap array as large as `other`'s, when it has one).
  void copy_from(const AddressMap& other) {
    if (other.heap_) {
      heap_capacity_ = other.heap_capacity_;
      heap_ = std::make_unique<Slot[]>(heap_capacity_);
    }
    Slot* to = slots();
    const Slot* from = other.slots();
    for (std::size_t i = 0, n = capacity(); i < n; ++i)
      if (from[i].key) to[i].construct(from[i].key, Value(from[i].value()));
    size_ = other.size_;
  }

  // The same with `other`'s entries moved (its heap array taken whole), leaving `other` empty.
  void move_from(AddressMap& other) noexcept {
    if (other.heap_) {
      heap_ = std::move(other.heap_);
      heap_capacity_ = std::exchange(other.heap_capacity_, 0);
    } else {
      for (std::size_t i = 0; i < kInlineSlots; ++i)
        if (other.inline_[i].key) {
          inline_[i].construct(other.inline_[i].key, std::move(other.inline_[i].value()));
          other.inline_[i].destroy();
        }
    }
    size_ = std::exchange(other.size_, 0);
  }

  void grow() {
    const std::size_t old_capacity = capacity();
    std::unique_ptr<Slot[]> old = std::move(heap_);
    Slot* from = old ? old.get() : inline_;
    heap_capacity_ = old_capacity * 2;
    heap_ = std::make_unique<Slot[]>(heap_capacity_);
    for (std::size_t i = 0; i < old_capacity; ++i)
      if (from[i].key) {
        heap_[probe(from[i].key)].construct(from[i].key, std::move(from[i].value()));
        from[i].destroy();
      }
  }

  Slot inline_[kInlineSlots];
  std::unique_ptr<Slot[]> heap_;  // null while the inline slots suffice
  std::size_t heap_capacity_ = 0;
  std::size_t size_ = 0;
};

template <class Value>
using NodeMap = AddressMap<Node, Value>;

}  // namespace tensorjit::ir
