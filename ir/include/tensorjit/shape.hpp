// tensorjit::Shape: a tensor's extents (and, inside the library, its strides in elements). Part of
// the public API (re-exported by <tensorjit/tensorjit.hpp>).
//
// A vector of int64 with std::vector's interface that keeps up to 8 entries in place: a tensor has
// at most 8 axes (ir::kMaxRank), so no shape allocates. Every op builds, copies and compares
// shapes; as std::vectors they made 13 of the 38 heap allocations of an eval of a*b + c over 8
// elements (W11). Longer vectors still work: they move to the heap, as std::vector's do. A Shape
// converts to and from std::vector<std::int64_t> and to std::span, so code written against
// std::vector keeps compiling. boost::container::small_vector was tried first: its moves and
// copies, out of line, cost that eval more instructions than the allocations they saved.
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <span>
#include <stdexcept>
#include <vector>

namespace tensorjit {

class Shape {
 public:
  using value_type = std::int64_t;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = std::int64_t&;
  using const_reference = const std::int64_t&;
  using pointer = std::int64_t*;
  using const_pointer = const std::int64_t*;
  using iterator = std::int64_t*;
  using const_iterator = const std::int64_t*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  static constexpr size_type kInlineCapacity = 8;

  Shape() noexcept = default;
  explicit Shape(size_type count, std::int64_t value = 0) { assign(count, value); }
  template <std::input_iterator It>
  Shape(It first, It last) {
    assign(first, last);
  }
  Shape(std::initializer_list<std::int64_t> values) { assign(values.begin(), values.end()); }
  Shape(const std::vector<std::int64_t>& values) { assign(values.begin(), values.end()); }  // NOLINT: implicit by design

  Shape(const Shape& other) { copy(other); }
  Shape(Shape&& other) noexcept { take(other); }
  Shape& operator=(const Shape& other) {
    if (this != &other) copy(other);
    return *this;
  }
  Shape& operator=(Shape&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  Shape& operator=(std::initializer_list<std::int64_t> values) {
    assign(values.begin(), values.end());
    return *this;
  }
  ~Shape() { release(); }

  operator std::vector<std::int64_t>() const { return {begin(), end()}; }  // NOLINT: implicit by design

  size_type size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  size_type capacity() const noexcept { return capacity_; }
  std::int64_t* data() noexcept { return data_; }
  const std::int64_t* data() const noexcept { return data_; }

  iterator begin() noexcept { return data_; }
  iterator end() noexcept { return data_ + size_; }
  const_iterator begin() const noexcept { return data_; }
  const_iterator end() const noexcept { return data_ + size_; }
  const_iterator cbegin() const noexcept { return begin(); }
  const_iterator cend() const noexcept { return end(); }
  reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }

  std::int64_t& operator[](size_type i) noexcept { return data_[i]; }
  const std::int64_t& operator[](size_type i) const noexcept { return data_[i]; }
  std::int64_t& at(size_type i) { return data_[checked(i)]; }
  const std::int64_t& at(size_type i) const { return data_[checked(i)]; }
  std::int64_t& front() noexcept { return data_[0]; }
  const std::int64_t& front() const noexcept { return data_[0]; }
  std::int64_t& back() noexcept { return data_[size_ - 1]; }
  const std::int64_t& back() const noexcept { return data_[size_ - 1]; }

  void reserve(size_type count) {
    if (count > capacity_) grow(count);
  }
  void clear() noexcept { size_ = 0; }
  void push_back(std::int64_t value) {
    if (size_ == capacity_) grow(size_ + 1);
    data_[size_++] = value;
  }
  std::int64_t& emplace_back(std::int64_t value) {
    push_back(value);
    return back();
  }
  void pop_back() noexcept { --size_; }
  void resize(size_type count, std::int64_t value = 0) {
    reserve(count);
    if (count > size_) std::fill(data_ + size_, data_ + count, value);
    size_ = count;
  }
  void assign(size_type count, std::int64_t value) {
    size_ = 0;
    resize(count, value);
  }
  template <std::input_iterator It>
  void assign(It first, It last) {
    size_ = 0;
    if constexpr (std::forward_iterator<It>) {
      const auto count = static_cast<size_type>(std::distance(first, last));
      reserve(count);
      std::copy(first, last, data_);
      size_ = count;
    } else {
      for (; first != last; ++first) push_back(*first);
    }
  }
  void assign(std::initializer_list<std::int64_t> values) { assign(values.begin(), values.end()); }

