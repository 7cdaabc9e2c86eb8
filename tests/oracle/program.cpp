#include "program.hpp"

#include <sstream>
#include <stdexcept>

namespace oracle {

const std::string& Statement::attr(const std::string& key) const {
  auto found = attrs.find(key);
  if (found == attrs.end()) throw std::runtime_error("statement " + name + " (" + op + ") has no attribute " + key);
  return found->second;
}

std::string to_text(const Program& program) {
  std::ostringstream out;
  for (const Statement& s : program.statements) {
    out << s.name << " = " << s.op;
    for (const std::string& operand : s.operands) out << ' ' << operand;
    for (const auto& [key, value] : s.attrs) out << ' ' << key << '=' << value;
    out << '\n';
  }
  for (const std::string& name : program.outputs) out << "out " << name << '\n';
  return out.str();
}

Program parse_program(const std::string& text) {
  Program program;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    std::istringstream words(line);
    std::vector<std::string> tokens;
    for (std::string word; words >> word;) tokens.push_back(word);
    if (tokens.empty() || tokens[0][0] == '#') continue;
    if (tokens[0] == "out" && tokens.size() == 2) {
      program.outputs.push_back(tokens[1]);
      continue;
    }
    if (tokens.size() < 3 || tokens[1] != "=")
      throw std::runtime_error("program line " + std::to_string(number) + " is neither `name = op ...` nor `out name`: " + line);
    Statement s{tokens[0], tokens[2], {}, {}};
    for (std::size_t i = 3; i < tokens.size(); ++i) {
      const auto equals = tokens[i].find('=');
      if (equals == std::string::npos) s.operands.push_back(tokens[i]);
      else s.attrs[tokens[i].substr(0, equals)] = tokens[i].substr(equals + 1);
    }
    program.statements.push_back(std::move(s));
  }
  return program;
}

std::vector<std::int64_t> parse_list(const std::string& text) {
  std::vector<std::int64_t> values;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) values.push_back(std::stoll(item));
  return values;
}

std::string list_text(const std::vector<std::int64_t>& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + std::to_string(values[i]);
  return text;
}

}  // namespace oracle
