// Trains a small MLP on the handwritten digits that scikit-learn ships (1797 8x8 images, classes
// 0-9): 64-256-128-10 with ReLU and dropout, cross-entropy, Adam, shuffled minibatches.
//
//   bash scripts/fetch_digits.sh                  # prints the path of digits.csv.gz
//   build/examples/train_digits [digits.csv.gz] [epochs]
//
// The split is fixed (a permutation under key 0: 1437 images to train on, 360 to test), and so is
// every random draw, so a run prints the same losses at any thread count and vector width. One
// progress line per epoch; the last line gives the test accuracy and the final loss's bits.
#include <tensorjit/tensorjit.hpp>

#include <zlib.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace tj = tensorjit;

namespace {

constexpr int kPixels = 64;
constexpr int kClasses = 10;

struct Digits {
  std::vector<float> images;  // rows of 64 pixels, scaled to [0, 1]
  std::vector<std::int64_t> labels;
  std::int64_t count() const { return static_cast<std::int64_t>(labels.size()); }
};

// digits.csv.gz: one image a line, 64 pixel values 0-16 then the label, comma separated.
Digits read_digits(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) throw std::runtime_error("cannot open " + path + "; run scripts/fetch_digits.sh first");
  std::string text;
  char chunk[1 << 16];
  int read = 0;
  while ((read = gzread(file, chunk, sizeof chunk)) > 0) text.append(chunk, static_cast<std::size_t>(read));
  const bool failed = read < 0;
  gzclose(file);
  if (failed) throw std::runtime_error(path + " is not a readable gzip file");
  Digits digits;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    std::vector<double> fields;
    std::istringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) fields.push_back(std::stod(cell));
    if (fields.size() != kPixels + 1 || fields.back() < 0 || fields.back() >= kClasses)
      throw std::runtime_error(path + ": a line with " + std::to_string(fields.size()) + " fields, not 65");
    for (int i = 0; i < kPixels; ++i) digits.images.push_back(static_cast<float>(fields[i] / 16.0));
    digits.labels.push_back(static_cast<std::int64_t>(fields.back()));
  }
  return digits;
}

// The images and labels at `rows`, as tensors.
std::pair<tj::Tensor, tj::Tensor> batch(const Digits& digits, const std::vector<std::int64_t>& rows) {
  std::vector<float> images;
  std::vector<std::int64_t> labels;
  for (std::int64_t row : rows) {
    images.insert(images.end(), digits.images.begin() + row * kPixels, digits.images.begin() + (row + 1) * kPixels);
    labels.push_back(digits.labels[static_cast<std::size_t>(row)]);
  }
  const auto n = static_cast<std::int64_t>(rows.size());
  return {tj::tensor<float>({n, kPixels}, images), tj::tensor<std::int64_t>({n}, labels)};
}

// PyTorch's nn.Linear initialisation: weights and bias uniform in +-1/sqrt(fan_in).
struct Linear {
  tj::Tensor weight, bias;
  Linear(std::int64_t in, std::int64_t out, const tj::Key& key) {
    const double bound = 1 / std::sqrt(static_cast<double>(in));
    const auto keys = tj::split(key, 2);
    weight = tj::uniform(keys[0], {in, out}, -bound, bound);
    bias = tj::uniform(keys[1], {out}, -bound, bound);
    tj::eval({weight, bias});
  }
  tj::Tensor operator()(const tj::Tensor& x) const { return tj::matmul(x, weight) + bias; }
};