  iterator insert(const_iterator position, std::int64_t value) { return insert(position, size_type{1}, value); }
  iterator insert(const_iterator position, size_type count, std::int64_t value) {
    const iterator at = open_gap(position, count);
    std::fill(at, at + count, value);
    return at;
  }
  template <std::input_iterator It>
  iterator insert(const_iterator position, It first, It last) {
    const auto index = position - begin();
    if constexpr (std::forward_iterator<It>) {
      const auto count = static_cast<size_type>(std::distance(first, last));
      // The source may be this Shape itself: copy it aside before the gap moves it.
      const Shape source(first, last);
      std::copy(source.begin(), source.end(), open_gap(position, count));
    } else {
      const auto old_size = size_;
      for (; first != last; ++first) push_back(*first);
      std::rotate(begin() + index, begin() + old_size, end());
    }
    return begin() + index;
  }
  iterator insert(const_iterator position, std::initializer_list<std::int64_t> values) {
    return insert(position, values.begin(), values.end());
  }
  iterator erase(const_iterator position) { return erase(position, position + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    const iterator to = begin() + (first - begin());
    std::copy(last, cend(), to);
    size_ -= static_cast<size_type>(last - first);
    return to;
  }

  void swap(Shape& other) noexcept {
    Shape held(std::move(other));
    other = std::move(*this);
    *this = std::move(held);
  }

  friend bool operator==(const Shape& a, const Shape& b) noexcept {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend std::strong_ordering operator<=>(const Shape& a, const Shape& b) noexcept {
    return std::lexicographical_compare_three_way(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  bool on_heap() const noexcept { return data_ != inline_; }

  size_type checked(size_type i) const {
    if (i >= size_) throw std::out_of_range("tensorjit::Shape::at: index out of range");
    return i;
  }

  // Room for at least `count` entries, the current ones kept.
  void grow(size_type count) {
    const size_type capacity = std::max(count, 2 * capacity_);
    auto* heap = new std::int64_t[capacity];
    std::copy(begin(), end(), heap);
    release();
    data_ = heap;
    capacity_ = capacity;
  }

  void release() noexcept {
    if (on_heap()) delete[] data_;
    data_ = inline_;
    capacity_ = kInlineCapacity;
  }

  // Copies the first kInlineCapacity entries of `from` into `to`, used or not: one fixed-size
  // copy the compiler inlines (a copy of `size` entries became a call to memmove). Both hold at
  // least kInlineCapacity entries: the inline array, or a heap array, which is larger.
  static void copy_inline_capacity(std::int64_t* to, const std::int64_t* from) noexcept {
    std::memcpy(to, from, sizeof(std::int64_t) * kInlineCapacity);
  }

  void copy(const Shape& other) {
    if (other.size_ > capacity_) {
      assign(other.begin(), other.end());
      return;
    }
    if (other.size_ <= kInlineCapacity)
      copy_inline_capacity(data_, other.data_);
    else
      std::copy(other.begin(), other.end(), data_);
    size_ = other.size_;
  }

  // Takes `other`'s entries (its heap array, or a copy of its inline ones) and leaves it empty.
  void take(Shape& other) noexcept {
    if (other.on_heap()) {
      data_ = other.data_;
      capacity_ = other.capacity_;
      other.data_ = other.inline_;
      other.capacity_ = kInlineCapacity;
    } else {
      copy_inline_capacity(inline_, other.inline_);
    }
    size_ = other.size_;
    other.size_ = 0;
  }

  // Moves the entries from `position` on `count` places up and returns where the gap starts.
  iterator open_gap(const_iterator position, size_type count) {
    const auto index = static_cast<size_type>(position - begin());
    reserve(size_ + count);
    std::copy_backward(begin() + index, end(), end() + count);
    size_ += count;
    return begin() + index;
  }

  std::int64_t* data_ = inline_;
  size_type size_ = 0;
  size_type capacity_ = kInlineCapacity;
  std::int64_t inline_[kInlineCapacity];
};

}  // namespace tensorjit
