#include "worker_loop.hpp"

#include <chrono>
#include <exception>
#include <iostream>
#include <sstream>

namespace bench {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A reply is one line: an exception's message may hold newlines.
std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

void reply(const std::string& text) {
  std::cout << text << std::endl;  // endl flushes: the driver waits for the line
}

}  // namespace

int serve(const std::string& info, const Preparer& prepare) {
  std::optional<PreparedCase> prepared;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream words(line);
    std::string command;
    words >> command;
    try {
      if (command == "quit") break;
      if (command == "info") {
        reply(one_line(info));
      } else if (command == "prepare") {
        std::vector<std::string> tokens;
        for (std::string token; words >> token;) tokens.push_back(token);
        if (tokens.size() < 3) throw std::runtime_error("prepare needs <workload> <dtype> <dims...> <file>");
        CaseRequest request{tokens[0], tokens[1], {}};
        for (std::size_t i = 2; i + 1 < tokens.size(); ++i) request.dims.push_back(std::stoll(tokens[i]));
        prepared.reset();
        std::string why = "not implemented by this peer";
        prepared = prepare(request, why);
        if (!prepared) {
          reply("unsupported " + one_line(why));
          continue;
        }
        prepared->run();
        std::FILE* file = std::fopen(tokens.back().c_str(), "wb");
        if (file == nullptr) throw std::runtime_error("cannot write " + tokens.back());
        prepared->write_outputs(file);
        std::fclose(file);
        if (prepared->settle) prepared->settle();
        reply("ok");
      } else if (command == "time") {
        if (!prepared) throw std::runtime_error("time before a successful prepare");
        double minimum = 0.05;
        words >> minimum;
        long calls = 0;
        const auto start = std::chrono::steady_clock::now();
        double elapsed = 0;
        do {
          prepared->run();
          ++calls;
          elapsed = seconds_since(start);
        } while (elapsed < minimum);
        std::ostringstream text;
        text.precision(9);
        text << elapsed / double(calls) << " " << calls;
        reply(text.str());
      } else if (command == "release") {
        prepared.reset();
        reply("ok");
      } else {
        reply("error unknown command " + command);
      }
    } catch (const std::exception& error) {
      prepared.reset();
      reply("error " + one_line(error.what()));
    }
  }
  return 0;
}

}  // namespace bench