struct Model {
  Linear first, second, third;
  explicit Model(const tj::Key& key)
      : first(64, 256, tj::split(key, 3)[0]), second(256, 128, tj::split(key, 3)[1]),
        third(128, kClasses, tj::split(key, 3)[2]) {}
  // Dropout only when a key is given (training).
  tj::Tensor operator()(const tj::Tensor& x, const tj::Key* dropout_key = nullptr) const {
    tj::Tensor h = tj::relu(first(x));
    if (dropout_key) h = tj::dropout(h, 0.1, tj::split(*dropout_key, 2)[0]);
    h = tj::relu(second(h));
    if (dropout_key) h = tj::dropout(h, 0.1, tj::split(*dropout_key, 2)[1]);
    return third(h);
  }
  tj::optim::Parameters parameters() {
    return {&first.weight, &first.bias, &second.weight, &second.bias, &third.weight, &third.bias};
  }
  std::vector<tj::Tensor> values() {
    std::vector<tj::Tensor> result;
    for (tj::Tensor* p : parameters()) result.push_back(*p);
    return result;
  }
};

double accuracy(const Model& model, const Digits& digits, const std::vector<std::int64_t>& rows) {
  auto [images, labels] = batch(digits, rows);
  const auto predicted = model(images).argmax(1).to_vector<std::int64_t>();
  const auto expected = labels.to_vector<std::int64_t>();
  std::int64_t right = 0;
  for (std::size_t i = 0; i < predicted.size(); ++i) right += predicted[i] == expected[i];
  return static_cast<double>(right) / static_cast<double>(predicted.size());
}

std::string default_path() {
  const char* cache = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  std::string root = cache ? cache : std::string(home ? home : ".") + "/.cache";
  return root + "/tensorjit/digits/digits.csv.gz";
}

}  // namespace

int main(int argc, char** argv) try {
  const std::string path = argc > 1 ? argv[1] : default_path();
  const int epochs = argc > 2 ? std::atoi(argv[2]) : 40;
  const Digits digits = read_digits(path);

  // The fixed split: the first 80% of a permutation under key 0 train, the rest test.
  const std::vector<std::int64_t> order = tj::permutation(tj::key(0), digits.count()).to_vector<std::int64_t>();
  const auto train_count = static_cast<std::ptrdiff_t>(digits.count() * 4 / 5);
  const std::vector<std::int64_t> train(order.begin(), order.begin() + train_count);
  const std::vector<std::int64_t> test(order.begin() + train_count, order.end());
  std::printf("digits: %lld images, %zu to train on, %zu to test\n", static_cast<long long>(digits.count()),
              train.size(), test.size());

  Model model(tj::key(1));
  tj::optim::Adam optimizer(model.parameters(), {.lr = 1e-3});
  constexpr std::size_t kBatch = 64;
  float last_loss = 0;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    const tj::Key epoch_key = tj::key(100 + static_cast<std::uint64_t>(epoch));
    const auto shuffle = tj::permutation(tj::split(epoch_key, 2)[0], static_cast<std::int64_t>(train.size()))
                             .to_vector<std::int64_t>();
    const std::size_t batches = (train.size() + kBatch - 1) / kBatch;
    const auto dropout_keys = tj::split(tj::split(epoch_key, 2)[1], static_cast<std::int64_t>(batches));
    double total = 0;
    for (std::size_t b = 0; b < batches; ++b) {
      std::vector<std::int64_t> rows;
      for (std::size_t i = b * kBatch; i < std::min(train.size(), (b + 1) * kBatch); ++i)
        rows.push_back(train[static_cast<std::size_t>(shuffle[i])]);
      auto [images, labels] = batch(digits, rows);
      tj::Tensor loss = tj::cross_entropy(model(images, &dropout_keys[b]), labels);
      optimizer.step(tj::grad(loss, model.values()), {loss});
      last_loss = loss.item<float>();
      total += last_loss;
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("epoch %2d/%d  loss %.4f  test accuracy %.2f%%  %.1f ms\n", epoch + 1, epochs,
                total / static_cast<double>(batches), 100 * accuracy(model, digits, test), ms);
  }
  std::printf("test accuracy %.2f%%, final loss %.9g (bits %08x)\n", 100 * accuracy(model, digits, test),
              static_cast<double>(last_loss), std::bit_cast<std::uint32_t>(last_loss));
  return 0;
} catch (const std::exception& error) {
  std::fprintf(stderr, "train_digits: %s\n", error.what());
  return 1;
}
