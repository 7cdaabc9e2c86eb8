// minilm: sentence embeddings with all-MiniLM-L6-v2, text in, vectors out (docs/models.md).
//
//   minilm --model DIR [--input FILE] [--output OUT.npy] [--bench]
//
// Reads one sentence a line from FILE (or standard input), embeds them as one padded batch and
// writes the embeddings [sentences, 384] as .npy, or prints them. DIR holds config.json,
// model.safetensors and tokenizer.json (bash scripts/fetch_minilm.sh prints it). With --bench it
// times batch x tokens 1 x 16, 1 x 128 and 32 x 128 instead (ids already tokenized) and prints
// one line per shape: the median and the range of the measured runs, in ms, and the median of the
// process's CPU time per run (all threads; on a machine other processes share, the time slices
// they take are not in it).
#include <tensorjit/models/bert.hpp>
#include <tensorjit/models/wordpiece_tokenizer.hpp>
#include <tensorjit/tensorjit.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace tj = tensorjit;
namespace tjm = tensorjit::models;

namespace {

using Clock = std::chrono::steady_clock;
const Clock::time_point process_start = Clock::now();

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double process_cpu_milliseconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) * 1e-6;
}

struct Options {
  std::string model, input, output;
  bool bench = false;
};

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "minilm: " << problem << "\n"
            << "usage: minilm --model DIR [--input FILE] [--output OUT.npy] [--bench]\n"
            << "  DIR: all-MiniLM-L6-v2's folder (bash scripts/fetch_minilm.sh prints it)\n";
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(word + " needs a value");
      return argv[++i];
    };
    if (word == "--model") o.model = value();
    else if (word == "--input") o.input = value();
    else if (word == "--output") o.output = value();
    else if (word == "--bench") o.bench = true;
    else usage("unknown argument " + word);
  }
  if (o.model.empty()) usage("--model is required");
  return o;
}

std::vector<std::string> read_lines(std::istream& in) {
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Ids of `sentences` x `tokens`: [CLS], words of the vocabulary's middle, [SEP]; no padding. The
// values do not change the work (every token attends to every token).
tjm::TokenBatch synthetic_batch(std::int64_t sentences, std::int64_t tokens) {
  std::vector<std::int64_t> ids(static_cast<std::size_t>(sentences * tokens));
  for (std::int64_t s = 0; s < sentences; ++s)
    for (std::int64_t t = 0; t < tokens; ++t)
      ids[static_cast<std::size_t>(s * tokens + t)] = t == 0 ? 101 : t == tokens - 1 ? 102 : 2000 + (s * 7 + t * 13) % 20000;
  return {tj::tensor<std::int64_t>({sentences, tokens}, ids), tj::ones({sentences, tokens}, tj::i64)};
}

void bench(const tjm::BertEncoder& encoder) {
  struct Shape {
    std::int64_t sentences, tokens;
    int runs;
  };
  for (const Shape shape : {Shape{1, 16, 50}, Shape{1, 128, 30}, Shape{32, 128, 5}}) {
    const tjm::TokenBatch batch = synthetic_batch(shape.sentences, shape.tokens);
    encoder.embed(batch.ids, batch.attention_mask).eval();  // compiles, or finds in the caches
    std::vector<double> times, cpu_times;
    for (int run = 0; run < shape.runs; ++run) {
      const auto start = Clock::now();
      const double cpu_start = process_cpu_milliseconds();
      encoder.embed(batch.ids, batch.attention_mask).eval();
      cpu_times.push_back(process_cpu_milliseconds() - cpu_start);
      times.push_back(milliseconds_since(start));
    }
    std::sort(times.begin(), times.end());
    std::sort(cpu_times.begin(), cpu_times.end());
    std::printf("minilm %lldx%lld: median %.3f ms (min %.3f, max %.3f, %d runs), CPU time median %.3f ms\n",
                static_cast<long long>(shape.sentences), static_cast<long long>(shape.tokens),
                times[times.size() / 2], times.front(), times.back(), shape.runs, cpu_times[cpu_times.size() / 2]);
  }
}

int run(const Options& options) {
  const tjm::BertEncoder encoder = tjm::BertEncoder::from_folder(options.model);
  const tjm::WordPieceTokenizer tokenizer = tjm::WordPieceTokenizer::from_file(options.model + "/tokenizer.json");
  if (options.bench) {
    bench(encoder);
    return 0;
  }
  std::vector<std::string> sentences;
  if (options.input.empty()) {
    sentences = read_lines(std::cin);
  } else {
    std::ifstream file(options.input);
    if (!file) usage("cannot read " + options.input);
    sentences = read_lines(file);
  }
  if (sentences.empty()) usage("no sentences to embed (one a line)");
  const tjm::TokenBatch batch = tokenizer.encode_batch(sentences);
  const tj::Tensor embeddings = encoder.embed(batch.ids, batch.attention_mask);
  embeddings.eval();
  // To standard error, so that printed embeddings stay parseable: the time from the process's
  // start (loading the files, tokenizing, compiling or finding the kernels, running).
  std::fprintf(stderr, "minilm: %zu sentences embedded, %.1f ms after the start\n", sentences.size(),
               milliseconds_since(process_start));
  if (!options.output.empty()) {
    tj::save_npy(options.output, embeddings);
    return 0;
  }
  // Every value, one sentence a line (numpy's printing would summarise 384 columns with "...").
  const std::vector<float> values = embeddings.to_vector<float>();
  const std::size_t width = static_cast<std::size_t>(embeddings.shape()[1]);
  for (std::size_t i = 0; i < values.size(); ++i)
    std::printf("%.9g%c", values[i], (i + 1) % width == 0 ? '\n' : ' ');
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  try {
    return run(options);
  } catch (const tj::Error& error) {
    std::cerr << "minilm: " << error.what() << "\n";
    return 1;
  }
}
